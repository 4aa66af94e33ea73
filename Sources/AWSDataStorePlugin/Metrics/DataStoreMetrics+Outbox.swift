import Amplify
import Foundation
import GRDB
import SQLiteExactText

extension StorageEngine {
    /// Reports the outbox's depth and the age of its oldest change once the current write
    /// transaction commits, as the transaction leaves them; nothing without metrics.
    ///
    /// Called by each transaction that adds to the outbox or settles its events (a local change,
    /// an outbox round, a clear), and once as the store opens, so that the gauges are right after
    /// a restart. Commit callbacks run in commit order: a later state is never overwritten by an
    /// earlier one. A failure to read the outbox does not fail the transaction; it is logged,
    /// and the gauges keep their values.
    func reportOutbox(_ db: Database) {
        guard let metrics else { return }
        let reading: (depth: Int, oldest: Date?)
        do {
            reading = try Self.outboxReading(db)
        } catch {
            log(.init(level: .warning, message: "DataStore could not read its outbox for its metrics: \(error)"))
            return
        }
        db.afterNextTransaction { _ in metrics.outbox(depth: reading.depth, oldest: reading.oldest) }
    }

    /// Reports the outbox as the store holds it now, outside a transaction: as the store opens.
    func reportOutbox() {
        guard let metrics else { return }
        do {
            let reading = try pool.read { db in try Self.outboxReading(db) }
            metrics.outbox(depth: reading.depth, oldest: reading.oldest)
        } catch {
            log(.init(level: .warning, message: "DataStore could not read its outbox for its metrics: \(error)"))
        }
    }

    /// The number of outbox events and when the oldest was made: one statement, which reads the
    /// count and the first row by `sequence` (a merged event keeps its first change's time).
    ///
    /// - Throws: the database's error; ``DataStoreError`` naming the event when its `createdAt`
    ///   is not an `AWSDateTime`.
    private static func outboxReading(_ db: Database) throws -> (depth: Int, oldest: Date?) {
        let rows = try db.cachedStatement(
            sql: """
                SELECT COUNT(*), (SELECT "createdAt" FROM "\(Outbox.table)" ORDER BY "sequence" LIMIT 1),
                  (SELECT "id" FROM "\(Outbox.table)" ORDER BY "sequence" LIMIT 1)
                FROM "\(Outbox.table)"
                """
        )
        .fetchExactRows([])
        guard let row = rows.first else { return (0, nil) }
        let depth = Int.fromDatabaseValue(row[0]) ?? 0
        guard let text = String.fromDatabaseValue(row[1]) else { return (depth, nil) }
        do {
            return (depth, try Temporal.DateTime(iso8601String: text).foundationDate)
        } catch {
            throw DataStoreError(
                .invalidDatabase,
                "The outbox event '\(String.fromDatabaseValue(row[2]) ?? "")' has a createdAt '\(text)' that is "
                    + "not an AWSDateTime: \(error). The table \(Outbox.table) was changed outside DataStore."
            )
        }
    }
}
