import AWSWire
import GraphQL

/// The state of one generation: the schema, the statements, the fragments built so far, the
/// enums and input objects used, and the problems found.
final class TypesContext {
    let schema: GraphQLSchema
    let document: StatementsDocument
    private(set) var fragmentDefinitions: [String: FragmentDefinition] = [:]
    private var fragmentModels: [String: SelectionSetModel] = [:]
    /// Every fragment in document order, and the order operations use them in.
    private(set) var fragmentOrder: [String] = []
    var usedEnums: Set<String> = []
    var usedInputs: Set<String> = []
    var problems: [TypesError.Problem] = []
    /// Names a nested struct may not take: the generated top-level types and the Swift types
    /// generated code uses.
    private(set) var reservedNames: Set<String> = [
        "String", "Int", "Double", "Bool", "GraphQLID", "Snapshot", "Fragments", "Data", "Type", "Self", "Protocol",
        "Any", "Optional", "Array", "JSONValue", "GraphQLMap",
    ]

    init(schema: GraphQLSchema, document: StatementsDocument) {
        self.schema = schema
        self.document = document
        for definition in document.document.definitions {
            if let fragment = definition as? FragmentDefinition {
                fragmentDefinitions[fragment.name.value] = fragment
                fragmentOrder.append(fragment.name.value)
                reservedNames.insert(fragment.name.value)
            }
        }
        for (name, type) in schema.typeMap where type is GraphQLEnumType || type is GraphQLInputObjectType {
            reservedNames.insert(name)
        }
    }

    // MARK: - Operations and fragments

    func buildOperations() -> [OperationModel] {
        var result: [OperationModel] = []
        for definition in document.document.definitions {
            guard let operation = definition as? OperationDefinition else { continue }
            guard let name = operation.name?.value else {
                problems.append(
                    document.problem(
                        at: operation.loc,
                        "The operation has no name. Name it (query ListTodos { … }): the generated type is named after it."
                    )
                )
                continue
            }
            let (root, suffix, protocolName): (GraphQLObjectType?, String, String) =
                switch operation.operation {
                case .query: (schema.queryType, "Query", "GraphQLQuery")
                case .mutation: (schema.mutationType, "Mutation", "GraphQLMutation")
                case .subscription: (schema.subscriptionType, "Subscription", "GraphQLSubscription")
                }
            guard let root else { continue }  // validation reports an operation the schema lacks
            let variables = operation.variableDefinitions.map { definition in
                var type = inputSwiftType(definition.type)
                if definition.defaultValue != nil { type = type.optional }
                return OperationModel.Variable(name: definition.variable.name.value, type: type)
            }
            for variable in variables where ["variables", "operationName", "operationString"].contains(variable.name) {
                problems.append(
                    document.problem(
                        at: operation.loc,
                        "The variable $\(variable.name) would hide the operation's '\(variable.name)'. Rename the variable."
                    )
                )
            }
            let data = build([operation.selectionSet.selections], parent: root, addTypename: false)
            let used = fragmentsUsed(by: operation.selectionSet.selections)
            let text =
                ([OperationPrinter.print(operation)]
                + used.compactMap { fragmentDefinitions[$0] }.map(OperationPrinter.print))
                .joined(separator: "\n\n")
            result.append(
                OperationModel(
                    typeName: name.hasSuffix(suffix) ? name : name + suffix,
                    protocolName: protocolName,
                    operationName: name,
                    text: text,
                    variables: variables,
                    data: data
                )
            )
        }
        // Queries, then mutations, then subscriptions, each in statement order: the same
        // output whichever file each kind came from.
        let rank = ["GraphQLQuery": 0, "GraphQLMutation": 1, "GraphQLSubscription": 2]
        return result.enumerated().sorted { first, second in
            (rank[first.element.protocolName] ?? 3, first.offset) < (
                rank[second.element.protocolName] ?? 3, second.offset
            )
        }.map(\.element)
    }

