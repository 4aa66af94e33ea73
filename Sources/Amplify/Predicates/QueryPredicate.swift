/// A condition on the fields of a model: what `DataStore.query(_:where:)` filters by and what a
/// conditional save or delete checks.
///
/// Three types conform: ``QueryPredicateOperation`` (one field and one ``QueryOperator``),
/// ``QueryPredicateGroup`` (`and`, `or`, `not` over other predicates) and
/// ``QueryPredicateConstant/all``. Build them from a model's keys with Swift operators or with
/// the equivalent methods:
///
/// ```swift
/// let p = Post.keys
/// let byOperators = p.rating > 4 || p.status == "active"
/// let byMethods = p.rating.gt(4).or(p.status.eq("active"))
/// byOperators.isEqual(byMethods)   // true
/// ```
///
/// A predicate runs in memory with ``evaluate(target:schema:)`` and translates to an AppSync
/// filter with ``graphQLFilter(for:)``.
public protocol QueryPredicate: Sendable, CustomStringConvertible {
    /// Whether the record `target`, a JSON object keyed by field name, satisfies the predicate.
    ///
    /// The semantics follow DynamoDB, so a predicate selects the same records in memory, in a
    /// local store and in AppSync:
    ///
    /// - Numbers compare numerically, an ``JSONValue/integer(_:)`` exactly against a
    ///   ``JSONValue/number(_:)``. `Int`, `Double` and `AWSTimestamp` fields are numbers.
    /// - Strings compare by their UTF-8 bytes, like SQLite's `BINARY` collation and DynamoDB:
    ///   `"Z" < "a"`, and `"é"` written as one scalar differs from `"e"` and a combining accent.
    ///   Enum fields compare by their raw value strings.
    /// - `AWSDate`, `AWSDateTime` and `AWSTime` fields compare by the instant both sides name
    ///   when both parse (a date by the start of its day, a time as on one day), so the same
    ///   instant written two ways is equal; they compare as strings when either side does not
    ///   parse. `beginsWith` and `contains` test the text.
    /// - Booleans support only `eq` and `ne`.
    /// - `contains` and `notContains` test a substring on a string field and an element on a list
    ///   field; `beginsWith` tests a string prefix; `between` includes both ends.
    /// - A field that is missing or null: `eq nil` is true and `ne nil` is false; `ne v` is true
    ///   (a SQL store writes `(column <> ? OR column IS NULL)`); `eq v`, the ordering operators,
    ///   `between`, `beginsWith` and `contains` are false; `notContains` is true, as DynamoDB's
    ///   `NOT contains`; `attributeExists(true)` is true exactly when the field is present and
    ///   not null.
    /// - A record value of another type than its field (a string in an `Int` field) equals
    ///   nothing and orders against nothing.
    /// - A belongsTo or hasOne field (``ModelFieldType/model(name:)``) compares by its
    ///   foreign-key value: the target-name fields of the record when present, else the nested
    ///   object's primary key (`id` unless the associated model is registered with another).
    ///   A composite key compares as its values joined with `#`, like ``Model/identifier``.
    ///   The target-name fields can also be named directly.
    /// - An `and` group is true when every member is (an empty one is true), an `or` group when
    ///   one member is (an empty one is false), and a `not` group negates the `and` of its
    ///   members. ``QueryPredicateConstant/all`` is true. Every member is evaluated, so an
    ///   invalid predicate fails on every record, not only on some.
    ///
    /// - Throws: ``QueryPredicateError`` when the predicate names a field `schema` does not have,
    ///   filters a hasMany field, applies an operator the field's type does not support (`gt` on
    ///   a `Bool`), or compares a field with a value of another type (`rating == "4"`).
    func evaluate(target: JSONValue, schema: ModelSchema) throws -> Bool

    /// The predicate as an AppSync filter or condition input, or `nil` when it selects every
    /// record.
    ///
    /// With `schema`, a belongsTo or hasOne field is written as its foreign-key field, the way
    /// AppSync's filter input names it. ``QueryPredicate/graphQLFilter(for:)`` documents the
    /// format.
    func graphQLFilter(for schema: ModelSchema?) -> JSONValue?

    /// Whether `other` is the same predicate: same type, fields, operators, values and members
    /// in the same order.
    func isEqual(_ other: any QueryPredicate) -> Bool
}

extension QueryPredicate where Self: Equatable {
    public func isEqual(_ other: any QueryPredicate) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}

extension QueryPredicate {
    /// Whether `target` satisfies the predicate, using the schema of its model type.
    ///
    /// Encodes `target` with ``Model/jsonValue()`` and calls ``evaluate(target:schema:)``, which
    /// documents the semantics.
    ///
    /// ```swift
    /// let p = Post.keys
    /// try (p.rating > 4).evaluate(target: post)
    /// ```
    ///
    /// - Throws: ``QueryPredicateError`` as ``evaluate(target:schema:)`` does, or
    ///   `EncodingError` when `target` cannot be encoded.
    public func evaluate<M: Model>(target: M) throws -> Bool {
        try evaluate(target: target.jsonValue(), schema: M.schema)
    }

    /// The predicate as an AppSync filter without a schema: fields keep the names they were
    /// given.
    public var graphQLFilter: JSONValue? {
        graphQLFilter(for: nil)
    }

    /// A group that holds when this predicate and `predicate` both hold.
    ///
    /// `and` groups are flattened: `a.and(b).and(c)` is one group of three members.
    public func and(_ predicate: any QueryPredicate) -> QueryPredicateGroup {
        QueryPredicateGroup.joining(self, predicate, as: .and)
    }

    /// A group that holds when this predicate or `predicate` holds.
    ///
    /// `or` groups are flattened: `a.or(b).or(c)` is one group of three members.
    public func or(_ predicate: any QueryPredicate) -> QueryPredicateGroup {
        QueryPredicateGroup.joining(self, predicate, as: .or)
    }

    /// The same as ``and(_:)``: `p.rating > 4 && p.status == "active"`.
    public static func && (lhs: Self, rhs: any QueryPredicate) -> QueryPredicateGroup {
        lhs.and(rhs)
    }

    /// The same as ``or(_:)``: `p.rating > 4 || p.status == "active"`.
    public static func || (lhs: Self, rhs: any QueryPredicate) -> QueryPredicateGroup {
        lhs.or(rhs)
    }

    /// The same as ``not(_:)``: `!(p.rating > 4)`.
    public static prefix func ! (predicate: Self) -> QueryPredicateGroup {
        not(predicate)
    }
}

/// A group that holds when `predicate` does not.
///
/// ```swift
/// let p = Post.keys
/// not(p.status == "draft")
/// ```
public func not(_ predicate: any QueryPredicate) -> QueryPredicateGroup {
    QueryPredicateGroup(type: .not, predicates: [predicate])
}
