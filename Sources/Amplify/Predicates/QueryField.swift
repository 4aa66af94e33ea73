/// A field named by a string, for building predicates where no ``ModelKey`` is at hand.
///
/// ```swift
/// field("rating") > 4
/// field("status").eq("active")
/// ```
///
/// - Parameter name: the field's name, as in the schema and the JSON.
public func field(_ name: String) -> QueryField {
    QueryField(name: name)
}

/// A field by name, with the methods and operators that build a ``QueryPredicateOperation``.
///
/// ``ModelKey`` offers the same methods and operators; ``field(_:)`` builds a `QueryField`.
public struct QueryField: Sendable, Hashable {
    /// The field's name, as in the schema and the JSON.
    public let name: String

    /// The field named `name`.
    public init(name: String) {
        self.name = name
    }

    private func operation(_ queryOperator: QueryOperator) -> QueryPredicateOperation {
        QueryPredicateOperation(field: name, operator: queryOperator)
    }

    /// The field starts with `value`.
    public func beginsWith(_ value: String) -> QueryPredicateOperation {
        operation(.beginsWith(value))
    }

    /// The field lies between `start` and `end`, both included.
    public func between(start: any Persistable, end: any Persistable) -> QueryPredicateOperation {
        operation(.between(start: start.persistableValue, end: end.persistableValue))
    }

    /// A string field holds `value` as a substring, or a list field holds it as an element.
    public func contains(_ value: any Persistable) -> QueryPredicateOperation {
        operation(.contains(value.persistableValue))
    }

    /// A string field does not hold `value` as a substring, or a list field does not hold it as
    /// an element; true when the field is missing.
    public func notContains(_ value: any Persistable) -> QueryPredicateOperation {
        operation(.notContains(value.persistableValue))
    }

    /// The field equals `value`; `nil` asks for a field that is missing or null.
    public func eq(_ value: (any Persistable)?) -> QueryPredicateOperation {
        operation(.equals(value?.persistableValue ?? .null))
    }

    /// The field does not equal `value`; `nil` asks for a field that is present and not null.
    public func ne(_ value: (any Persistable)?) -> QueryPredicateOperation {
        operation(.notEqual(value?.persistableValue ?? .null))
    }

    /// The field is greater than or equal to `value`.
    public func ge(_ value: any Persistable) -> QueryPredicateOperation {
        operation(.greaterOrEqual(value.persistableValue))
    }

    /// The field is greater than `value`.
    public func gt(_ value: any Persistable) -> QueryPredicateOperation {
        operation(.greaterThan(value.persistableValue))
    }

    /// The field is less than or equal to `value`.
    public func le(_ value: any Persistable) -> QueryPredicateOperation {
        operation(.lessOrEqual(value.persistableValue))
    }

    /// The field is less than `value`.
    public func lt(_ value: any Persistable) -> QueryPredicateOperation {
        operation(.lessThan(value.persistableValue))
    }

    /// The field is present and not null (`true`), or missing or null (`false`).
    public func attributeExists(_ exists: Bool) -> QueryPredicateOperation {
        operation(.attributeExists(exists))
    }

    /// The same as ``contains(_:)``.
    public static func ~= (field: QueryField, value: any Persistable) -> QueryPredicateOperation {
        field.contains(value)
    }

    /// The same as ``eq(_:)``; `field("status") == nil` asks for a missing or null field.
    public static func == (field: QueryField, value: (any Persistable)?) -> QueryPredicateOperation {
        field.eq(value)
    }

    /// The same as ``ne(_:)``.
    public static func != (field: QueryField, value: (any Persistable)?) -> QueryPredicateOperation {
        field.ne(value)
    }

    /// The same as ``ge(_:)``.
    public static func >= (field: QueryField, value: any Persistable) -> QueryPredicateOperation {
        field.ge(value)
    }

    /// The same as ``gt(_:)``.
    public static func > (field: QueryField, value: any Persistable) -> QueryPredicateOperation {
        field.gt(value)
    }

    /// The same as ``le(_:)``.
    public static func <= (field: QueryField, value: any Persistable) -> QueryPredicateOperation {
        field.le(value)
    }

    /// The same as ``lt(_:)``.
    public static func < (field: QueryField, value: any Persistable) -> QueryPredicateOperation {
        field.lt(value)
    }
}