    func buildFragments() -> [FragmentModel] {
        fragmentOrder.compactMap { name in
            guard let definition = fragmentDefinitions[name], let model = fragmentModel(name) else { return nil }
            return FragmentModel(name: name, text: OperationPrinter.print(definition), model: model)
        }
    }

    /// Reports top-level names used twice.
    func checkNames(operations: [OperationModel], fragments: [FragmentModel]) {
        var seen: Set<String> = []
        for name in operations.map(\.typeName) + fragments.map(\.name) + usedInputs.sorted() + usedEnums.sorted() {
            if !seen.insert(name).inserted {
                problems.append(
                    TypesError.Problem(
                        file: "statements",
                        message: "Two generated types would be named '\(name)'. Rename the operation or fragment."
                    )
                )
            }
        }
    }

    /// The fragments `selections` spread, directly or through other fragments, in order of first use.
    private func fragmentsUsed(by selections: [GraphQL.Selection]) -> [String] {
        var result: [String] = []
        func visit(_ selections: [GraphQL.Selection]) {
            for selection in selections {
                switch selection {
                case let field as GraphQL.Field:
                    if let set = field.selectionSet { visit(set.selections) }
                case let inline as InlineFragment:
                    visit(inline.selectionSet.selections)
                case let spread as FragmentSpread:
                    let name = spread.name.value
                    guard !result.contains(name), let definition = fragmentDefinitions[name] else { continue }
                    result.append(name)
                    visit(definition.selectionSet.selections)
                default:
                    continue
                }
            }
        }
        visit(selections)
        return result
    }

    /// The selection set of a fragment, built once.
    func fragmentModel(_ name: String) -> SelectionSetModel? {
        if let model = fragmentModels[name] { return model }
        guard let definition = fragmentDefinitions[name],
            let type = schema.getType(name: definition.typeCondition.name.value) as? GraphQLCompositeType
        else { return nil }
        let model = build([definition.selectionSet.selections], parent: type, addTypename: true)
        fragmentModels[name] = model
        return model
    }

    // MARK: - GraphQL.Selection sets

    /// One place a field is selected.
    private struct Occurrence {
        var name: String
        var alias: String?
        var type: any GraphQLOutputType
        var isConditional: Bool
        var selections: [GraphQL.Selection]
    }

