import Foundation
import StratusServer
import Testing

/// `sync*` queries: base scans, the delta journal, `startedAt`, and the TTLs.
@Suite struct SyncTests {
    static let syncQuery = """
        query S($lastSync: AWSTimestamp, $limit: Int, $nextToken: String, $filter: ModelPostFilterInput) {
          syncPosts(lastSync: $lastSync, limit: $limit, nextToken: $nextToken, filter: $filter) {
            items { id title _version _deleted _lastChangedAt } nextToken startedAt
          }
        }
        """

    /// p1 and p2 created at 1,700,000,000,000; p1 updated 1 s later, p2 deleted 2 s later.
    static func history() async throws -> TestServer {
        let server = try await TestServer(postSchema)
        _ = await server.run(
            #"mutation { createPost(input: {id: "p1", title: "A", rating: 1, status: DRAFT}) { id } }"#
        )
        _ = await server.run(
            #"mutation { createPost(input: {id: "p2", title: "B", rating: 2, status: DRAFT}) { id } }"#
        )
        server.clock.advance(milliseconds: 1000)
        _ = await server.run(#"mutation { updatePost(input: {id: "p1", title: "A2", _version: 1}) { id } }"#)
        server.clock.advance(milliseconds: 1000)
        _ = await server.run(#"mutation { deletePost(input: {id: "p2", _version: 1}) { id } }"#)
        server.clock.advance(milliseconds: 1000)
        return server
    }

    @Test func withoutLastSyncABaseScanReturnsEveryItemAndTombstone() async throws {
        let server = try await Self.history()
        #expect(
            await server.run(Self.syncQuery)
                == #"{"data":{"syncPosts":{"items":["#
                + #"{"id":"p1","title":"A2","_version":2,"_deleted":null,"_lastChangedAt":1700000001000},"#
                + #"{"id":"p2","title":"B","_version":2,"_deleted":true,"_lastChangedAt":1700000002000}],"#
                + #""nextToken":null,"startedAt":1700000003000}}}"#
        )
    }

    @Test func withARecentLastSyncTheJournalReturnsTheChangesSinceThen() async throws {
        let server = try await Self.history()
        #expect(
            await server.run(Self.syncQuery, ["lastSync": 1_700_000_000_500])
                == #"{"data":{"syncPosts":{"items":["#
                + #"{"id":"p1","title":"A2","_version":2,"_deleted":null,"_lastChangedAt":1700000001000},"#
                + #"{"id":"p2","title":"B","_version":2,"_deleted":true,"_lastChangedAt":1700000002000}],"#
                + #""nextToken":null,"startedAt":1700000003000}}}"#
        )
        #expect(
            await server.run(Self.syncQuery, ["lastSync": 1_700_000_001_500])
                == #"{"data":{"syncPosts":{"items":["#
                + #"{"id":"p2","title":"B","_version":2,"_deleted":true,"_lastChangedAt":1700000002000}],"#
                + #""nextToken":null,"startedAt":1700000003000}}}"#
        )
    }

    @Test func theJournalMayReturnSeveralVersionsOfAnItem() async throws {
        let server = try await Self.history()
        #expect(
            await server.run(Self.syncQuery, ["lastSync": 1_700_000_000_000, "filter": ["id": ["eq": "p1"]]])
                == #"{"data":{"syncPosts":{"items":["#
                + #"{"id":"p1","title":"A","_version":1,"_deleted":null,"_lastChangedAt":1700000000000},"#
                + #"{"id":"p1","title":"A2","_version":2,"_deleted":null,"_lastChangedAt":1700000001000}],"#
                + #""nextToken":null,"startedAt":1700000003000}}}"#
        )
    }

    @Test func aLastSyncOlderThanTheJournalTTLGetsABaseScan() async throws {
        let server = try await Self.history()
        #expect(ServerConfiguration().deltaSyncTTL == .seconds(30 * 60))
        server.clock.advance(milliseconds: 30 * 60 * 1000)
        let body = await server.json(Self.syncQuery, ["lastSync": 1_700_000_001_500])
        let items = try #require(body["data"]?["syncPosts"]?["items"]?.arrayValue)
        #expect(items.map { $0["id"] } == ["p1", "p2"], "a base scan returns p1 too: \(body.text)")
        #expect(body["data"]?["syncPosts"]?["startedAt"] == .int(1_700_000_003_000 + 30 * 60 * 1000))
    }

    @Test(arguments: [false, true])
    func startedAtIsTheSameOnEveryPage(journal: Bool) async throws {
        let server = try await Self.history()
        var variables: JSONObject = ["limit": 1]
        if journal { variables["lastSync"] = 1_700_000_000_000 }
        var startedAts: [JSON] = []
        var count = 0
        repeat {
            let body = await server.json(Self.syncQuery, variables)
            let connection = try #require(body["data"]?["syncPosts"], "\(body.text)")
            startedAts.append(connection["startedAt"] ?? nil)
            count += connection["items"]?.arrayValue?.count ?? 0
            variables["nextToken"] = connection["nextToken"]
            server.clock.advance(milliseconds: 250)
        } while variables["nextToken"]?.isNull == false
        #expect(count == (journal ? 4 : 2))
        #expect(Set(startedAts) == [.int(1_700_000_003_000)], "\(startedAts)")
    }

    @Test func syncLimitIsCappedAtTheMaximum() async throws {
        let server = try await TestServer(postSchema, configuration: ServerConfiguration(maximumPageSize: 2))
        for number in 1...3 {
            _ = await server.run(
                "mutation { createPost(input: {id: \"p\(number)\", title: \"T\", rating: 1, status: DRAFT}) { id } }"
            )
        }
        let body = await server.json(Self.syncQuery, ["limit": 1000])
        #expect(body["data"]?["syncPosts"]?["items"]?.arrayValue?.count == 2)
    }

    @Test func tombstonesExpireAfterTheirTTL() async throws {
        let server = try await Self.history()
        #expect(ServerConfiguration().tombstoneTTL == .seconds(30 * 24 * 3600))
        server.clock.advance(milliseconds: 30 * 24 * 3600 * 1000 - 1001)
        #expect(await server.run(#"{ getPost(id: "p2") { _deleted } }"#) == #"{"data":{"getPost":{"_deleted":true}}}"#)
        server.clock.advance(milliseconds: 1)
        #expect(await server.run(#"{ getPost(id: "p2") { _deleted } }"#) == #"{"data":{"getPost":null}}"#)
        #expect(
            await server.run("{ syncPosts { items { id } } }")
                == #"{"data":{"syncPosts":{"items":[{"id":"p1"}]}}}"#
        )
        #expect(
            await server.run(
                #"mutation { createPost(input: {id: "p2", title: "again", rating: 1, status: DRAFT}) { _version } }"#
            )
                == #"{"data":{"createPost":{"_version":1}}}"#
        )
    }
}
