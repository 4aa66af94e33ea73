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
            let server = try await TestServer(postSchema, directory: directory, clock: clock)
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

        let server = try await TestServer(postSchema, directory: directory, clock: clock)
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
        if !TestStore.isPostgres {
            #expect(FileManager.default.fileExists(atPath: directory.appending(path: "stratus.sqlite").path))
        }
    }

    @Test(.enabled(if: !TestStore.isPostgres, "a data directory's lock; servers share a PostgreSQL database"))
    func aSecondServerOnADirectoryInUseIsRefusedUntilTheFirstCloses() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try await TestServer(postSchema, directory: directory)
        _ = await first.run(#"mutation { createPost(input: {id: "p1", title: "T", rating: 1, status: DRAFT}) { id } }"#)
        let inUse =
            "The data directory '\(directory.path)' is in use by another server (process \(getpid())). "
            + "Stop that server, or use another data directory."
        let error = try await #require(throws: ServerError.self) {
            _ = try await TestServer(postSchema, directory: directory)
        }
        #expect(error.description == inUse)
        let deletion = try #require(throws: ServerError.self) { try StratusServer.deleteData(in: directory) }
        #expect(deletion.description == inUse)
        #expect(await first.run("{ listPosts { items { id } } }") == #"{"data":{"listPosts":{"items":[{"id":"p1"}]}}}"#)
        try first.server.close()
        let second = try await TestServer(postSchema, directory: directory)
        #expect(
            await second.run("{ listPosts { items { id } } }") == #"{"data":{"listPosts":{"items":[{"id":"p1"}]}}}"#
        )
        try second.server.close()
        try StratusServer.deleteData(in: directory)
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    @Test(.enabled(if: !TestStore.isPostgres, "a data directory's lock; servers share a PostgreSQL database"))
    func theLockFileOfAServerThatDiedDoesNotBlock() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let lockFile = directory.appending(path: "stratus.lock")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // What a server that crashed leaves: its process id, and no lock, which died with it.
        try Data("2147483646\n".utf8).write(to: lockFile)
        let server = try await TestServer(postSchema, directory: directory)
        #expect(try String(contentsOf: lockFile, encoding: .utf8) == "\(getpid())\n")
        #expect(await server.run("{ listPosts { items { id } } }") == #"{"data":{"listPosts":{"items":[]}}}"#)
    }

    @Test func aFieldAddedToTheSchemaGetsAColumn() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let server = try await TestServer(postSchema, directory: directory)
            _ = await server.run(
                #"mutation { createPost(input: {id: "p1", title: "T", rating: 1, status: DRAFT}) { id } }"#
            )
        }
        let extended = postSchema.replacingOccurrences(
            of: "status: PostStatus!",
            with: "status: PostStatus!\n  subtitle: String"
        )
        let server = try await TestServer(extended, directory: directory)
        #expect(
            await server.run(
                #"mutation { updatePost(input: {id: "p1", subtitle: "S", _version: 1}) { title subtitle } }"#
            )
                == #"{"data":{"updatePost":{"title":"T","subtitle":"S"}}}"#
        )
    }
}
