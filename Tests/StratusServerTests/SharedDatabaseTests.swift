import Foundation
import Logging
import PostgresNIO
import StratusCodegen
import Synchronization
import Testing

@testable import StratusServer

/// Several servers on one PostgreSQL database, as instances behind a load balancer: every
/// server's subscriptions hear every server's writes once, in commit order, and concurrent
/// writers on one item never lose an update or reuse a version.
@Suite(.enabled(if: TestStore.isPostgres, "servers sharing a PostgreSQL database"))
struct SharedDatabaseTests {
    /// What one server's subscriptions heard: `id@version` per event, in delivery order.
    final class Heard: Sendable {
        private let events = Mutex<[String]>([])
        func append(_ event: String) { events.withLock { $0.append(event) } }
        var all: [String] { events.withLock { $0 } }
    }

    /// Listens to creates and updates of posts on `server`.
    static func listen(to server: StratusServer) -> Heard {
        let heard = Heard()
        let token = server.events.addListener { event in
            heard.append("\(event.item.item.values["id"]?.stringValue ?? "?")@\(event.item.item.version ?? 0)")
        }
        server.events.subscribe(token, to: .init(model: "Post", kind: .create))
        server.events.subscribe(token, to: .init(model: "Post", kind: .update))
        return heard
    }

    /// Three servers on the database of `directory`.
    static func servers(_ configuration: ServerConfiguration, directory: URL) async throws -> [TestServer] {
        var servers: [TestServer] = []
        for _ in 0..<3 {
            servers.append(try await TestServer(postSchema, configuration: configuration, directory: directory))
        }
        return servers
    }