    /// Builds the struct of the selection sets `sets` (several when a field is selected more
    /// than once) on `parent`.
    ///
    /// Inline fragments on other types become type cases: a nested `AsHuman` struct holding the
    /// common fields and the fragment's, read when `__typename` is one of its types. Building
    /// such a case passes its type as `caseType`, so that the other cases are left out of it.
    func build(
        _ sets: [[GraphQL.Selection]],
        parent: any GraphQLCompositeType,
        addTypename: Bool,
        caseType: String? = nil
    ) -> SelectionSetModel {
        let possibleTypes: [String]
        let isConcrete: Bool
        if let object = parent as? GraphQLObjectType {
            possibleTypes = [object.name]
            isConcrete = true
        } else if let abstract = parent as? any GraphQLAbstractType {
            possibleTypes = schema.getPossibleTypes(abstractType: abstract).map(\.name)
            isConcrete = false
        } else {
            possibleTypes = []
            isConcrete = false
        }
        var model = SelectionSetModel(typeName: parent.name, possibleTypes: possibleTypes, isConcrete: isConcrete)
        var order: [String] = []
        var own: [String: [Occurrence]] = [:]
        var inherited: [String: SwiftType] = [:]
        var typeCases: [String] = []

        func note(_ key: String) {
            if own[key] == nil, inherited[key] == nil { order.append(key) }
        }

        func collect(_ selections: [GraphQL.Selection], conditional: Bool) -> [RuntimeSelection] {
            var result: [RuntimeSelection] = []
            for selection in selections {
                let directives: [Directive]
                let location: Location?
                switch selection {
                case let field as GraphQL.Field: (directives, location) = (field.directives, field.loc)
                case let spread as FragmentSpread: (directives, location) = (spread.directives, spread.loc)
                case let inline as InlineFragment: (directives, location) = (inline.directives, inline.loc)
                default: continue
                }
                guard let conditions = conditions(of: directives) else { continue }
                let isConditional = conditional || !conditions.isEmpty
                var selected: [RuntimeSelection] = []
                switch selection {
                case let field as GraphQL.Field:
                    let name = field.name.value
                    let key = field.alias?.value ?? name
                    let type: any GraphQLOutputType
                    if name == "__typename" {
                        type = GraphQLNonNull(GraphQLString)
                    } else if let definition = fieldDefinition(name, on: parent) {
                        type = definition.type
                    } else {
                        continue  // validation reports unknown fields
                    }
                    if ["snapshot", "fragments"].contains(key) {
                        problems.append(
                            document.problem(
                                at: location,
                                "The field '\(key)' would hide the selection set's '\(key)'. Give it an alias (\(key)Value: \(name))."
                            )
                        )
                    }
                    note(key)
                    own[key, default: []].append(
                        Occurrence(
                            name: name,
                            alias: field.alias?.value,
                            type: type,
                            isConditional: isConditional,
                            selections: field.selectionSet?.selections ?? []
                        )
                    )
                    let arguments = field.arguments.map { ($0.name.value, inputValueExpression($0.value)) }
                    selected = [
                        .field(
                            name: name,
                            alias: field.alias?.value,
                            arguments: arguments,
                            type: type,
                            responseKey: key
                        )
                    ]
                case let inline as InlineFragment:
                    if let condition = inline.typeCondition?.name.value, condition != parent.name,
                        !applies(condition, to: caseType)
                    {
                        if caseType != nil { continue }  // another case's fields
                        if !conditions.isEmpty || conditional {
                            problems.append(
                                document.problem(
                                    at: location,
                                    "An inline fragment on another type (... on \(condition)) under @include or @skip is not "
                                        + "supported. Move the condition to the fields inside it."
                                )
                            )
                        } else if !typeCases.contains(condition) {
                            typeCases.append(condition)
                        }
                        continue
                    }
                    selected = collect(inline.selectionSet.selections, conditional: isConditional)
                case let spread as FragmentSpread:
                    let name = spread.name.value
                    guard let definition = fragmentDefinitions[name] else { continue }
                    let sameType = definition.typeCondition.name.value == parent.name
                    let use = SelectionSetModel.FragmentUse(name: name, isOptional: !sameType || isConditional)
                    if let index = model.fragments.firstIndex(where: { $0.name == name }) {
                        model.fragments[index].isOptional = model.fragments[index].isOptional && use.isOptional
                    } else {
                        model.fragments.append(use)
                    }
                    if sameType, let fragment = fragmentModel(name) {
                        for property in fragment.properties where own[property.responseKey] == nil {
                            note(property.responseKey)
                            let type = property.type.qualified(by: name)
                            inherited[property.responseKey] = isConditional ? type.optional : type
                        }
                    }
                    selected = [.fragment(name)]
                default:
                    continue
                }
                for condition in conditions.reversed() {
                    selected = [.condition(variable: condition.variable, inverted: condition.inverted, selected)]
                }
                result += selected
            }
            return result
        }

        if addTypename, !sets.contains(where: OperationPrinter.selectsTypename) {
            note("__typename")
            own["__typename"] = [
                Occurrence(
                    name: "__typename",
                    type: GraphQLNonNull(GraphQLString),
                    isConditional: false,
                    selections: []
                )
            ]
            model.selections.append(
                .field(
                    name: "__typename",
                    alias: nil,
                    arguments: [],
                    type: GraphQLNonNull(GraphQLString),
                    responseKey: "__typename"
                )
            )
        }
        for set in sets {
            model.selections += collect(set, conditional: false)
        }

        var structNames: Set<String> = []
        var variants: [(String, String)] = []
        for condition in typeCases {
            guard let type = schema.getType(name: condition) as? any GraphQLCompositeType else { continue }
            let name = structName(for: "as" + condition, taken: &structNames)
            let caseModel = build(sets, parent: type, addTypename: addTypename, caseType: condition)
            model.nested.append(SelectionSetModel.Nested(name: name, model: caseModel))
            model.typeCases.append(SelectionSetModel.TypeCase(property: "as" + condition, structName: name))
            for objectType in caseModel.possibleTypes where possibleTypes.contains(objectType) {
                if !variants.contains(where: { $0.0 == objectType }) { variants.append((objectType, name)) }
            }
        }
        if !variants.isEmpty {
            model.selections = [.typeCase(variants: variants, default: model.selections)]
        }
        for key in order {
            if let occurrences = own[key], let first = occurrences.first {
                var nestedName: String?
                if let named = getNamedType(type: first.type) as? any GraphQLCompositeType {
                    let name = structName(for: key, taken: &structNames)
                    nestedName = name
                    model.structNames[key] = name
                    let nested = build(occurrences.map(\.selections), parent: named, addTypename: true)
                    model.nested.append(SelectionSetModel.Nested(name: name, model: nested))
                }
                var type = outputSwiftType(first.type, nestedName: nestedName)
                if occurrences.allSatisfy(\.isConditional) { type = type.optional }
                model.properties.append(SelectionSetModel.Property(responseKey: key, type: type))
            } else if let type = inherited[key] {
                model.properties.append(SelectionSetModel.Property(responseKey: key, type: type))
            }
        }
        return model
    }

