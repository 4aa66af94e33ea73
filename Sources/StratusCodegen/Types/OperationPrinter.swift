import GraphQL

/// Prints operations and fragments as they are sent: two-space indentation, and `__typename`
/// first in every object's selection set, as Apollo's code generation added it so that a
/// response names the type of each object.
enum OperationPrinter {
    static func print(_ operation: OperationDefinition) -> String {
        let variables = operation.variableDefinitions.map { GraphQL.print(ast: $0) }.joined(separator: ", ")
        var header = operation.operation.rawValue
        if let name = operation.name?.value { header += " " + name }
        if !variables.isEmpty { header += "(\(variables))" }
        header += directives(operation.directives)
        var lines = [header + " {"]
        write(operation.selectionSet.selections, indent: 1, addTypename: false, to: &lines)
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    static func print(_ fragment: FragmentDefinition) -> String {
        var lines = [
            "fragment \(fragment.name.value) on \(fragment.typeCondition.name.value)\(directives(fragment.directives)) {"
        ]
        write(fragment.selectionSet.selections, indent: 1, addTypename: true, to: &lines)
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    /// Whether `selections` select `__typename` without an alias.
    static func selectsTypename(_ selections: [GraphQL.Selection]) -> Bool {
        selections.contains { ($0 as? GraphQL.Field).map { $0.name.value == "__typename" && $0.alias == nil } ?? false }
    }

    private static func write(
        _ selections: [GraphQL.Selection],
        indent: Int,
        addTypename: Bool,
        to lines: inout [String]
    ) {
        let padding = String(repeating: "  ", count: indent)
        if addTypename, !selectsTypename(selections) {
            lines.append(padding + "__typename")
        }
        for selection in selections {
            switch selection {
            case let field as GraphQL.Field:
                var text = padding
                if let alias = field.alias { text += alias.value + ": " }
                text += field.name.value
                if !field.arguments.isEmpty {
                    let arguments = field.arguments.map { "\($0.name.value): \(GraphQL.print(ast: $0.value))" }
                    text += "(" + arguments.joined(separator: ", ") + ")"
                }
                text += directives(field.directives)
                if let selectionSet = field.selectionSet {
                    lines.append(text + " {")
                    write(selectionSet.selections, indent: indent + 1, addTypename: true, to: &lines)
                    lines.append(padding + "}")
                } else {
                    lines.append(text)
                }
            case let spread as FragmentSpread:
                lines.append(padding + "..." + spread.name.value + directives(spread.directives))
            case let inline as InlineFragment:
                let condition = inline.typeCondition.map { " on " + $0.name.value } ?? ""
                lines.append(padding + "..." + condition + directives(inline.directives) + " {")
                write(inline.selectionSet.selections, indent: indent + 1, addTypename: false, to: &lines)
                lines.append(padding + "}")
            default:
                continue
            }
        }
    }

    private static func directives(_ directives: [Directive]) -> String {
        directives.map { " " + GraphQL.print(ast: $0) }.joined()
    }
}