    /// Waits until `condition` holds, for up to 20 seconds.
    static func eventually(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition(), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test func everyServerHearsEveryServersWritesOnceInCommitOrderPerItem() async throws {
        let directory = temporaryDirectory()
        let configuration = ServerConfiguration(conflictResolution: .automerge)
        let servers = try await Self.servers(configuration, directory: directory)
        let heard = servers.map { Self.listen(to: $0.server) }
        let items = 12
        let updates = 4
        try await withThrowingTaskGroup(of: Void.self) { group in
            for item in 0..<items {
                group.addTask {
                    // Each item's writes go to the servers in turn.
                    let create = await servers[item % 3].run(
                        #"mutation { createPost(input: {id: "p\#(item)", title: "t", rating: 0, status: DRAFT}) { id } }"#
                    )
                    #expect(create == #"{"data":{"createPost":{"id":"p\#(item)"}}}"#)
                    for update in 1...updates {
                        let answer = await servers[(item + update) % 3].run(
                            #"mutation { updatePost(input: {id: "p\#(item)", rating: \#(update), _version: \#(update)}) "#
                                + "{ id _version } }"
                        )
                        #expect(answer == #"{"data":{"updatePost":{"id":"p\#(item)","_version":\#(update + 1)}}}"#)
                    }
                }
            }
            try await group.waitForAll()
        }
        let expected = items * (updates + 1)
        try await Self.eventually { heard.allSatisfy { $0.all.count >= expected } }
        for events in heard {
            #expect(events.all.count == expected)
            #expect(Set(events.all).count == expected)
            for item in 0..<items {
                let versions = events.all.filter { $0.hasPrefix("p\(item)@") }
                #expect(versions == (1...(updates + 1)).map { "p\(item)@\($0)" })
            }
        }
        #expect(heard[0].all == heard[1].all && heard[1].all == heard[2].all)
    }

    @Test(arguments: [ConflictResolutionStrategy.automerge, .optimisticConcurrency])
    func concurrentWritersOnOneItemAcrossServersNeverReuseAVersion(
        _ strategy: ConflictResolutionStrategy
    ) async throws {
        let directory = temporaryDirectory()
        let configuration = ServerConfiguration(conflictResolution: strategy)
        let servers = try await Self.servers(configuration, directory: directory)
        let heard = Self.listen(to: servers[0].server)
        _ = await servers[0].run(
            #"mutation { createPost(input: {id: "p1", title: "t", rating: 0, status: DRAFT}) { id } }"#
        )
        let writers = 8
        let rounds = 5
        let applied = Heard()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    let server = servers[writer % 3]
                    for round in 0..<rounds {
                        // Each writer reads the version, then writes with it: under optimistic
                        // concurrency a writer that lost the race is refused and retries.
                        while true {
                            let current = await server.json(#"{ getPost(id: "p1") { _version } }"#)
                            let version = try #require(current["data"]?["getPost"]?["_version"]?.intValue)
                            let answer = await server.json(
                                #"mutation { updatePost(input: {id: "p1", title: "w\#(writer)r\#(round)", "#
                                    + #"_version: \#(version)}) { _version } }"#
                            )
                            if answer["data"]?["updatePost"]?["_version"]?.intValue != nil {
                                applied.append("w\(writer)r\(round)")
                                break
                            }
                            #expect(answer["errors"]?[0]?["errorType"] == "ConflictUnhandled")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let writes = applied.all.count
        // AUTOMERGE merges a stale write instead of refusing it: every write applies once.
        #expect(writes == writers * rounds)
        let final = await servers[1].json(#"{ getPost(id: "p1") { title _version } }"#)
        #expect(final["data"]?["getPost"]?["_version"] == .int(1 + writes))
        // Versions strictly increase by one, each heard once, in commit order.
        try await Self.eventually { heard.all.count >= 1 + writes }
        #expect(heard.all == (1...(1 + writes)).map { "p1@\($0)" })
        // The final item is the last write of a serial replay of the journal.
        let sync = await servers[2].json(#"{ syncPosts(lastSync: 0) { items { title _version } } }"#)
        let last = sync["data"]?["syncPosts"]?["items"]?.arrayValue?.max {
            ($0["_version"]?.intValue ?? 0) < ($1["_version"]?.intValue ?? 0)
        }
        #expect(last?["title"] == final["data"]?["getPost"]?["title"])
    }

    @Test func aServerThatLosesItsConnectionCatchesUpWithoutLossOrRepeat() async throws {
        let directory = temporaryDirectory()
        let configuration = ServerConfiguration(conflictResolution: .automerge)
        let servers = try await Self.servers(configuration, directory: directory)
        let heard = Self.listen(to: servers[0].server)
        _ = await servers[1].run(
            #"mutation { createPost(input: {id: "p1", title: "t", rating: 0, status: DRAFT}) { id } }"#
        )
        for update in 1...30 {
            if update == 10 || update == 20 {
                // The listening connections of every server drop, as when the network or
                // PostgreSQL restarts; writes go on meanwhile.
                let ended = try await PostgresTestDatabases.shared.strings(
                    """
                    SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity
                    WHERE datname = current_database() AND pid <> pg_backend_pid()
                      AND query LIKE 'LISTEN%'
                    """,
                    in: directory
                )
                #expect(ended.contains("true"))
            }
            let answer = await servers[1 + update % 2].run(
                #"mutation { updatePost(input: {id: "p1", rating: \#(update), _version: \#(update)}) { _version } }"#
            )
            #expect(answer == #"{"data":{"updatePost":{"_version":\#(update + 1)}}}"#)
        }
        try await Self.eventually { heard.all.count >= 31 }
        #expect(heard.all == (1...31).map { "p1@\($0)" })
    }

    /// PostgreSQL ends a connection that is idle in a transaction, between two of its statements
    /// (a restart, `pg_terminate_backend`): the next statement fails at once, and so does the
    /// transaction. PostgresNIO's own query never answered on such a connection, which held a
    /// write (and a server starting, in its migration) for good.
    @Test(.timeLimit(.minutes(1)))
    func aStatementAfterItsConnectionEndedFailsAtOnce() async throws {
        let directory = temporaryDirectory()
        let location = try await PostgresTestDatabases.shared.database(for: directory)
        let logger = Logger(label: "SharedDatabaseTests") { _ in SwiftLogNoOpLogHandler() }
        let client = PostgresClient(configuration: location.configuration(connections: 2), backgroundLogger: logger)
        let running = Task { await client.run() }
        defer { running.cancel() }
        do {
            try await client.answeredTransaction(logger: logger) { connection in
                let rows = try await connection.answeredRows("SELECT pg_backend_pid()", logger: logger)
                let pid = try rows[0].decode(Int32.self)
                let ended = try await PostgresTestDatabases.shared.strings(
                    "SELECT pg_terminate_backend(\(pid))::text",
                    in: directory
                )
                #expect(ended == ["true"])
                while !connection.isClosed { try await Task.sleep(for: .milliseconds(10)) }
                _ = try await connection.answeredRows("SELECT 1", logger: logger)
            }
            Issue.record("the transaction went on after its connection ended")
        } catch let failure as PostgresTransactionFailure {
            #expect(failure.step == .body)
            #expect(failure.error is PostgresConnectionClosed)
            #expect(failure.rollbackError is PostgresConnectionClosed)
        }
    }

    /// PostgreSQL ends a write's connection in the middle of its transaction (a restart,
    /// `pg_terminate_backend`): the write fails at once with an internal failure, which a client
    /// sends again, rather than waiting forever, and the next write is applied.
    @Test(.timeLimit(.minutes(1)))
    func aWriteWhoseConnectionEndsMidTransactionFailsAtOnce() async throws {
        let directory = temporaryDirectory()
        let server = try await TestServer(postSchema, directory: directory)
        for sql in [
            "CREATE FUNCTION \"end_connection\"() RETURNS trigger LANGUAGE plpgsql AS "
                + "$$ BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); RETURN NEW; END $$",
            "CREATE TRIGGER \"end_connection\" BEFORE INSERT ON \"Post\" FOR EACH ROW EXECUTE FUNCTION \"end_connection\"()",
        ] {
            _ = try await PostgresTestDatabases.shared.strings(sql, in: directory)
        }
        let create = #"mutation { createPost(input: {id: "p1", title: "t", rating: 0, status: DRAFT}) { id } }"#
        let failed = await server.run(create)
        #expect(
            failed
                == #"{"data":{"createPost":null},"errors":[{"path":["createPost"],"data":null,"#
                + #""errorType":"InternalFailure","errorInfo":null,"locations":[{"line":1,"column":12,"#
                + #""sourceName":null}],"message":"An internal failure occurred while resolving this field. "#
                + #"The server log has the details."}]}"#
        )
        _ = try await PostgresTestDatabases.shared.strings("DROP TRIGGER \"end_connection\" ON \"Post\"", in: directory)
        #expect(await server.run(create) == #"{"data":{"createPost":{"id":"p1"}}}"#)
    }

    /// A mutation sent again with its `Idempotency-Key` while the first run was under way on
    /// another server found no key, and ran: once the first run wrote, the repeat's write is
    /// refused (an internal failure, which clients send again) rather than applied a second time.
    @Test func aRepeatOnAnotherServerDoesNotWriteAgainOnceTheFirstRunWrote() async throws {
        let directory = temporaryDirectory()
        let servers = try await Self.servers(ServerConfiguration(conflictResolution: .automerge), directory: directory)
        _ = await servers[0].run(
            #"mutation { createPost(input: {id: "p1", title: "t", rating: 0, status: DRAFT}) { id } }"#
        )
        let update = #"mutation { updatePost(input: {id: "p1", rating: 7, _version: 1}) { rating _version } }"#
        func run(on server: TestServer, as claim: IdempotencyClaim) async -> JSON {
            await server.server.execute(
                query: update,
                variables: [:],
                operationName: nil,
                identity: .apiKey,
                direct: true,
                idempotency: claim
            ).response.body
        }
        let first = IdempotencyClaim(
            scope: Identity.apiKey.idempotencyScope,
            key: "repeat-17",
            digest: "d",
            expiresAt: Int(Date().timeIntervalSince1970 * 1000) + 60_000
        )
        var repeated = first
        repeated.run = UUID().uuidString
        #expect(await run(on: servers[0], as: first)["data"] == ["updatePost": ["rating": 7, "_version": 2]])
        let again = await run(on: servers[1], as: repeated)
        #expect(again["data"] == ["updatePost": nil])
        #expect(again["errors"]?[0]?["errorType"] == "InternalFailure")
        #expect(
            await servers[2].run(#"{ getPost(id: "p1") { rating _version } }"#)
                == #"{"data":{"getPost":{"rating":7,"_version":2}}}"#
        )
        // A later write of the first run itself (a mutation that writes twice) is not refused.
        #expect(await run(on: servers[0], as: first)["data"]?["updatePost"]?["_version"] == 3)
    }

    /// A write's transaction held open takes no lock another item's write waits for: the other
    /// write commits at once. Its event is delivered only once the held transaction ended, after
    /// the held one's, so that no reader passes an event that is not committed yet.
    @Test func aTransactionHeldOpenHoldsBackNoOtherItemsWrite() async throws {
        let directory = temporaryDirectory()
        let servers = try await Self.servers(ServerConfiguration(conflictResolution: .automerge), directory: directory)
        let heard = servers.map { Self.listen(to: $0.server) }
        let location = try await PostgresTestDatabases.shared.database(for: directory)
        let held = try await PostgresConnection.connect(
            configuration: try location.connectionConfiguration(),
            id: 1,
            logger: Logger(label: "held")
        )
        // The transaction a write of `p1` makes, held open after its event is appended.
        let item = StoredItem(
            values: ["id": "p1", "title": "held", "rating": 0, "status": "DRAFT"],
            version: 1,
            deleted: nil,
            lastChangedAt: 1
        )
        _ = try await held.query("BEGIN", logger: Logger(label: "held"))
        _ = try await held.query(
            """
            INSERT INTO "_stratus_events" ("model", "kind", "item", "selected", "createdAt")
            VALUES ('Post', 'create', \(DeltaJournal.text(of: item)), NULL, 1)
            """,
            logger: Logger(label: "held")
        )
        let start = ContinuousClock.now
        let created = await servers[1].run(
            #"mutation { createPost(input: {id: "p2", title: "t", rating: 0, status: DRAFT}) { id } }"#
        )
        #expect(created == #"{"data":{"createPost":{"id":"p2"}}}"#)
        #expect(ContinuousClock.now - start < .seconds(2))
        // Past a poll and a notification: nothing is delivered while the older transaction runs.
        try await Task.sleep(for: .milliseconds(1500))
        #expect(heard.allSatisfy { $0.all.isEmpty })
        _ = try await held.query("COMMIT", logger: Logger(label: "held"))
        try await held.close()
        try await Self.eventually { heard.allSatisfy { $0.all.count >= 2 } }
        for server in heard { #expect(server.all == ["p1@1", "p2@1"]) }
    }

    /// A hand-written mutation's result reaches the hand-written subscriptions of every server,
    /// as the writes of generated mutations do, in commit order with them.
    @Test func handWrittenSubscriptionsOfEveryServerHearEveryServersMutations() async throws {
        let directory = temporaryDirectory()
        let configuration = HandWrittenSubscriptionTests.configuration
        let writer = try await TestServer(
            HandWrittenSubscriptionTests.todoSchema,
            configuration: configuration,
            directory: directory
        )
        let listener = try await TestServer(
            HandWrittenSubscriptionTests.todoSchema,
            configuration: configuration,
            directory: directory
        )
        let http = StratusHTTPServer(
            server: listener.server,
            authorization: RealtimeTests.authorization,
            log: { _ in }
        )
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task { try await http.run(port: 0) { continuation.yield($0) } }
        defer { task.cancel() }
        var iterator = ports.makeAsyncIterator()
        let endpoint = RealtimeTests.Endpoint(server: listener.server, port: try #require(await iterator.next()))
        let socket = try await endpoint.connect()
        socket.send(RealtimeTests.start("1", #"subscription { onPublish(channel: "news") { channel text } }"#).text)
        #expect(try await socket.next() == #"{"id":"1","type":"start_ack"}"#)
        socket.send(RealtimeTests.start("2", "subscription { onAnyTodo { id name } }").text)
        #expect(try await socket.next() == #"{"id":"2","type":"start_ack"}"#)
        #expect(
            await writer.run(#"mutation { publish(channel: "news", text: "hi") { channel text } }"#)
                == #"{"data":{"publish":{"channel":"news","text":"hi"}}}"#
        )
        #expect(
            await writer.run(#"mutation { createTodo(input: {id: "t1", name: "milk"}) { id name } }"#)
                == #"{"data":{"createTodo":{"id":"t1","name":"milk"}}}"#
        )
        _ = await writer.run(#"mutation { publish(channel: "sports", text: "no") { channel } }"#)
        #expect(
            await listener.run(#"mutation { publish(channel: "news", text: "here") { channel } }"#)
                == #"{"data":{"publish":{"channel":"news"}}}"#
        )
        for expected in [
            #"{"id":"1","type":"data","payload":{"data":{"onPublish":{"channel":"news","text":"hi"}}}}"#,
            #"{"id":"2","type":"data","payload":{"data":{"onAnyTodo":{"id":"t1","name":"milk"}}}}"#,
            #"{"id":"1","type":"data","payload":{"data":{"onPublish":{"channel":"news","text":null}}}}"#,
        ] {
            #expect(try await socket.next() == expected)
        }
        await socket.close()
        task.cancel()
        _ = await task.result
    }
}
