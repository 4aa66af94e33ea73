import Foundation
import StratusServer
import Testing

/// The data directory outlives the server: items, tombstones, the delta journal and the secret
/// that signs page tokens.
@Suite struct RestartTests {
    @Test func dataTombstonesAndSyncStateSurviveARestart() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = TestClock()
        var token = ""
        do {
            let server = try TestServer(postSchema, directory: directory, clock: clock)
            for number in 1...3 {
                _ = await server.run(
                    "mutation { createPost(input: {id: \"p\(number)\", title: \"T\(number)\", rating: \(number), "
                        + "status: DRAFT}) { id } }"
                )
            }
            clock.advance(milliseconds: 1000)
            _ = await server.run(#"mutation { updatePost(input: {id: "p1", title: "changed", _version: 1}) { id } }"#)
            _ = await server.run(#"mutation { deletePost(input: {id: "p2", _version: 1}) { id } }"#)
            let page = await server.json("{ listPosts(limit: 1) { items { id } nextToken } }")
            token = try #require(page["data"]?["listPosts"]?["nextToken"]?.stringValue)
            try server.server.close()
        }
        clock.advance(milliseconds: 1000)

        let server = try TestServer(postSchema, directory: directory, clock: clock)
        #expect(
            await server.run(#"{ getPost(id: "p1") { id title _version } }"#)
                == #"{"data":{"getPost":{"id":"p1","title":"changed","_version":2}}}"#
        )
        #expect(
            await server.run(#"{ getPost(id: "p2") { id _version _deleted } }"#)
                == #"{"data":{"getPost":{"id":"p2","_version":2,"_deleted":true}}}"#
        )
        #expect(
            await server.run(
                "{ syncPosts(lastSync: 1700000000500) { items { id _version _deleted } nextToken startedAt } }"
            )
                == #"{"data":{"syncPosts":{"items":[{"id":"p1","_version":2,"_deleted":null},"#
                + #"{"id":"p2","_version":2,"_deleted":true}],"nextToken":null,"startedAt":1700000002000}}}"#
        )
        #expect(
            await server.run("{ listPosts(limit: 1, nextToken: \"\(token)\") { items { id } } }")
                == #"{"data":{"listPosts":{"items":[{"id":"p2"}]}}}"#
        )
        #expect(
            await server.run(
                #"mutation { createPost(input: {id: "p4", title: "new", rating: 4, status: DRAFT}) { id } }"#
            )
                == #"{"data":{"createPost":{"id":"p4"}}}"#
        )
        #expect(FileManager.default.fileExists(atPath: directory.appending(path: "stratus.sqlite").path))
    }

    @Test func aFieldAddedToTheSchemaGetsAColumn() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let server = try TestServer(postSchema, directory: directory)
            _ = await server.run(
                #"mutation { createPost(input: {id: "p1", title: "T", rating: 1, status: DRAFT}) { id } }"#
            )
        }
        let extended = postSchema.replacingOccurrences(
            of: "status: PostStatus!",
            with: "status: PostStatus!\n  subtitle: String"
        )
        let server = try TestServer(extended, directory: directory)
        #expect(
            await server.run(
                #"mutation { updatePost(input: {id: "p1", subtitle: "S", _version: 1}) { title subtitle } }"#
            )
                == #"{"data":{"updatePost":{"title":"T","subtitle":"S"}}}"#
        )
    }
}
