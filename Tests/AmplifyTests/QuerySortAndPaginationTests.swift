import Amplify
import Testing

private typealias Post = PredicateFixtures.Post

@Test func sortByOneKeyNamesItsField() {
    #expect(
        QuerySortInput.ascending(Post.keys.rating).inputs == [
            QuerySortDescriptor(fieldName: "rating", order: .ascending)
        ]
    )
    #expect(
        QuerySortInput.descending(Post.keys.title).inputs == [
            QuerySortDescriptor(fieldName: "title", order: .descending)
        ]
    )
}

@Test func sortBySeveralKeysKeepsTheirOrder() {
    let sort = QuerySortInput.by(.descending(Post.keys.rating), .ascending(Post.keys.title), .ascending(Post.keys.id))
    #expect(
        sort.inputs == [
            QuerySortDescriptor(fieldName: "rating", order: .descending),
            QuerySortDescriptor(fieldName: "title", order: .ascending),
            QuerySortDescriptor(fieldName: "id", order: .ascending),
        ]
    )
    #expect(sort != .by(.ascending(Post.keys.title), .descending(Post.keys.rating), .ascending(Post.keys.id)))
}

@Test func sortOrdersHaveTheirSQLSpelling() {
    #expect(QuerySortOrder.ascending.rawValue == "asc")
    #expect(QuerySortOrder.descending.rawValue == "desc")
}

@Test func pagesDefaultToOneHundredResults() {
    #expect(QueryPaginationInput.defaultLimit == 100)
    #expect(QueryPaginationInput.page(3) == QueryPaginationInput(page: 3, limit: 100))
    #expect(QueryPaginationInput.firstPage == QueryPaginationInput(page: 0, limit: 100))
    #expect(QueryPaginationInput.firstResult == QueryPaginationInput(page: 0, limit: 1))
}

@Test(arguments: [
    (QueryPaginationInput.page(0, limit: 20), UInt(0)),
    (.page(2, limit: 20), 40),
    (.page(5), 500),
    (.firstResult, 0),
    (.page(UInt.max, limit: 2), UInt.max),
])
func pageOffsetSkipsTheEarlierPages(page: QueryPaginationInput, offset: UInt) {
    #expect(page.offset == offset)
}
