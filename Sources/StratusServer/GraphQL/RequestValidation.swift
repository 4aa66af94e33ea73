import GraphQL
import StratusCodegen

/// The checks of AWS scalar values in a request, which AppSync makes before running it and
/// reports in its own words.
enum RequestValidation {
    /// A problem with the request as a whole: no path, one location.
    struct Problem: Error {
        var message: String
        var location: SourceLocation?
    }

    // MARK: - Variables

    /// The first AWS scalar value among `variables` that its type refuses:
    /// `Variable 'phone' has an invalid value. Unable to parse `123` as a valid phone number.`,
    /// located at the variable's definition. The variable is named by the innermost input field
    /// holding the value, as AppSync names it.
    static func checkVariables(
        of operation: OperationDefinition,
        values: JSONObject,
        schema: GraphQLSchema
    ) -> Problem? {
        for definition in operation.variableDefinitions {
            let name = definition.variable.name.value
            guard let value = values[name] else { continue }
            if let message = check(value, type: TypeReference(definition.type), name: name, schema: schema) {
                let location = definition.loc.map {
                    SourceLocation(line: $0.startToken.line, column: $0.startToken.column)
                }
                return Problem(message: message, location: location)
            }
        }
        return nil
    }

    /// A GraphQL type, from the AST or from the schema.
    private indirect enum TypeReference {
        case named(String)
        case list(TypeReference)
        case nonNull(TypeReference)

        init(_ type: any GraphQL.`Type`) {
            switch type {
            case let nonNull as NonNullType: self = .nonNull(TypeReference(nonNull.type))
            case let list as ListType: self = .list(TypeReference(list.type))
            case let named as NamedType: self = .named(named.name.value)
            default: self = .named("")
            }
        }

        init(_ type: any GraphQLType) {
            switch type {
            case let nonNull as GraphQLNonNull: self = .nonNull(TypeReference(nonNull.ofType))
            case let list as GraphQLList: self = .list(TypeReference(list.ofType))
            case let named as any GraphQLNamedType: self = .named(named.name)
            default: self = .named("")
            }
        }
    }

    private static func check(_ value: JSON, type: TypeReference, name: String, schema: GraphQLSchema) -> String? {
        switch type {
        case .nonNull(let inner):
            return check(value, type: inner, name: name, schema: schema)
        case .list(let inner):
            for element in value.arrayValue ?? [value] {
                if let message = check(element, type: inner, name: name, schema: schema) { return message }
            }
            return nil
        case .named(let typeName):
            if let scalar = Scalar(rawValue: typeName) {
                if scalar == .int, let problem = intProblem(value) {
                    return "Variable '\(name)' has an invalid value. \(problem)"
                }
                return AWSScalarValidation.problem(with: value, as: scalar).map {
                    "Variable '\(name)' has an invalid value. \($0)"
                }
            }
            // An input type whose fields cannot be listed is left to the executor's coercion, which reports it.
            guard case .object(let members) = value,
                let inputType = schema.getType(name: typeName) as? GraphQLInputObjectType,
                let fields = try? inputType.fields()
            else { return nil }
            for (fieldName, field) in fields {
                guard let member = members[fieldName] else { continue }
                if let message = check(member, type: TypeReference(field.type), name: fieldName, schema: schema) {
                    return message
                }
            }
            return nil
        }
    }

    /// Why an `Int` variable's value is refused that GraphQLSwift would take: a number with a
    /// fraction, which it passes on as it is, so that an `Int` field stored `1.5` and every later
    /// read of the item failed. Other wrong values are the executor's to refuse.
    private static func intProblem(_ value: JSON) -> String? {
        guard case .double(let number) = value, number.isFinite, Int32(exactly: number) == nil else { return nil }
        return "`\(value.text)` is not a whole number: an Int takes a whole number from -2147483648 to 2147483647."
    }

    // MARK: - Literals

    /// A validation rule for AWS scalar literals and `Int` literals past 32 bits:
    /// `Validation error of type WrongType: argument 'input.publishedAt' with value
    /// 'StringValue{value='soon'}' is not a valid 'AWSDateTime' @ 'createPost'`.
    static let literalRule: @Sendable (ValidationContext) -> Visitor = { context in
        final class State {
            var fields: [String] = []
            var arguments: [(name: String, location: SourceLocation?)] = []
            var objectFields: [String] = []
        }
        let state = State()
        return Visitor(
            enter: { node, _, _, _, _ in
                switch node {
                case let field as GraphQL.Field:
                    state.fields.append(field.alias?.value ?? field.name.value)
                case let argument as Argument:
                    state.arguments.append((argument.name.value, location(of: argument)))
                case let objectField as ObjectField:
                    state.objectFields.append(objectField.name.value)
                default:
                    guard let (shown, json) = literal(node),
                        let scalar = (context.inputType.flatMap { getNamedType(type: $0) }).flatMap({
                            Scalar(rawValue: $0.name)
                        }),
                        refuses(literal: node, json, as: scalar),
                        let argument = state.arguments.last
                    else { return .continue }
                    let path = ([argument.name] + state.objectFields).joined(separator: ".")
                    context.report(
                        error: GraphQLError(
                            message: "Validation error of type WrongType: argument '\(path)' with value '\(shown)' "
                                + "is not a valid '\(scalar.rawValue)' @ '\(state.fields.joined(separator: "/"))'",
                            locations: argument.location.map { [$0] } ?? []
                        )
                    )
                }
                return .continue
            },
            leave: { node, _, _, _, _ in
                switch node {
                case is GraphQL.Field: state.fields.removeLast()
                case is Argument: state.arguments.removeLast()
                case is ObjectField: state.objectFields.removeLast()
                default: break
                }
                return .continue
            }
        )
    }

    /// Whether a scalar literal is refused: an AWS scalar's value its type refuses, or an `Int`
    /// past 32 bits, which GraphQLSwift takes as a 64-bit number (one past 64 bits it refuses
    /// itself).
    private static func refuses(literal node: any Node, _ json: JSON, as scalar: Scalar) -> Bool {
        if scalar == .int, let value = node as? IntValue {
            return Int(value.value) != nil && Int32(value.value) == nil
        }
        return AWSScalarValidation.problem(with: json, as: scalar) != nil
    }

    private static func location(of node: any Node) -> SourceLocation? {
        node.loc.map { SourceLocation(line: $0.startToken.line, column: $0.startToken.column) }
    }

    /// A scalar literal as graphql-java prints it, and its JSON value.
    private static func literal(_ node: any Node) -> (String, JSON)? {
        switch node {
        case let value as StringValue: return ("StringValue{value='\(value.value)'}", .string(value.value))
        case let value as IntValue: return ("IntValue{value=\(value.value)}", Int(value.value).map(JSON.int) ?? .null)
        case let value as FloatValue:
            return ("FloatValue{value=\(value.value)}", Double(value.value).map(JSON.double) ?? .null)
        case let value as BooleanValue: return ("BooleanValue{value=\(value.value)}", .bool(value.value))
        case let value as EnumValue: return ("EnumValue{name='\(value.value)'}", .string(value.value))
        default: return nil
        }
    }
}