    /// Whether an inline fragment on `condition` applies to the type case being built: its own
    /// type, or an abstract type it belongs to.
    private func applies(_ condition: String, to caseType: String?) -> Bool {
        guard let caseType else { return false }
        if condition == caseType { return true }
        guard let abstract = schema.getType(name: condition) as? any GraphQLAbstractType,
            let object = schema.getType(name: caseType) as? GraphQLObjectType
        else { return false }
        return schema.getPossibleTypes(abstractType: abstract).contains { $0.name == object.name }
    }

    /// The conditions of `@include` and `@skip`: `nil` when a literal excludes the selection.
    private func conditions(of directives: [Directive]) -> [(variable: String, inverted: Bool)]? {
        var result: [(variable: String, inverted: Bool)] = []
        for directive in directives {
            let name = directive.name.value
            guard name == "include" || name == "skip",
                let argument = directive.arguments.first(where: { $0.name.value == "if" })
            else { continue }
            let inverted = name == "skip"
            if let variable = argument.value as? Variable {
                result.append((variable.name.value, inverted))
            } else if let literal = argument.value as? BooleanValue, literal.value == inverted {
                return nil
            }
        }
        return result
    }

    private func fieldDefinition(_ name: String, on type: any GraphQLCompositeType) -> GraphQLField? {
        if let object = type as? GraphQLObjectType { return (try? object.fields())?[name] }
        if let interface = type as? GraphQLInterfaceType { return (try? interface.fields())?[name] }
        return nil
    }

    /// The struct name of an object field: the response key in the singular, in PascalCase,
    /// made unique among its siblings and the reserved names.
    private func structName(for key: String, taken: inout Set<String>) -> String {
        let plain = Naming.upperFirst(key.drop(while: { $0 == "_" }).description)
        let candidates = [Naming.singular(plain), plain]
        for candidate in candidates
        where !candidate.isEmpty && !reservedNames.contains(candidate) && !taken.contains(candidate) {
            taken.insert(candidate)
            return candidate
        }
        var index = 2
        while taken.contains("\(candidates[0])\(index)") || reservedNames.contains("\(candidates[0])\(index)") {
            index += 1
        }
        let name = "\(candidates[0])\(index)"
        taken.insert(name)
        return name
    }

    // MARK: - Types

    /// The Swift type of a scalar: strings for IDs and every AWS and custom scalar but
    /// `AWSTimestamp`, which is an `Int`.
    static func swiftScalar(_ name: String) -> String {
        switch name {
        case "ID": return "GraphQLID"
        case "Int", "AWSTimestamp": return "Int"
        case "Float": return "Double"
        case "Boolean": return "Bool"
        default: return "String"
        }
    }

