/// The direction of a sort.
public enum QuerySortOrder: String, Sendable, Hashable, CaseIterable {
    /// Smallest first.
    case ascending = "asc"
    /// Largest first.
    case descending = "desc"
}

/// One field to sort query results by, and the direction.
///
/// ```swift
/// QuerySortDescriptor(fieldName: Post.keys.rating.stringValue, order: .descending)
/// QuerySortDescriptor.descending(Post.keys.rating)   // the same
/// ```
public struct QuerySortDescriptor: Sendable, Hashable {
    /// The field's name, as in the schema and the JSON.
    public let fieldName: String
    /// The direction.
    public let order: QuerySortOrder

    /// Sorts by the field named `fieldName` in `order`.
    public init(fieldName: String, order: QuerySortOrder) {
        self.fieldName = fieldName
        self.order = order
    }

    /// Sorts by `field`, smallest first.
    public static func ascending(_ field: some CodingKey) -> QuerySortDescriptor {
        QuerySortDescriptor(fieldName: field.stringValue, order: .ascending)
    }

    /// Sorts by `field`, largest first.
    public static func descending(_ field: some CodingKey) -> QuerySortDescriptor {
        QuerySortDescriptor(fieldName: field.stringValue, order: .descending)
    }
}

/// One entry of ``QuerySortInput/by(_:)``: `.ascending(key)` or `.descending(key)`.
public typealias QuerySortBy = QuerySortDescriptor
