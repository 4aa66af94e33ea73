import Foundation
import GRDB
import StratusServer

/// The local Cognito's records in `cognito.sqlite` of the data directory: one table of
/// `(kind, key, body)` rows, beside the API's database and out of its way.
package final class SQLiteCognitoStore: CognitoStore {
    /// The database file in the data directory.
    static let fileName = "cognito.sqlite"

    private let queue: DatabaseQueue

    /// Opens (or creates) `cognito.sqlite` in `directory`, which it holds with the signing key:
    /// the directory and its files are made private to their owner first
    /// (``PrivateDataDirectory``), and each mode it narrows is logged.
    ///
    /// - Throws: ``StorageError`` when the directory's modes cannot be narrowed, GRDB's
    ///   `DatabaseError` when the file cannot be opened or migrated.
    package init(
        directory: URL,
        log: (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
    ) throws {
        for warning in try PrivateDataDirectory.prepare(directory) { log(warning) }
        let path = directory.appending(path: Self.fileName).path(percentEncoded: false)
        let identity = try PrivateDataDirectory.createFile(atPath: path)
        var configuration = Configuration()
        // `stratus users` writes while `serve` runs: each waits for the other's transaction.
        configuration.busyMode = .timeout(5)
        queue = try DatabaseQueue(path: path, configuration: configuration)
        try PrivateDataDirectory.checkUnchanged(identity, atPath: path)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS cognito_records (
                        kind TEXT NOT NULL, key TEXT NOT NULL, body BLOB NOT NULL, PRIMARY KEY (kind, key))
                    """
            )
        }
    }

    package func read(kind: String, key: String) throws -> Data? {
        try queue.read { db in
            try Data.fetchOne(
                db,
                sql: "SELECT body FROM cognito_records WHERE kind = ? AND key = ?",
                arguments: [kind, key]
            )
        }
    }

    package func write(kind: String, key: String, body: Data) throws {
        try queue.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO cognito_records (kind, key, body) VALUES (?, ?, ?)",
                arguments: [kind, key, body]
            )
        }
    }

    package func delete(kind: String, key: String) throws {
        try queue.write { db in
            try db.execute(sql: "DELETE FROM cognito_records WHERE kind = ? AND key = ?", arguments: [kind, key])
        }
    }

    /// One server has a data directory open at a time: the body runs at once.
    package func exclusively<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await body()
    }

    package func all(kind: String) throws -> [Data] {
        try queue.read { db in
            try Data.fetchAll(
                db,
                sql: "SELECT body FROM cognito_records WHERE kind = ? ORDER BY key",
                arguments: [kind]
            )
        }
    }
}
