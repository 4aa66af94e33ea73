import GraphQL

/// Where in an SDL document the problems of GraphQLSwift's schema validation are.
///
/// `buildSchema` validates SDL with rules that know each problem's node, but joins their
/// messages into one error without places. This finds each message's node again in the parsed
/// document, so that `stratus codegen types` says `schema.graphql:12:20: Unknown directive
/// "@x".` as it does for syntax errors. A message it does not recognise keeps no place.
enum SDLProblemPlaces {
    /// The problems of `joinedMessage` (messages separated by blank lines), each with the line
    /// and column of its node in `document` when one is found.
    static func problems(joinedMessage: String, document: Document, file: String) -> [TypesError.Problem] {
        let uses = Uses(document)
        // The same message twice is the same rule's report for two nodes, in document order.
        var seen: [String: Int] = [:]
        return joinedMessage.components(separatedBy: "\n\n").map { message in
            let occurrence = seen[message, default: 0]
            seen[message] = occurrence + 1
            let node = place(of: message, occurrence: occurrence, uses: uses)
            let token = node?.loc?.startToken
            return TypesError.Problem(file: file, line: token?.line, column: token?.column, message: message)
        }
    }

    private static func place(of message: String, occurrence: Int, uses: Uses) -> (any Node)? {
        let quoted = quotedNames(in: message)
        func nth(_ candidates: [any Node]) -> (any Node)? {
            candidates.indices.contains(occurrence) ? candidates[occurrence] : candidates.first
        }
        if message.hasPrefix("Unknown argument "), quoted.count >= 2 {
            let directive = String(quoted[1].dropFirst())
            return nth(
                uses.directives.filter { $0.node.name.value == directive }
                    .flatMap { $0.node.arguments.filter { $0.name.value == quoted[0] } }
            )
        }
        if message.hasPrefix("Unknown type "), let name = quoted.first {
            return nth(uses.namedTypes.filter { $0.name.value == name })
        }
        if message.hasPrefix("There can be only one type named "), let name = quoted.first {
            let definitions = uses.typeDefinitions.filter { $0.name == name }.map(\.node)
            return definitions.indices.contains(occurrence + 1) ? definitions[occurrence + 1] : definitions.last
        }
        guard let directive = quoted.first(where: { $0.hasPrefix("@") })?.dropFirst() else { return nil }
        let named = uses.directives.filter { $0.node.name.value == directive }
        if let range = message.range(of: " may not be used on ") {
            let location = message[range.upperBound...].trimmingCharacters(in: ["."])
            return nth(named.filter { $0.locations.contains(location) }.map(\.node))
        }
        return nth(named.map(\.node))
    }

    /// The `"…"` parts of a message, in order.
    private static func quotedNames(in message: String) -> [String] {
        message.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// The directive uses, type references and type definitions of a document, in order.
    private struct Uses {
        /// Each directive used, with the locations its place stands for.
        var directives: [(node: Directive, locations: Set<String>)] = []
        var namedTypes: [NamedType] = []
        var typeDefinitions: [(name: String, node: any Node)] = []

        init(_ document: Document) {
            for definition in document.definitions { addDefinition(definition) }
        }

        private mutating func addDefinition(_ definition: any Definition) {
            switch definition {
            case let schema as SchemaDefinition: add(schema)
            case let scalar as ScalarTypeDefinition: add(scalar)
            case let object as ObjectTypeDefinition: add(object)
            case let interface as InterfaceTypeDefinition: add(interface)
            case let union as UnionTypeDefinition: add(union)
            case let enumeration as EnumTypeDefinition: add(enumeration)
            case let input as InputObjectTypeDefinition: add(input)
            case let directive as DirectiveDefinition:
                for item in directive.arguments { add(item, at: ["ARGUMENT_DEFINITION"]) }
            case let object as TypeExtensionDefinition: add(object.definition, defines: false)
            case let schema as SchemaExtensionDefinition: add(schema.definition)
            case let interface as InterfaceExtensionDefinition: add(interface.definition, defines: false)
            case let scalar as ScalarExtensionDefinition: use(scalar.directives, at: ["SCALAR"])
            case let union as UnionExtensionDefinition: add(union.definition, defines: false)
            case let enumeration as EnumExtensionDefinition: add(enumeration.definition, defines: false)
            case let input as InputObjectExtensionDefinition: add(input.definition, defines: false)
            default: break
            }
        }

        private mutating func add(_ schema: SchemaDefinition) {
            use(schema.directives, at: ["SCHEMA"])
            namedTypes += schema.operationTypes.map(\.type)
        }

        private mutating func add(_ scalar: ScalarTypeDefinition) {
            typeDefinitions.append((scalar.name.value, scalar))
            use(scalar.directives, at: ["SCALAR"])
        }

        private mutating func add(_ object: ObjectTypeDefinition, defines: Bool = true) {
            if defines { typeDefinitions.append((object.name.value, object)) }
            namedTypes += object.interfaces
            use(object.directives, at: ["OBJECT"])
            for item in object.fields { add(item) }
        }

        private mutating func add(_ interface: InterfaceTypeDefinition, defines: Bool = true) {
            if defines { typeDefinitions.append((interface.name.value, interface)) }
            namedTypes += interface.interfaces
            use(interface.directives, at: ["INTERFACE"])
            for item in interface.fields { add(item) }
        }

        private mutating func add(_ union: UnionTypeDefinition, defines: Bool = true) {
            if defines { typeDefinitions.append((union.name.value, union)) }
            use(union.directives, at: ["UNION"])
            namedTypes += union.types
        }

        private mutating func add(_ enumeration: EnumTypeDefinition, defines: Bool = true) {
            if defines { typeDefinitions.append((enumeration.name.value, enumeration)) }
            use(enumeration.directives, at: ["ENUM"])
            for value in enumeration.values { use(value.directives, at: ["ENUM_VALUE"]) }
        }

        private mutating func add(_ input: InputObjectTypeDefinition, defines: Bool = true) {
            if defines { typeDefinitions.append((input.name.value, input)) }
            use(input.directives, at: ["INPUT_OBJECT"])
            for item in input.fields { add(item, at: ["INPUT_FIELD_DEFINITION"]) }
        }

        private mutating func add(_ field: FieldDefinition) {
            for item in field.arguments { add(item, at: ["ARGUMENT_DEFINITION"]) }
            refer(to: field.type)
            use(field.directives, at: ["FIELD_DEFINITION"])
        }

        private mutating func add(_ value: InputValueDefinition, at locations: Set<String>) {
            refer(to: value.type)
            use(value.directives, at: locations)
        }

        private mutating func use(_ directives: [Directive], at locations: Set<String>) {
            for directive in directives { self.directives.append((directive, locations)) }
        }

        private mutating func refer(to type: any Type) {
            switch type {
            case let named as NamedType: namedTypes.append(named)
            case let list as ListType: refer(to: list.type)
            case let nonNull as NonNullType: refer(to: nonNull.type)
            default: break
            }
        }
    }
}
