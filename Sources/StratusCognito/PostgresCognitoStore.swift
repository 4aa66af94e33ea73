import Foundation
import Logging
import PostgresNIO
import StratusServer

/// The local Cognito's records in a PostgreSQL database: one table, `_stratus_cognito`, of
/// `(kind, key, body)` rows, as ``SQLiteCognitoStore`` keeps them in the data directory.
///
/// The store queries through `client` and leaves its lifetime to the caller, who runs it
/// (`client.run()` in a task) for as long as the store is used:
///
/// ```swift
/// let client = PostgresClient(configuration: configuration)
/// async let running: Void = client.run()
/// let store = PostgresCognitoStore(client: client)
/// try await store.migrate()
/// let pool = try await CognitoUserPool(configuration: CognitoConfiguration(), store: store)
/// ```
package final class PostgresCognitoStore: CognitoStore {
    private let client: PostgresClient
    private let logger: Logger
    /// The client's connections, when the store made the client itself (``open(_:)``).
    private let runTask: Task<Void, Never>?

    /// A store over `client`'s database; ``migrate()`` creates its table.
    package init(client: PostgresClient, logger: Logger = Logger(label: "StratusServer.PostgresCognitoStore")) {
        self.client = client
        self.logger = logger
        runTask = nil
    }

    private init(location: PostgresLocation) {
        var logger = Logger(label: "StratusServer.PostgresCognitoStore")
        logger.logLevel = .critical
        let client = PostgresClient(configuration: location.configuration(connections: 2), backgroundLogger: logger)
        self.client = client
        self.logger = logger
        runTask = Task { await client.run() }
    }

    /// A store of its own connected to `location`, migrated; its connections close when it is
    /// released. For tools that manage the pool's users without a server (`stratus users`).
    ///
    /// - Throws: ``PostgresCognitoStoreError`` when the database cannot be reached or migrated.
    package static func open(_ location: PostgresLocation) async throws -> PostgresCognitoStore {
        let store = PostgresCognitoStore(location: location)
        try await store.migrate()
        return store
    }

    deinit {
        runTask?.cancel()
    }

    /// Creates the table `_stratus_cognito` unless the database has it.
    ///
    /// Instances that start together migrate one after the other, under a transaction-scoped
    /// advisory lock: two `CREATE TABLE IF NOT EXISTS` at once may both find no table, and the
    /// second then fails on PostgreSQL's catalog.
    ///
    /// - Throws: ``PostgresCognitoStoreError`` with the server's reason when it refuses.
    package func migrate() async throws {
        let logger = logger
        try await failing("created") {
            try await client.answeredTransaction(logger: logger) { connection in
                _ = try await connection.answeredRows(
                    "SELECT pg_advisory_xact_lock(\(Self.migrationLock))",
                    logger: logger
                )
                _ = try await connection.answeredRows(
                    """
                    CREATE TABLE IF NOT EXISTS _stratus_cognito (
                        kind text NOT NULL, key text NOT NULL, body bytea NOT NULL, PRIMARY KEY (kind, key))
                    """,
                    logger: logger
                )
            }
        }
    }

    /// Holds a session-level advisory lock on one connection of the pool while `body` runs on
    /// others, so that servers sharing the database run their bodies one at a time.
    package func exclusively<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        let logger = logger
        return try await client.withConnection { connection in
            _ = try await connection.answeredRows("SELECT pg_advisory_lock(\(Self.setupLock))", logger: logger)
            do {
                let result = try await body()
                _ = try await connection.answeredRows("SELECT pg_advisory_unlock(\(Self.setupLock))", logger: logger)
                return result
            } catch {
                // The body's failure is the one to report; the lock also ends with the connection's session.
                _ = try? await connection.answeredRows("SELECT pg_advisory_unlock(\(Self.setupLock))", logger: logger)
                throw error
            }
        }
    }

    /// The advisory lock key of ``exclusively(_:)``.
    static let setupLock: Int64 = 0x7374_7261_7475_732F

    /// The advisory lock key of ``migrate()``: "stratus.cognito" in ASCII, truncated to 64 bits.
    static let migrationLock: Int64 = 0x7374_7261_7475_732E

    package func read(kind: String, key: String) async throws -> Data? {
        try await failing("read (kind '\(kind)', key '\(key)')") {
            let rows = try await client.answeredRows(
                "SELECT body FROM _stratus_cognito WHERE kind = \(kind) AND key = \(key)",
                logger: logger
            )
            return try rows.first?.decode(Data.self)
        }
    }

    package func write(kind: String, key: String, body: Data) async throws {
        try await failing("written (kind '\(kind)', key '\(key)')") {
            _ = try await client.answeredRows(
                """
                INSERT INTO _stratus_cognito (kind, key, body) VALUES (\(kind), \(key), \(body))
                ON CONFLICT (kind, key) DO UPDATE SET body = EXCLUDED.body
                """,
                logger: logger
            )
        }
    }

    package func delete(kind: String, key: String) async throws {
        try await failing("deleted (kind '\(kind)', key '\(key)')") {
            _ = try await client.answeredRows(
                "DELETE FROM _stratus_cognito WHERE kind = \(kind) AND key = \(key)",
                logger: logger
            )
        }
    }

    package func all(kind: String) async throws -> [Data] {
        try await failing("listed (kind '\(kind)')") {
            // Keys in byte order, as SQLite orders them, whatever the database's collation.
            let rows = try await client.answeredRows(
                "SELECT body FROM _stratus_cognito WHERE kind = \(kind) ORDER BY key COLLATE \"C\"",
                logger: logger
            )
            return try rows.map { try $0.decode(Data.self) }
        }
    }

    /// The value of `body`, or its error translated into a ``PostgresCognitoStoreError`` saying
    /// what could not be `done`.
    @discardableResult
    private func failing<T>(_ done: String, _ body: () async throws -> T) async throws(PostgresCognitoStoreError) -> T {
        do {
            return try await body()
        } catch {
            throw PostgresCognitoStoreError(done, error)
        }
    }
}

/// The local Cognito's records could not be read or written in PostgreSQL: what was tried, the
/// server's reason, and the fix when there is a known one.
package struct PostgresCognitoStoreError: Error, CustomStringConvertible {
    /// What went wrong, as a sentence.
    package var description: String

    init(_ done: String, _ error: any Error) {
        let what = "The local Cognito's records in PostgreSQL cannot be \(done)"
        // A failed transaction names its step; the step's own error says why.
        let error = (error as? PostgresTransactionFailure)?.error ?? error
        guard let error = error as? PSQLError else {
            description = "\(what): \(error)"
            return
        }
        // PSQLError describes itself generically; the server's message and SQLSTATE say why.
        guard let reason = error.serverReason else {
            description =
                "\(what): \(String(reflecting: error)). Check that the database server is running and reachable."
            return
        }
        description = "\(what): \(reason)."
        if error.serverInfo?[.sqlState] == "42P01" {
            description += " Run PostgresCognitoStore.migrate() first: it creates the table."
        }
    }
}
