import Foundation
import Logging
import PostgresNIO
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A PostgreSQL server for tests, with a fresh database for each test that asks.
///
/// The server is the one `STRATUS_TEST_POSTGRES_URL` names (`scripts/test-phases` starts one for
/// the whole run), or else a throwaway cluster that `scripts/postgres-throwaway` starts on first
/// use, once per test process, and stops when the process exits. Every database
/// ``makeDatabase()`` creates has a name of its own, so tests running in parallel never share one.
///
/// ```swift
/// let url = try await PostgresTestCluster.shared.makeDatabase()
/// // postgres://stratus@127.0.0.1:PORT/stratus_test_…
/// ```
public final class PostgresTestCluster: Sendable {
    /// The cluster every test of this process shares.
    public static let shared = PostgresTestCluster()

    /// The environment variable naming a running server (`postgres://user@host:port/db`) to use
    /// instead of starting one.
    public static let environmentVariable = "STRATUS_TEST_POSTGRES_URL"

    private let started = Mutex<Task<URLComponents, any Error>?>(nil)

    private init() {}

    /// The URL of the cluster's `postgres` database (or of the database
    /// `STRATUS_TEST_POSTGRES_URL` names), starting the cluster on first use.
    ///
    /// - Throws: ``PostgresUnavailable`` when the URL is malformed or no cluster can be started.
    public func serverURL() async throws -> String {
        try await server().string!
    }

    /// Creates a new, empty database on the cluster and returns its URL.
    ///
    /// - Throws: ``PostgresUnavailable`` when the cluster cannot be reached or refuses the
    ///   database.
    public func makeDatabase() async throws -> String {
        var url = try await server()
        let name = "stratus_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        var configuration = PostgresConnection.Configuration(
            host: url.host ?? "127.0.0.1",
            port: url.port ?? 5432,
            username: url.user ?? "stratus",
            password: url.password,
            database: Self.database(of: url),
            tls: .disable
        )
        // Tests create their databases together, and a loaded server may take longer than the
        // default 10 s to accept them all.
        configuration.options.connectTimeout = .seconds(60)
        let logger = Logger(label: "StratusTesting.PostgresTestCluster") { _ in SwiftLogNoOpLogHandler() }
        do {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
            do {
                try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \"\(name)\""), logger: logger)
            } catch {
                try? await connection.close()
                throw error
            }
            try await connection.close()
        } catch {
            throw PostgresUnavailable(
                message: "Could not create the database \(name) on \(url.string!): \(String(reflecting: error))"
            )
        }
        url.path = "/" + name
        return url.string!
    }

    /// The configuration of a `PostgresClient` for `url` (`postgres://user[:password]@host:port/db`),
    /// without TLS, as the throwaway cluster listens.
    ///
    /// - Throws: ``PostgresUnavailable`` when `url` is not such a URL.
    public static func clientConfiguration(for url: String) throws -> PostgresClient.Configuration {
        let components = try parse(url, from: "The database URL")
        return PostgresClient.Configuration(
            host: components.host ?? "127.0.0.1",
            port: components.port ?? 5432,
            username: components.user ?? "stratus",
            password: components.password,
            database: database(of: components),
            tls: .disable
        )
    }

    private func server() async throws -> URLComponents {
        let task = started.withLock { task in
            if let task { return task }
            let new = Task { try await Self.start() }
            task = new
            return new
        }
        return try await task.value
    }

    private static func database(of url: URLComponents) -> String {
        let path = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        return path.isEmpty ? "postgres" : path
    }

    private static func parse(_ text: String, from source: String) throws -> URLComponents {
        guard let url = URLComponents(string: text.trimmingCharacters(in: .whitespacesAndNewlines)),
            url.scheme == "postgres" || url.scheme == "postgresql", url.host != nil
        else {
            throw PostgresUnavailable(
                message:
                    "\(source) gave '\(text)', which is not a URL such as postgres://stratus@127.0.0.1:5432/postgres."
            )
        }
        return url
    }

    static let script = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "scripts/postgres-throwaway")

    private static func start() async throws -> URLComponents {
        if let given = ProcessInfo.processInfo.environment[environmentVariable], !given.isEmpty {
            return try parse(given, from: environmentVariable)
        }
        let directory = FileManager.default.temporaryDirectory.appending(path: "stratus-postgres-\(UUID().uuidString)")
        let path = directory.path(percentEncoded: false)
        let script = script.path(percentEncoded: false)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Stopped at exit; and should this process die without running its exit handlers, even
        // while the cluster starts, the watchdog, whose standard input ends with the process,
        // stops it (the script's `stop` waits for a `start` under way).
        _ = try await ChildProcess.start(
            ["bash", "-c", "cat >/dev/null; exec \"$0\" stop \"$1\"", script, path],
            tie: .standardInput
        )
        stoppedAtExit.withLock { $0 = path }
        atexit { PostgresTestCluster.stopAtExit() }
        let result = try await ChildProcess.run([script, "start", path])
        guard result.status == .exited(0) else {
            throw PostgresUnavailable(
                message: "\(script) start \(path) \(result.status):\n\(result.errorText)"
                    + "Install Debian's package 'postgresql', or set \(environmentVariable) to a running server."
            )
        }
        return try parse(result.outputText, from: "\(script) start")
    }

    /// The directory of the cluster this process started, for its exit handler.
    private static let stoppedAtExit = Mutex<String?>(nil)

    /// Stops the cluster as `pg_ctl stop -m fast` does (SIGINT to the server, then waiting for
    /// it), and removes its directory: at exit, where no child process can be awaited.
    private static func stopAtExit() {
        guard let directory = stoppedAtExit.withLock({ $0 }) else { return }
        let pidFile = URL(filePath: directory).appending(path: "data/postmaster.pid")
        if let text = try? String(contentsOf: pidFile, encoding: .utf8),
            let line = text.split(separator: "\n").first, let pid = pid_t(line.trimmingCharacters(in: .whitespaces))
        {
            _ = kill(pid, SIGINT)
            let deadline = ContinuousClock.now + .seconds(10)
            while kill(pid, 0) == 0, ContinuousClock.now < deadline { usleep(20_000) }
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// No PostgreSQL server could be started or reached for tests: the message says why and what
/// to install or set.
public struct PostgresUnavailable: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
