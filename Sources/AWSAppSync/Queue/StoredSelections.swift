import AWSWire
import Amplify

/// The selections of a queued mutation's result, kept with it in `offlineMutations.db`, so
/// that the answer to a mutation replayed by a later run of the client (which cannot name the
/// generated type it was queued with) is written to the cache as a live mutation's is.
///
/// Conditions are resolved and field keys computed with the mutation's variables when it is
/// queued; a fragment spread becomes a type case over the fragment's possible types. Scalar
/// types are not kept: normalizing a response does not read them.
///
/// ```json
/// [{"field": "createTodo(input:[name:Milk])", "alias": "createTodo",
///   "type": {"object": [{"field": "id", "type": "scalar"}]}}]
/// ```
enum StoredSelections {
    /// `selections` with `variables` applied, as JSON text.
    static func text(of selections: [any GraphQLSelection], variables: GraphQLMap?) -> String {
        var writer = JSONTextWriter(sortsKeys: true, doubleStyle: .keepsFraction)
        JSONValue.array(encode(selections, variables: variables)).write(to: &writer)
        return writer.text
    }

    /// The selections stored as `text`: fields named by their cache keys, without arguments.
    ///
    /// - Throws: ``AWSAppSyncClientError`` (``AWSAppSyncClientError/Code/cache``) naming the
    ///   part that is not a stored selection.
    static func selections(from text: String) throws -> [any GraphQLSelection] {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: text)
        } catch {
            throw malformed("its text is not JSON (\(error))")
        }
        return try decode(value)
    }

    private static func encode(_ selections: [any GraphQLSelection], variables: GraphQLMap?) -> [JSONValue] {
        var encoded: [JSONValue] = []
        for selection in selections {
            switch selection {
            case let field as GraphQLField:
                let key = field.cacheKey(with: variables)
                var object: [String: JSONValue] = [
                    "field": .string(key), "type": encode(field.type, variables: variables),
                ]
                if field.responseKey != key { object["alias"] = .string(field.responseKey) }
                encoded.append(.object(object))
            case let condition as GraphQLBooleanCondition:
                if condition.isIncluded(with: variables) {
                    encoded += encode(condition.selections, variables: variables)
                }
            case let typeCase as GraphQLTypeCase:
                encoded.append(
                    .object([
                        "variants": .object(typeCase.variants.mapValues { .array(encode($0, variables: variables)) }),
                        "default": .array(encode(typeCase.default, variables: variables)),
                    ])
                )
            case let spread as GraphQLFragmentSpread:
                let fragment = encode(spread.fragment.selections, variables: variables)
                let possibleTypes = spread.fragment.possibleTypes
                if possibleTypes.isEmpty {
                    encoded += fragment
                } else {
                    let variants = Dictionary(
                        uniqueKeysWithValues: possibleTypes.map { ($0, JSONValue.array(fragment)) }
                    )
                    encoded.append(.object(["variants": .object(variants), "default": .array([])]))
                }
            default:
                preconditionFailure("Unknown selection \(type(of: selection)): use the selection types of AWSAppSync.")
            }
        }
        return encoded
    }

    private static func encode(_ type: GraphQLOutputType, variables: GraphQLMap?) -> JSONValue {
        switch type {
        case .scalar: return "scalar"
        case .nonNull(let wrapped): return encode(wrapped, variables: variables)
        case .list(let element): return ["list": encode(element, variables: variables)]
        case .object(let selections): return ["object": .array(encode(selections, variables: variables))]
        }
    }

    private static func decode(_ value: JSONValue) throws -> [any GraphQLSelection] {
        guard case .array(let entries) = value else { throw malformed("a list of selections is \(value)") }
        return try entries.map { entry -> any GraphQLSelection in
            guard case .object(let object) = entry else { throw malformed("a selection is \(entry)") }
            if let name = object["field"]?.stringValue, let type = object["type"] {
                return GraphQLField(name, alias: object["alias"]?.stringValue, type: try decodeType(type))
            }
            if case .object(let variants)? = object["variants"], let fallback = object["default"] {
                return GraphQLTypeCase(variants: try variants.mapValues(decode), default: try decode(fallback))
            }
            throw malformed("a selection is \(entry)")
        }
    }

    private static func decodeType(_ value: JSONValue) throws -> GraphQLOutputType {
        if value == "scalar" { return .scalar(JSONValue.self) }
        if let element = value.objectValue?["list"] { return .list(try decodeType(element)) }
        if let selections = value.objectValue?["object"] { return .object(try decode(selections)) }
        throw malformed("a field's type is \(value)")
    }

    private static func malformed(_ problem: String) -> AWSAppSyncClientError {
        AWSAppSyncClientError(
            .cache,
            "The stored selections of a queued mutation cannot be read: \(problem). "
                + "The mutation is still sent; clear the query cache if it misses its answer."
        )
    }
}
