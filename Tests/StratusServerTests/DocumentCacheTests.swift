import Foundation
import StratusServer
import Testing

/// A document sent again is answered from its parsed form, with its own variables each time,
/// and an invalid one is refused each time.
@Suite struct DocumentCacheTests {
    @Test func aRepeatedDocumentUsesEachRequestsVariables() async throws {
        let server = try await TestServer(postSchema)
        let create =
            "mutation C($id: ID!) { createPost(input: {id: $id, title: \"T\", rating: 1, status: DRAFT}) { id } }"
        let before = server.server.documentCache.statistics
        #expect(await server.run(create, ["id": "p1"]) == #"{"data":{"createPost":{"id":"p1"}}}"#)
        #expect(await server.run(create, ["id": "p2"]) == #"{"data":{"createPost":{"id":"p2"}}}"#)
        let after = server.server.documentCache.statistics
        // The second request is answered from the parsed document of the first.
        #expect(after.misses - before.misses == 1)
        #expect(after.hits - before.hits == 1)
        let get = "query G($id: ID!) { getPost(id: $id) { id } }"
        #expect(await server.run(get, ["id": "p2"]) == #"{"data":{"getPost":{"id":"p2"}}}"#)
        #expect(await server.run(get, ["id": "p1"]) == #"{"data":{"getPost":{"id":"p1"}}}"#)
        #expect(await server.json(get)["errors"] != nil)
    }

    @Test func anInvalidDocumentIsRefusedEveryTime() async throws {
        let server = try await TestServer(postSchema)
        let query = #"{ getPost(id: "p1") { nope } }"#
        let before = server.server.documentCache.statistics
        let first = await server.run(query)
        #expect(first.contains("nope"))
        #expect(await server.run(query) == first)
        // An invalid document is never kept: both requests parsed and validated it.
        let after = server.server.documentCache.statistics
        #expect(after.hits == before.hits)
        #expect(after.misses - before.misses == 2)
    }
}
