import Foundation
import GRDB

/// The subscription metadata database (`subscriptionMetadataCache.db`): when each sync
/// operation last caught up with the server.
final class SubscriptionMetadataStore: Sendable {
    private let database: DatabaseQueue

    /// The metadata in the file at `url`, created if needed, or in memory when `url` is `nil`.
    ///
    /// - Throws: ``AWSAppSyncClientError`` (``AWSAppSyncClientError/Code/cache``) when the file
    ///   cannot be opened.
    init(databaseURL url: URL?) throws {
        do {
            database = try ClientDatabase.open(url)
            try database.write { db in
                try db.execute(
                    sql:
                        "CREATE TABLE IF NOT EXISTS sync_operations (operation TEXT NOT NULL PRIMARY KEY, lastSync REAL NOT NULL)"
                )
            }
        } catch {
            throw AWSAppSyncClientError(
                .cache,
                "Cannot open the subscription metadata at '\(url?.path ?? ":memory:")': \(sentence: error) "
                    + "Pass another file in the cache configuration, or delete this one."
            )
        }
    }

    /// When `operation` last synced, `nil` when it never did.
    func lastSync(of operation: String) throws -> Date? {
        try database.read { db in
            try Double.fetchOne(
                db,
                sql: "SELECT lastSync FROM sync_operations WHERE operation = ?",
                arguments: [operation]
            )
            .map(Date.init(timeIntervalSince1970:))
        }
    }

    /// Records when `operation` last synced.
    func setLastSync(_ date: Date, of operation: String) throws {
        try database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO sync_operations (operation, lastSync) VALUES (?, ?)
                    ON CONFLICT (operation) DO UPDATE SET lastSync = excluded.lastSync
                    """,
                arguments: [operation, date.timeIntervalSince1970]
            )
        }
    }

    /// Forgets every sync operation: the next sync of each runs its base query.
    func clear() throws {
        try database.write { db in try db.execute(sql: "DELETE FROM sync_operations") }
    }
}
