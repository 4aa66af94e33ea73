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
    }

    var kind: Kind
    /// The root field: `getPost`, `listPosts`, `onCreatePost`.
    var field: String
    var arguments: [Argument]
    var selectionSet: [Selection]

    /// The operation name: the root field in PascalCase.
    var name: String { Naming.upperFirst(field) }

    /// The operation as a GraphQL document, with two-space indentation and no trailing newline.
    var text: String {
        let variables = arguments.map { "$\($0.name): \($0.type)" }.joined(separator: ", ")
        let passed = arguments.map { "\($0.name): $\($0.name)" }.joined(separator: ", ")
        var lines = [
            "\(kind.rawValue) \(name)\(variables.isEmpty ? "" : "(\(variables))") {",
            "  \(field)\(passed.isEmpty ? "" : "(\(passed))") {",
        ]
        for selection in selectionSet {
            selection.write(to: &lines, indent: 2)
        }
        lines.append("  }")
        lines.append("}")
        return lines.joined(separator: "\n")
    }
}

/// A field in a selection set: a leaf, or an object with its own selection set.
enum Selection: Hashable {
    case field(String)
    indirect case object(String, [Selection])

    func write(to lines: inout [String], indent: Int) {
        let padding = String(repeating: "  ", count: indent)
        switch self {
        case .field(let name):
            lines.append(padding + name)
        case .object(let name, let selectionSet):
            lines.append(padding + name + " {")
            for selection in selectionSet {
                selection.write(to: &lines, indent: indent + 1)
            }
            lines.append(padding + "}")
        }
    }
}
