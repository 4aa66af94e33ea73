/// Predicate building on a model's coding keys, the way generated code exposes them as
/// `Post.keys`.
///
/// Every method and operator builds a ``QueryPredicateOperation`` on the key's field, the same
/// one ``field(_:)`` with the key's name builds:
///
/// ```swift
/// let p = Post.keys
/// DataStore.query(Post.self, where: p.title.contains("[Amplify]") && p.status != nil)
/// DataStore.query(Post.self, where: p.title.contains("[Amplify]").and(p.status.ne(nil)))
/// ```
extension ModelKey {
    /// The key's field as a ``QueryField``.
    public var queryField: QueryField { QueryField(name: stringValue) }

    /// The field starts with `value`.
    public func beginsWith(_ value: String) -> QueryPredicateOperation {
        queryField.beginsWith(value)
    }

    /// The field lies between `start` and `end`, both included.
    public func between(start: any Persistable, end: any Persistable) -> QueryPredicateOperation {
        queryField.between(start: start, end: end)
    }

    /// A string field holds `value` as a substring, or a list field holds it as an element.
    public func contains(_ value: any Persistable) -> QueryPredicateOperation {
        queryField.contains(value)
    }

    /// A string field does not hold `value` as a substring, or a list field does not hold it as
    /// an element; true when the field is missing.
    public func notContains(_ value: any Persistable) -> QueryPredicateOperation {
        queryField.notContains(value)
    }

    /// The field equals `value`; `nil` asks for a field that is missing or null.
    public func eq(_ value: (any Persistable)?) -> QueryPredicateOperation {
        queryField.eq(value)
    }

    /// The field does not equal `value`; `nil` asks for a field that is present and not null.
    public func ne(_ value: (any Persistable)?) -> QueryPredicateOperation {
        queryField.ne(value)
    }

    /// The field is greater than or equal to `value`.
    public func ge(_ value: any Persistable) -> QueryPredicateOperation {
        queryField.ge(value)
    }

    /// The field is greater than `value`.
    public func gt(_ value: any Persistable) -> QueryPredicateOperation {
        queryField.gt(value)
    }

    /// The field is less than or equal to `value`.
    public func le(_ value: any Persistable) -> QueryPredicateOperation {
        queryField.le(value)
    }

    /// The field is less than `value`.
    public func lt(_ value: any Persistable) -> QueryPredicateOperation {
        queryField.lt(value)
    }

    /// The field is present and not null (`true`), or missing or null (`false`).
    public func attributeExists(_ exists: Bool) -> QueryPredicateOperation {
        queryField.attributeExists(exists)
    }

    /// The same as ``contains(_:)``: `p.title ~= "[Amplify]"`.
    public static func ~= (key: Self, value: any Persistable) -> QueryPredicateOperation {
        key.contains(value)
    }

    /// The same as ``eq(_:)``; `p.status == nil` asks for a missing or null field.
    public static func == (key: Self, value: (any Persistable)?) -> QueryPredicateOperation {
        key.eq(value)
    }

    /// The same as ``ne(_:)``; `p.status != nil` asks for a present field.
    public static func != (key: Self, value: (any Persistable)?) -> QueryPredicateOperation {
        key.ne(value)
    }

    /// The same as ``ge(_:)``.
    public static func >= (key: Self, value: any Persistable) -> QueryPredicateOperation {
        key.ge(value)
    }

    /// The same as ``gt(_:)``.
    public static func > (key: Self, value: any Persistable) -> QueryPredicateOperation {
        key.gt(value)
    }

    /// The same as ``le(_:)``.
    public static func <= (key: Self, value: any Persistable) -> QueryPredicateOperation {
        key.le(value)
    }

    /// The same as ``lt(_:)``.
    public static func < (key: Self, value: any Persistable) -> QueryPredicateOperation {
        key.lt(value)
    }
}
