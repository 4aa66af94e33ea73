import Foundation
import StratusCodegen
import StratusServer
import Synchronization
import Testing

/// A clock tests set and advance by hand.
final class TestClock: Sendable {
    private let instant: Mutex<Date>

    /// Starts at 2023-11-14T22:13:20.000Z (1,700,000,000,000 ms).
    init(milliseconds: Int = 1_700_000_000_000) {
        instant = Mutex(Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    var now: Date { instant.withLock { $0 } }

    func advance(milliseconds: Int) {
        instant.withLock { $0 += Double(milliseconds) / 1000 }
    }
}

/// The messages a server logged.
final class LogRecorder: Sendable {
    private let storage = Mutex<[String]>([])

    func record(_ message: String) {
        storage.withLock { $0.append(message) }
    }

    var messages: [String] { storage.withLock { $0 } }
}

/// A server on a temporary data directory, removed when the test ends; or, when
/// `STRATUS_TEST_STORE` is `postgres`, on a database of its own in the PostgreSQL cluster of
/// `STRATUS_TEST_POSTGRES_URL` (the same `directory` given again names the same database).
final class TestServer: Sendable {
    let server: StratusServer
    let clock: TestClock
    let directory: URL
    let log = LogRecorder()
    private let removesDirectory: Bool

    init(
        _ source: String,
        configuration: ServerConfiguration = ServerConfiguration(),
        directory: URL? = nil,
        clock: TestClock = TestClock()
    ) async throws {
        let schema = try SchemaParser().parse(source, fileName: "schema.graphql")
        removesDirectory = directory == nil
        self.directory = directory ?? temporaryDirectory()
        self.clock = clock
        server = try await TestStore.server(
            schema: schema,
            configuration: configuration,
            directory: self.directory,
            clock: { clock.now },
            log: { [log] in log.record($0) }
        )
    }

    /// Runs a request and returns the response body as text.
    func run(_ query: String, _ variables: JSONObject = [:], identity: Identity = .apiKey) async -> String {
        await server.execute(query: query, variables: variables, identity: identity).text
    }

    /// Runs a request and returns the response body.
    func json(_ query: String, _ variables: JSONObject = [:]) async -> JSON {
        await server.execute(query: query, variables: variables, identity: .apiKey).body
    }

    deinit {
        try? server.close()
        if removesDirectory {
            try? FileManager.default.removeItem(at: directory)
        }
    }
}

/// A new directory path under the temporary directory.
func temporaryDirectory() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("stratus-tests-\(UUID().uuidString)")
}

/// The store the server tests run on: the data directory's SQLite database, or, when
/// `STRATUS_TEST_STORE` is `postgres`, a PostgreSQL database per directory.
enum TestStore {
    /// `true` when the tests run on PostgreSQL.
    static let isPostgres = ProcessInfo.processInfo.environment["STRATUS_TEST_STORE"] == "postgres"

    /// A server on `directory`'s store.
    static func server(
        schema: AnnotatedSchema,
        configuration: ServerConfiguration = ServerConfiguration(),
        directory: URL,
        clock: @escaping @Sendable () -> Date = { Date() },
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws -> StratusServer {
        guard isPostgres else {
            return try StratusServer(
                schema: schema,
                configuration: configuration,
                dataDirectory: directory,
                clock: clock,
                log: log
            )
        }
        return try await StratusServer(
            schema: schema,
            configuration: configuration,
            database: try await PostgresTestDatabases.shared.database(for: directory),
            clock: clock,
            log: log
        )
    }
}

/// Serves `server` with `authorization` over a real socket on a free port, runs `body` with its
/// `/graphql` URL, then stops the listener and closes the server, also when `body` throws.
func withHTTPEndpoint(
    _ server: StratusServer,
    authorization: ServerAuthorization,
    _ body: (URL) async throws -> Void
) async throws {
    let http = StratusHTTPServer(server: server, authorization: authorization, log: { _ in })
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let task = Task { try await http.run(port: 0) { continuation.yield($0) } }
    var iterator = ports.makeAsyncIterator()
    do {
        let port = try #require(await iterator.next())
        try await body(URL(string: "http://127.0.0.1:\(port)/graphql")!)
    } catch {
        task.cancel()
        _ = await task.result
        try? server.close()
        throw error
    }
    task.cancel()
    _ = await task.result
    try server.close()
}
