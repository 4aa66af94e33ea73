/// The comparison a ``QueryPredicateOperation`` applies to one field.
///
/// Values are held as ``JSONValue``, the form they take in a stored record and on the wire, so
/// operators are `Hashable` and a store can bind them directly. Build operators from Swift values
/// with the static functions that take a ``Persistable`` (an enum case is stored as its raw
/// value, a ``Temporal`` value as its ISO 8601 string), or from JSON with the cases themselves:
///
/// ```swift
/// QueryPredicateOperation(field: "status", operator: .equals(PostStatus.active))
/// QueryPredicateOperation(field: "rating", operator: .between(start: 1, end: 5))
/// ```
///
/// ``QueryPredicate/evaluate(target:schema:)`` documents what each operator means.
public enum QueryOperator: Sendable, Hashable {
    /// The field is not equal to the value; ``JSONValue/null`` asks for a field that is present.
    case notEqual(JSONValue)
    /// The field equals the value; ``JSONValue/null`` asks for a field that is missing or null.
    case equals(JSONValue)
    /// The field is less than or equal to the value.
    case lessOrEqual(JSONValue)
    /// The field is less than the value.
    case lessThan(JSONValue)
    /// The field is greater than or equal to the value.
    case greaterOrEqual(JSONValue)
    /// The field is greater than the value.
    case greaterThan(JSONValue)
    /// A string field holds the value as a substring, or a list field holds it as an element.
    case contains(JSONValue)
    /// The negation of ``contains(_:)-enum.case``; true for a missing field.
    case notContains(JSONValue)
    /// The field lies between `start` and `end`, both included.
    case between(start: JSONValue, end: JSONValue)
    /// A string field starts with the value.
    case beginsWith(String)
    /// The field is present and not null (`true`), or missing or null (`false`).
    case attributeExists(Bool)
}

extension QueryOperator {
    /// The field is not equal to `value`; `nil` asks for a field that is present.
    public static func notEqual(_ value: (some Persistable)?) -> QueryOperator {
        .notEqual(value?.persistableValue ?? .null)
    }

    /// The field equals `value`; `nil` asks for a field that is missing or null.
    public static func equals(_ value: (some Persistable)?) -> QueryOperator {
        .equals(value?.persistableValue ?? .null)
    }

    /// The field is less than or equal to `value`.
    public static func lessOrEqual(_ value: some Persistable) -> QueryOperator {
        .lessOrEqual(value.persistableValue)
    }

    /// The field is less than `value`.
    public static func lessThan(_ value: some Persistable) -> QueryOperator {
        .lessThan(value.persistableValue)
    }

    /// The field is greater than or equal to `value`.
    public static func greaterOrEqual(_ value: some Persistable) -> QueryOperator {
        .greaterOrEqual(value.persistableValue)
    }

    /// The field is greater than `value`.
    public static func greaterThan(_ value: some Persistable) -> QueryOperator {
        .greaterThan(value.persistableValue)
    }

    /// A string field holds `value` as a substring, or a list field holds it as an element.
    public static func contains(_ value: some Persistable) -> QueryOperator {
        .contains(value.persistableValue)
    }

    /// The negation of ``contains(_:)-swift.type.method``; true for a missing field.
    public static func notContains(_ value: some Persistable) -> QueryOperator {
        .notContains(value.persistableValue)
    }

    /// The field lies between `start` and `end`, both included.
    public static func between(start: some Persistable, end: some Persistable) -> QueryOperator {
        .between(start: start.persistableValue, end: end.persistableValue)
    }

    /// The operator's name in an AppSync filter: `eq`, `ne`, `le`, `lt`, `ge`, `gt`, `contains`,
    /// `notContains`, `between`, `beginsWith` or `attributeExists`.
    public var graphQLOperator: String {
        switch self {
        case .notEqual: return "ne"
        case .equals: return "eq"
        case .lessOrEqual: return "le"
        case .lessThan: return "lt"
        case .greaterOrEqual: return "ge"
        case .greaterThan: return "gt"
        case .contains: return "contains"
        case .notContains: return "notContains"
        case .between: return "between"
        case .beginsWith: return "beginsWith"
        case .attributeExists: return "attributeExists"
        }
    }

    /// The operand as it appears in an AppSync filter: `between` gives `[start, end]`.
    public var graphQLValue: JSONValue {
        switch self {
        case .notEqual(let value), .equals(let value), .lessOrEqual(let value), .lessThan(let value),
            .greaterOrEqual(let value), .greaterThan(let value), .contains(let value), .notContains(let value):
            return value
        case .between(let start, let end): return .array([start, end])
        case .beginsWith(let prefix): return .string(prefix)
        case .attributeExists(let exists): return .boolean(exists)
        }
    }
}
