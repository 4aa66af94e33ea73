/// A condition on an item's fields, as filters (`Model<T>FilterInput`) and conditions
/// (`Model<T>ConditionInput`) express it, independent of the storage engine that evaluates it.
///
/// Field names are those of the model; `_deleted`, `_version` and `_lastChangedAt` name the sync
/// metadata.
indirect enum ItemPredicate: Sendable, Hashable {
    /// Every predicate holds (`and`, and the fields of one filter object); `all([])` is true.
    case all([ItemPredicate])
    /// At least one holds (`or`); `any([])` is false.
    case any([ItemPredicate])
    /// The predicate does not hold (`not`).
    case not(ItemPredicate)
    /// A condition on one field.
    case field(String, FieldCondition)

    /// The predicate that always holds.
    static let always = ItemPredicate.all([])
}

/// One operator of a `Model<Scalar>Input`.
enum FieldCondition: Sendable, Hashable {
    enum Comparison: String, Sendable, Hashable, CaseIterable {
        case eq, ne, le, lt, ge, gt
    }

    /// `eq`, `ne`, `le`, `lt`, `ge`, `gt`; `eq: null` holds for absent values, `ne` for every
    /// value but the one given, absent ones included.
    case compare(Comparison, JSON)
    /// `between: [low, high]`, bounds included.
    case between(JSON, JSON)
    /// `beginsWith`: a string prefix.
    case beginsWith(String)
    /// `contains`: a substring of a string, or an element of a list.
    case contains(JSON)
    /// `notContains`: the negation of `contains`; holds for absent values.
    case notContains(JSON)
    /// `attributeExists`.
    case exists(Bool)
    /// `attributeType`, with a `ModelAttributeTypes` value.
    case attributeType(String)
    /// `size` with one comparison: the length in bytes of a string, the count of a list.
    case size(Comparison, Int)
    /// `size: {between: [low, high]}`.
    case sizeBetween(Int, Int)
    /// `in` of subscription filters: equal to one of the values.
    case isIn([JSON])
    /// `notIn` of subscription filters.
    case notIn([JSON])
}
