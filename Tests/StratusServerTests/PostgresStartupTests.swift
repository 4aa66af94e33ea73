import Foundation
import StratusCodegen
import StratusTesting
import Synchronization
import Testing

@testable import StratusServer

/// A server opening on a PostgreSQL database that is starting or restarting waits for it, and
/// says so; one the wait cannot mend fails at once.
@Suite(.enabled(if: TestStore.isPostgres, "opening on PostgreSQL"))
struct PostgresStartupTests {
    /// What the server logged, for the waiting line.
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        func record(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// PostgreSQL, through a proxy, drops every connection as a database that restarts does;
    /// the server waits, says why, and opens once connections are accepted again.
    @Test(.timeLimit(.minutes(1)))
    func aServerWaitsForADatabaseThatDropsConnectionsAndOpensOnceItAccepts() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var location = try await PostgresTestDatabases.shared.database(for: directory)
        let proxy = try await FaultProxy.start(targetHost: location.host, targetPort: location.port)
        proxy.dropAfter(bytes: 0)
        location.host = "127.0.0.1"
        location.port = proxy.port
        location.startupWait = .seconds(40)
        let schema = try SchemaParser().parse(postSchema, fileName: "schema.graphql")
        let lines = Lines()
        let opening = Task {
            try await StratusServer(schema: schema, database: location, log: { lines.record($0) })
        }
        let deadline = ContinuousClock.now + .seconds(20)
        while lines.all.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let waiting = try #require(lines.all.first)
        #expect(waiting.hasPrefix("PostgreSQL at \(location) does not accept connections yet ("))
        #expect(waiting.hasSuffix("); trying again for up to 40.0 seconds (--database-wait sets how long)."))
        proxy.resume()
        let server = try await opening.value
        defer { try? server.close() }
        let created = await server.execute(
            query: #"mutation { createPost(input: {id: "p1", title: "t", rating: 1, status: DRAFT}) { id } }"#,
            variables: [:],
            identity: .apiKey
        )
        #expect(created.text == #"{"data":{"createPost":{"id":"p1"}}}"#)
        await proxy.stop()
    }

    /// A database that does not exist stays missing however long the server waits: it fails at
    /// once, with the error that names it, not after the wait.
    @Test func aMissingDatabaseFailsAtOnceWithoutWaiting() async throws {
        var location = try await PostgresTestDatabases.shared.database(for: temporaryDirectory())
        location.database = "stratus_missing_database"
        location.startupWait = .seconds(600)
        let schema = try SchemaParser().parse(postSchema, fileName: "schema.graphql")
        let lines = Lines()
        do {
            _ = try await StratusServer(schema: schema, database: location, log: { lines.record($0) })
            Issue.record("a server opened on a database that does not exist")
        } catch {
            #expect(
                error.description
                    == "The database failed: The PostgreSQL database \(location) cannot be opened (The database failed: "
                    + "PostgreSQL refused a statement: database \"stratus_missing_database\" does not exist "
                    + "(SQLSTATE 3D000)). Check that the server runs, that the URL's user, host, port and database are "
                    + "right, and that the user may create tables there."
            )
        }
        #expect(lines.all.isEmpty)
    }

    /// With no wait, a database that refuses connections fails the start at the first refusal.
    @Test func noWaitFailsAtTheFirstRefusal() async throws {
        var location = try PostgresLocation("postgres://stratus@127.0.0.1:\(try freeLoopbackPort())/app")
        location.startupWait = .zero
        let schema = try SchemaParser().parse(postSchema, fileName: "schema.graphql")
        do {
            _ = try await StratusServer(schema: schema, database: location, log: { _ in })
            Issue.record("a server opened on a port nothing listens on")
        } catch {
            #expect(
                error.description.hasPrefix(
                    "The database failed: The PostgreSQL database \(location) cannot be opened ("
                )
            )
            #expect(error.description.contains("Connection refused"))
        }
    }
}
