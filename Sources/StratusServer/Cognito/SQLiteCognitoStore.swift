import Foundation
import GRDB

/// The local Cognito's records in `cognito.sqlite` of the data directory: one table of
/// `(kind, key, body)` rows, beside the API's database and out of its way.
package final class SQLiteCognitoStore: CognitoStore {
    private let queue: DatabaseQueue

    /// Opens (or creates) `cognito.sqlite` in `directory`.
    ///
    /// - Throws: GRDB's `DatabaseError` when the file cannot be opened or migrated.
    package init(directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = Configuration()
        // `stratus users` writes while `serve` runs: each waits for the other's transaction.
        configuration.busyMode = .timeout(5)
        queue = try DatabaseQueue(
            path: directory.appending(path: "cognito.sqlite").path(percentEncoded: false),
            configuration: configuration
        )
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
