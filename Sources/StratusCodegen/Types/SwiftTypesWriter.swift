import AWSWire
import GraphQL

/// Writes the Swift text of `API.swift` from the built operations, fragments, input objects and
/// enums.
struct SwiftTypesWriter {
    let context: TypesContext
    private var lines: [String] = []
    private var depth = 0

    init(context: TypesContext) {
        self.context = context
    }

    mutating func write(operations: [OperationModel], fragments: [FragmentModel]) -> String {
        lines = TypesGenerator.header.components(separatedBy: "\n") + ["", "import AWSAppSync"]
        for name in context.usedInputs.sorted() {
            guard let input = context.schema.getType(name: name) as? GraphQLInputObjectType else { continue }
            line("")
            writeInput(input)
        }
        for name in context.usedEnums.sorted() {
            guard let enumType = context.schema.getType(name: name) as? GraphQLEnumType else { continue }
            line("")
            writeEnum(enumType)
        }
        for operation in operations {
            line("")
            writeOperation(operation)
        }
        for fragment in fragments {
            line("")
            writeSelectionSet(
                fragment.model,
                name: fragment.name,
                conformance: "GraphQLFragment",
                statics: ["public static let fragmentDefinition = " + multilineLiteral(fragment.text)]
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: - Lines

    private mutating func line(_ text: String) {
        if text.isEmpty {
            if lines.last != "" { lines.append("") }
        } else {
            lines.append(String(repeating: "    ", count: depth) + text)
        }
    }

    private mutating func open(_ header: String) {
        line(header + " {")
        depth += 1
    }

    private mutating func close() {
        if lines.last == "" { lines.removeLast() }
        depth -= 1
        line("}")
    }

    /// `prefix(items)suffix` on one line when it fits in 120 columns, else one item per line.
    private mutating func list(_ prefix: String, _ items: [String], _ suffix: String, open: String, close: String) {
        let single = prefix + open + items.joined(separator: ", ") + close + suffix
        if items.count <= 1 || single.count + depth * 4 <= 120 {
            line(single)
            return
        }
        line(prefix + open)
        depth += 1
        for (index, item) in items.enumerated() {
            line(item + (open == "(" && index == items.count - 1 ? "" : ","))
        }
        depth -= 1
        line(close + suffix)
    }

    /// A Swift multi-line string literal holding `text`, indented one level deeper.
    private func multilineLiteral(_ text: String) -> String {
        let padding = String(repeating: "    ", count: depth + 1)
        let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
            of: "\"\"\"",
            with: "\\\"\"\""
        )
        let body = escaped.components(separatedBy: "\n").map { $0.isEmpty ? "" : padding + $0 }
        return (["\"\"\""] + body + [padding + "\"\"\""]).joined(separator: "\n")
    }

    private mutating func multilineLine(_ text: String) {
        // A multi-line literal is written as its own lines, without further indentation.
        let parts = text.components(separatedBy: "\n")
        line(parts[0])
        lines += parts.dropFirst()
    }

    // MARK: - Input objects and enums

    private mutating func writeInput(_ input: GraphQLInputObjectType) {
        let fields = ((try? input.fields()) ?? [:]).map { ($0.key, context.inputSwiftType($0.value.type)) }
        open("public struct \(input.name): GraphQLMapConvertible")
        line("public var graphQLMap: GraphQLMap")
        line("")
        let parameters = fields.map { name, type in
            "\(SwiftNames.identifier(name)): \(type.spelling)" + (type.isOptional ? " = nil" : "")
        }
        list("public init", parameters, " {", open: "(", close: ")")
        depth += 1
        let values = fields.map { name, type in
            "\(SwiftNames.literal(name)): \(SwiftNames.identifier(name))\(type.isOptional ? "?" : "").jsonValue"
        }
        list("graphQLMap = GraphQLMap(omittingNil: ", values.isEmpty ? [":"] : values, ")", open: "[", close: "]")
        depth -= 1
        line("}")
        line("")
        open("public init(graphQLMap: GraphQLMap)")
        line("self.graphQLMap = graphQLMap")
        close()
        for (name, type) in fields {
            line("")
            open("public var \(SwiftNames.identifier(name)): \(type.spelling)")
            line("get { graphQLMap[input: \(SwiftNames.literal(name))] }")
            line("set { graphQLMap[input: \(SwiftNames.literal(name))] = newValue }")
            close()
        }
        close()
    }

    private mutating func writeEnum(_ enumType: GraphQLEnumType) {
        let cases = enumType.values.map { ($0.name, SwiftNames.enumCase($0.name)) }
        open(
            "public enum \(enumType.name): RawRepresentable, Equatable, Hashable, Sendable, JSONDecodable, JSONEncodable"
        )
        line("public typealias RawValue = String")
        for (_, swiftCase) in cases { line("case \(swiftCase)") }
        line("/// A value this version of the API did not have.")
        line("case unknown(RawValue)")
        line("")
        open("public init?(rawValue: RawValue)")
        line("switch rawValue {")
        for (name, swiftCase) in cases { line("case \(SwiftNames.literal(name)): self = .\(swiftCase)") }
        line("default: self = .unknown(rawValue)")
        line("}")
        close()
        line("")
        open("public var rawValue: RawValue")
        line("switch self {")
        for (name, swiftCase) in cases { line("case .\(swiftCase): return \(SwiftNames.literal(name))") }
        line("case .unknown(let value): return value")
        line("}")
        close()
        close()
    }

    // MARK: - Operations

    private mutating func writeOperation(_ operation: OperationModel) {
        open("public struct \(operation.typeName): \(operation.protocolName)")
        line("public static let operationName = \(SwiftNames.literal(operation.operationName))")
        line("")
        multilineLine("public static let operationString = " + multilineLiteral(operation.text))
        if !operation.variables.isEmpty {
            line("")
            for variable in operation.variables {
                line("public var \(SwiftNames.identifier(variable.name)): \(variable.type.spelling)")
            }
            line("")
            let parameters = operation.variables.map {
                "\(SwiftNames.identifier($0.name)): \($0.type.spelling)" + ($0.type.isOptional ? " = nil" : "")
            }
            list("public init", parameters, " {", open: "(", close: ")")
            depth += 1
            for variable in operation.variables {
                let name = SwiftNames.identifier(variable.name)
                line("self.\(name) = \(name)")
            }
            depth -= 1
            line("}")
            line("")
            open("public var variables: GraphQLMap?")
            let values = operation.variables.map {
                "\(SwiftNames.literal($0.name)): \(SwiftNames.identifier($0.name))\($0.type.isOptional ? "?" : "").jsonValue"
            }
            list("GraphQLMap(omittingNil: ", values, ")", open: "[", close: "]")
            close()
        } else {
            line("")
            line("public init() {}")
        }
        line("")
        writeSelectionSet(operation.data, name: "Data", conformance: "GraphQLSelectionSet", statics: [])
        close()
    }

    // MARK: - GraphQL.Selection sets

    private mutating func writeSelectionSet(
        _ model: SelectionSetModel,
        name: String,
        conformance: String,
        statics: [String]
    ) {
        let identifiable = model.properties.contains { $0.responseKey == "id" && $0.type.isIdentifier }
        open("public struct \(name): \(conformance)\(identifiable ? ", Identifiable" : "")")
        for text in statics {
            multilineLine(text)
            line("")
        }
        line(
            "public static let possibleTypes = [\(model.possibleTypes.map(SwiftNames.literal).joined(separator: ", "))]"
        )
        line("")
        if model.selections.isEmpty {
            line("public static let selections: [any GraphQLSelection] = []")
        } else {
            line("public static let selections: [any GraphQLSelection] = [")
            depth += 1
            writeRuntimeSelections(model.selections, structNames: model.structNames)
            depth -= 1
            line("]")
        }
        line("")
        line("public var snapshot: Snapshot")
        line("")
        open("public init(snapshot: Snapshot)")
        line("self.snapshot = snapshot")
        close()
        writeMemberwiseInit(model)
        let names = SwiftNames.propertyNames(of: model.properties.map(\.responseKey))
        for (property, name) in zip(model.properties, names) {
            line("")
            open("public var \(name): \(property.type.spelling)")
            line("get { snapshot[field: \(SwiftNames.literal(property.responseKey))] }")
            line("set { snapshot[field: \(SwiftNames.literal(property.responseKey))] = newValue }")
            close()
        }
        for typeCase in model.typeCases {
            line("")
            open("public var \(SwiftNames.identifier(typeCase.property)): \(typeCase.structName)?")
            open("get")
            line(
                "guard case .string(let typename)? = snapshot[\"__typename\"], \(typeCase.structName).possibleTypes.contains(typename) else { return nil }"
            )
            line("return \(typeCase.structName)(snapshot: snapshot)")
            close()
            line("set { if let newValue { snapshot = newValue.snapshot } }")
            close()
        }
        if !model.fragments.isEmpty {
            writeFragments(model.fragments)
        }
        for nested in model.nested {
            line("")
            writeSelectionSet(nested.model, name: nested.name, conformance: "GraphQLSelectionSet", statics: [])
        }
        close()
    }

    private mutating func writeRuntimeSelections(_ selections: [RuntimeSelection], structNames: [String: String]) {
        for selection in selections {
            switch selection {
            case .field(let name, let alias, let arguments, let type, let responseKey):
                var parts = [SwiftNames.literal(name)]
                if let alias { parts.append("alias: \(SwiftNames.literal(alias))") }
                if !arguments.isEmpty {
                    let entries = arguments.map { "\(SwiftNames.literal($0.0)): \($0.1)" }
                    parts.append("arguments: [\(entries.joined(separator: ", "))]")
                }
                parts.append("type: \(outputTypeExpression(type, structName: structNames[responseKey]))")
                list("GraphQLField", parts, ",", open: "(", close: ")")
            case .condition(let variable, let inverted, let inner):
                line(
                    "GraphQLBooleanCondition(variableName: \(SwiftNames.literal(variable)), inverted: \(inverted), selections: ["
                )
                depth += 1
                writeRuntimeSelections(inner, structNames: structNames)
                depth -= 1
                line("]),")
            case .fragment(let name):
                line("GraphQLFragmentSpread(\(name).self),")
            case .typeCase(let variants, let defaultSelections):
                line("GraphQLTypeCase(")
                depth += 1
                let entries = variants.map { "\(SwiftNames.literal($0.0)): \($0.1).selections" }
                line("variants: [\(entries.joined(separator: ", "))],")
                line("default: [")
                depth += 1
                writeRuntimeSelections(defaultSelections, structNames: structNames)
                depth -= 1
                line("]")
                depth -= 1
                line("),")
            }
        }
    }

    private func outputTypeExpression(_ type: any GraphQLType, structName: String?) -> String {
        switch type {
        case let wrapper as GraphQLNonNull:
            return ".nonNull(\(outputTypeExpression(wrapper.ofType, structName: structName)))"
        case let list as GraphQLList:
            return ".list(\(outputTypeExpression(list.ofType, structName: structName)))"
        case let scalar as GraphQLScalarType:
            return ".scalar(\(TypesContext.swiftScalar(scalar.name)).self)"
        case let enumType as GraphQLEnumType:
            return ".scalar(\(enumType.name).self)"
        default:
            return ".object(\(structName ?? "Never").selections)"
        }
    }

    /// `init(field: Type, …)` filling the snapshot, `__typename` included for a concrete type.
    private mutating func writeMemberwiseInit(_ model: SelectionSetModel) {
        var parameters: [String] = []
        var values: [String] = []
        let names = SwiftNames.propertyNames(of: model.properties.map(\.responseKey))
        for (property, name) in zip(model.properties, names) {
            let key = SwiftNames.literal(property.responseKey)
            if property.responseKey == "__typename", model.isConcrete {
                values.append("\(key): \(SwiftNames.literal(model.typeName))")
                continue
            }
            parameters.append("\(name): \(property.type.spelling)" + (property.type.isOptional ? " = nil" : ""))
            values.append("\(key): \(name).jsonValue")
        }
        line("")
        list("public init", parameters, " {", open: "(", close: ")")
        depth += 1
        list("self.init(snapshot: ", values.isEmpty ? [":"] : values, ")", open: "[", close: "]")
        depth -= 1
        line("}")
    }

    private mutating func writeFragments(_ fragments: [SelectionSetModel.FragmentUse]) {
        line("")
        open("public var fragments: Fragments")
        line("get { Fragments(snapshot: snapshot) }")
        line("set { snapshot.merge(newValue.snapshot) { $1 } }")
        close()
        line("")
        open("public struct Fragments: Sendable")
        line("public var snapshot: Snapshot")
        line("")
        open("public init(snapshot: Snapshot)")
        line("self.snapshot = snapshot")
        close()
        for fragment in fragments {
            let property = SwiftNames.identifier(Naming.lowerFirst(fragment.name))
            line("")
            if fragment.isOptional {
                open("public var \(property): \(fragment.name)?")
                open("get")
                line(
                    "if case .string(let typename)? = snapshot[\"__typename\"], !\(fragment.name).possibleTypes.contains(typename) { return nil }"
                )
                line("return try? \(fragment.name)(jsonObject: snapshot)")
                close()
                line("set { if let newValue { snapshot.merge(newValue.snapshot) { $1 } } }")
                close()
            } else {
                open("public var \(property): \(fragment.name)")
                line("get { \(fragment.name)(snapshot: snapshot) }")
                line("set { snapshot.merge(newValue.snapshot) { $1 } }")
                close()
            }
        }
        close()
    }
}
