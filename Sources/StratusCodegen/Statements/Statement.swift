import AWSWire

/// One GraphQL operation of a statements document, before it is written out.
///
/// The operation is named after its root field in PascalCase (`getPost` → `GetPost`), declares
/// one variable per argument and passes each variable to the argument of the same name:
///
/// ```graphql
/// query GetPost($id: ID!) {
///   getPost(id: $id) {
///     id
///   }
/// }
/// ```
struct Statement: Hashable {
    /// The three kinds of operation, each written to its own file.
    enum Kind: String, CaseIterable {
        case query
        case mutation
        case subscription
    }

    /// An argument of the root field, passed through a variable of the same name.
    struct Argument: Hashable {
        var name: String
        /// The variable's type as GraphQL writes it (`ID!`, `ModelPostFilterInput`).
        var type: String
        /// The variable's default value, as the schema gives it for the argument.
        var defaultValue: String? = nil
    }

    var kind: Kind
    /// The root field: `getPost`, `listPosts`, `onCreatePost`.
    var field: String
    var arguments: [Argument]
    var selectionSet: [Selection]

    /// The operation name: the root field in PascalCase.
    var name: String { Naming.upperFirst(field) }

    /// The operation as a GraphQL document, with two-space indentation and no trailing newline.
    /// A field whose result is a scalar or an enum has no selection set.
    var text: String {
        let variables = arguments.map { argument in
            "$\(argument.name): \(argument.type)" + (argument.defaultValue.map { " = \($0)" } ?? "")
        }.joined(separator: ", ")
        let passed = arguments.map { "\($0.name): $\($0.name)" }.joined(separator: ", ")
        let call = "  \(field)\(passed.isEmpty ? "" : "(\(passed))")"
        var lines = ["\(kind.rawValue) \(name)\(variables.isEmpty ? "" : "(\(variables))") {"]
        if selectionSet.isEmpty {
            lines.append(call)
        } else {
            lines.append(call + " {")
            for selection in selectionSet {
                selection.write(to: &lines, indent: 2)
            }
            lines.append("  }")
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }
}

/// A field in a selection set: a leaf, or an object with its own selection set; or an inline
/// fragment on one of the types of an interface or union.
enum Selection: Hashable {
    case field(String)
    indirect case object(String, [Selection])
    /// `... on Type { … }`.
    indirect case inlineFragment(String, [Selection])

    /// The field's name; for a fragment, `... on Type`.
    var name: String {
        switch self {
        case .field(let name), .object(let name, _): name
        case .inlineFragment(let type, _): "... on \(type)"
        }
    }

    func write(to lines: inout [String], indent: Int) {
        let padding = String(repeating: "  ", count: indent)
        switch self {
        case .field(let name):
            lines.append(padding + name)
        case .object(_, let selectionSet), .inlineFragment(_, let selectionSet):
            lines.append(padding + name + " {")
            for selection in selectionSet {
                selection.write(to: &lines, indent: indent + 1)
            }
            lines.append(padding + "}")
        }
    }
}
