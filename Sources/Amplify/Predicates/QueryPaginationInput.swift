/// One page of query results: which page, and how many results a page holds.
///
/// ```swift
/// DataStore.query(Post.self, paginate: .page(2, limit: 20))   // results 40 to 59
/// DataStore.query(Post.self, paginate: .firstResult)          // at most one result
/// ```
public struct QueryPaginationInput: Sendable, Hashable {
    /// The page size when none is given: 100.
    public static let defaultLimit: UInt = 100

    /// The page number, from 0.
    public let page: UInt

    /// The number of results per page.
    public let limit: UInt

    /// Page `page` (from 0) of pages of `limit` results.
    public init(page: UInt, limit: UInt = QueryPaginationInput.defaultLimit) {
        self.page = page
        self.limit = limit
    }

    /// Page `page` (from 0) of pages of `limit` results.
    public static func page(_ page: UInt, limit: UInt = QueryPaginationInput.defaultLimit) -> QueryPaginationInput {
        QueryPaginationInput(page: page, limit: limit)
    }

    /// The first page of ``defaultLimit`` results.
    public static var firstPage: QueryPaginationInput { .page(0) }

    /// The first result alone: page 0 with a limit of 1.
    public static var firstResult: QueryPaginationInput { .page(0, limit: 1) }

    /// The number of results before this page: `page × limit`, the SQL `OFFSET`; `UInt.max`
    /// when the product does not fit.
    public var offset: UInt {
        let (product, overflow) = page.multipliedReportingOverflow(by: limit)
        return overflow ? .max : product
    }
}
