/// The order of query results: fields to sort by, the first deciding and each next one breaking
/// ties.
///
/// ```swift
/// let p = Post.keys
/// DataStore.query(Post.self, sort: .descending(p.rating))
/// DataStore.query(Post.self, sort: .by(.descending(p.rating), .ascending(p.title)))
/// ```
public struct QuerySortInput: Sendable, Hashable {
    /// The sort fields, most significant first.
    public let inputs: [QuerySortDescriptor]

    /// Sorts by `inputs`, most significant first.
    public init(_ inputs: [QuerySortDescriptor]) {
        self.inputs = inputs
    }

    /// Sorts by several fields, most significant first.
    public static func by(_ inputs: QuerySortDescriptor...) -> QuerySortInput {
        QuerySortInput(inputs)
    }

    /// Sorts by `field`, smallest first.
    public static func ascending(_ field: some CodingKey) -> QuerySortInput {
        QuerySortInput([.ascending(field)])
    }

    /// Sorts by `field`, largest first.
    public static func descending(_ field: some CodingKey) -> QuerySortInput {
        QuerySortInput([.descending(field)])
    }
}
