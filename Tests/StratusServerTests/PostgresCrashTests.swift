import Foundation
import Logging
import PostgresNIO
import StratusCodegen
import StratusTesting
import Testing

@testable import StratusServer

/// A server on PostgreSQL that crashes and restarts (`pg_ctl stop -m immediate`), on a
/// throwaway cluster of its own so that the crash reaches no other test.
@Suite(.enabled(if: TestStore.isPostgres, "a PostgreSQL cluster to crash"))
struct PostgresCrashTests {
    static let throwaway = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "scripts/postgres-throwaway")

    /// Runs `sql` on `url`'s database, each statement in turn on one connection, and returns the
    /// first column of the last one's rows as text.
    static func run(_ statements: [String], on url: String) async throws -> [String] {
        let connection = try await PostgresConnection.connect(
            configuration: PostgresConnection.Configuration(
                host: "127.0.0.1",
                port: URLComponents(string: url)?.port ?? 5432,
                username: "stratus",
                password: nil,
                database: "postgres",
                tls: .disable
            ),
            id: 1,
            logger: Logger(label: "crash-test")
        )
        var last: [String] = []
        do {
            for sql in statements {
                let rows = try await connection.query(
                    PostgresQuery(unsafeSQL: sql),
                    logger: Logger(label: "crash-test")
                ).collect()
                last = try rows.map { try $0.decode(String.self) }
            }
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
        return last
    }

    /// After a crash, PostgreSQL hands out again the transaction ids of transactions that ended
    /// without their end reaching the disk (here two rolled back). A server whose reader had
    /// read a horizon above them skipped the events of another server's writes that got those
    /// ids after the restart: its subscriptions never heard them.
    @Test(.timeLimit(.minutes(2))) func writesGivenTheIdsOfLostTransactionsAfterACrashAreHeard() async throws {
        let directory = temporaryDirectory()
        let cluster = directory.appending(path: "postgres")
        let started = try await ChildProcess.run([Self.throwaway.path, "start", cluster.path])
        try #require(started.status == .exited(0), "\(started.errorText)")
        let url = started.outputText.trimmingCharacters(in: .whitespacesAndNewlines)
        do {
            try await Self.configure(url: url)
            try await Self.withProxy(url: url, cluster: cluster)
        } catch {
            _ = try? await ChildProcess.run([Self.throwaway.path, "stop", cluster.path])
            throw error
        }
        _ = try await ChildProcess.run([Self.throwaway.path, "stop", cluster.path])
        try? FileManager.default.removeItem(at: directory)
    }

    /// Keeps the log unwritten between commits: commits reach the disk, and nothing else flushes
    /// the log meanwhile (no autovacuum, the log writer's longest delay), so the ids of
    /// transactions that roll back stay unwritten.
    private static func configure(url: String) async throws {
        _ = try await run(
            [
                "ALTER SYSTEM SET synchronous_commit = on", "ALTER SYSTEM SET wal_writer_delay = '10s'",
                "ALTER SYSTEM SET autovacuum = off", "SELECT pg_reload_conf()::text",
                "CREATE TABLE probe (x int)",
            ],
            on: url
        )
    }

    /// Runs ``crashAndWrite(url:proxy:cluster:)`` with a proxy in front of the cluster.
    private static func withProxy(url: String, cluster: URL) async throws {
        let port = try #require(URLComponents(string: url)?.port)
        let proxy = try await FaultProxy.start(targetPort: port)
        do {
            try await Self.crashAndWrite(url: url, proxy: proxy, cluster: cluster)
        } catch {
            await proxy.stop()
            throw error
        }
        await proxy.stop()
    }

    /// One server writes; the other hears it through the events, and reaches PostgreSQL through
    /// `proxy`, which holds its reads back while the first writes after the crash.
    private static func crashAndWrite(url: String, proxy: FaultProxy, cluster: URL) async throws {
        var servers: [StratusServer] = []
        var proxied = try #require(URLComponents(string: url))
        proxied.port = proxy.port
        for database in [url, try #require(proxied.string)] {
            servers.append(
                try await StratusServer(
                    schema: try SchemaParser().parse(postSchema, fileName: "schema.graphql"),
                    configuration: ServerConfiguration(conflictResolution: .automerge),
                    database: try PostgresLocation(database)
                )
            )
        }
        defer { for server in servers { try? server.close() } }
        let (server, listener) = (servers[0], servers[1])
        let heard = SharedDatabaseTests.listen(to: listener)
        let created = await server.execute(
            query: #"mutation { createPost(input: {id: "p1", title: "t", rating: 0, status: DRAFT}) { id } }"#,
            variables: [:],
            identity: .apiKey
        )
        #expect(created.text == #"{"data":{"createPost":{"id":"p1"}}}"#)
        try await SharedDatabaseTests.eventually { heard.all == ["p1@1"] }

        for _ in 0..<2 {
            _ = try await run(["BEGIN", "INSERT INTO probe VALUES (1)", "ROLLBACK"], on: url)
        }
        let horizon = try #require(
            Int(try await run(["SELECT pg_snapshot_xmin(pg_current_snapshot())::text"], on: url)[0])
        )
        // The reader reads the events once a second: by now its horizon passed the lost ids.
        try await Task.sleep(for: .seconds(3))

        proxy.blackHole()
        let restarted = try await ChildProcess.run([throwaway.path, "restart", cluster.path, "immediate"])
        try #require(restarted.status == .exited(0), "\(restarted.errorText)")

        // The store's connections ended with PostgreSQL: the update is tried until one answers.
        var answer = ""
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            answer = await server.execute(
                query: #"mutation { updatePost(input: {id: "p1", rating: 1, _version: 1}) { _version } }"#,
                variables: [:],
                identity: .apiKey
            ).text
            if answer == #"{"data":{"updatePost":{"_version":2}}}"# { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(answer == #"{"data":{"updatePost":{"_version":2}}}"#)
        let updateXid = try #require(
            Int(try await run([#"SELECT max("xid")::text FROM "_stratus_events""#], on: url)[0])
        )
        // The case this test is about: the update got an id below the horizon read before the crash.
        try #require(updateXid < horizon, "PostgreSQL gave the update \(updateXid), not an id below \(horizon)")
        // The listening server reads again: the update is committed, and the new horizon above it.
        proxy.resume()
        try await SharedDatabaseTests.eventually { heard.all.count >= 2 }
        #expect(heard.all == ["p1@1", "p1@2"])
    }
}