    /// The Swift type of an output type; composite types are the nested struct `nestedName`.
    func outputSwiftType(_ type: any GraphQLType, nestedName: String?) -> SwiftType {
        func convert(_ type: any GraphQLType, nonNull: Bool) -> SwiftType {
            let converted: SwiftType
            switch type {
            case let wrapper as GraphQLNonNull:
                return convert(wrapper.ofType, nonNull: true)
            case let list as GraphQLList:
                converted = .list(convert(list.ofType, nonNull: false))
            case let scalar as GraphQLScalarType:
                converted = .named(Self.swiftScalar(scalar.name), nested: false)
            case let enumType as GraphQLEnumType:
                usedEnums.insert(enumType.name)
                converted = .named(enumType.name, nested: false)
            default:
                converted = .named(nestedName ?? "JSONValue", nested: true)
            }
            return nonNull ? converted : .optional(converted)
        }
        return convert(type, nonNull: false)
    }

    /// The Swift type of an input type named in a variable definition; marks the enums and input
    /// objects it uses.
    func inputSwiftType(_ type: any GraphQL.`Type`) -> SwiftType {
        func convert(_ type: any GraphQL.`Type`, nonNull: Bool) -> SwiftType {
            let converted: SwiftType
            switch type {
            case let wrapper as NonNullType:
                return convert(wrapper.type, nonNull: true)
            case let list as ListType:
                converted = .list(convert(list.type, nonNull: false))
            case let named as NamedType:
                converted = .named(namedInputType(named.name.value), nested: false)
            default:
                converted = .named("JSONValue", nested: false)
            }
            return nonNull ? converted : .optional(converted)
        }
        return convert(type, nonNull: false)
    }

    /// The Swift type of a schema input type (an input object's field).
    func inputSwiftType(_ type: any GraphQLType) -> SwiftType {
        func convert(_ type: any GraphQLType, nonNull: Bool) -> SwiftType {
            let converted: SwiftType
            switch type {
            case let wrapper as GraphQLNonNull:
                return convert(wrapper.ofType, nonNull: true)
            case let list as GraphQLList:
                converted = .list(convert(list.ofType, nonNull: false))
            case let named as any GraphQLNamedType:
                converted = .named(namedInputType(named.name), nested: false)
            default:
                converted = .named("JSONValue", nested: false)
            }
            return nonNull ? converted : .optional(converted)
        }
        return convert(type, nonNull: false)
    }

    /// The Swift name of a named input type, marking enums and input objects (and the types of
    /// their fields) as used.
    private func namedInputType(_ name: String) -> String {
        switch schema.getType(name: name) {
        case let enumType as GraphQLEnumType:
            usedEnums.insert(enumType.name)
            return enumType.name
        case let input as GraphQLInputObjectType:
            if usedInputs.insert(input.name).inserted {
                for field in (try? input.fields()) ?? [:] {
                    _ = inputSwiftType(field.value.type)
                }
            }
            return input.name
        default:
            return Self.swiftScalar(name)
        }
    }

    /// A Swift expression for an argument value: a ``GraphQLVariable`` or a literal.
    private func inputValueExpression(_ value: any Value) -> String {
        switch value {
        case let variable as Variable: return "GraphQLVariable(\(SwiftNames.literal(variable.name.value)))"
        case let integer as IntValue: return "JSONValue.integer(\(integer.value))"
        case let float as FloatValue: return "JSONValue.number(\(float.value))"
        case let string as StringValue: return "JSONValue.string(\(SwiftNames.literal(string.value)))"
        case let boolean as BooleanValue: return "JSONValue.boolean(\(boolean.value))"
        case let enumValue as EnumValue: return "JSONValue.string(\(SwiftNames.literal(enumValue.value)))"
        case let list as ListValue:
            return "GraphQLInputList([" + list.values.map(inputValueExpression).joined(separator: ", ") + "])"
        case let object as ObjectValue:
            let fields = object.fields.map { "\(SwiftNames.literal($0.name.value)): \(inputValueExpression($0.value))" }
            return "GraphQLInputObject([" + (fields.isEmpty ? ":" : fields.joined(separator: ", ")) + "])"
        default: return "JSONValue.null"
        }
    }
}
