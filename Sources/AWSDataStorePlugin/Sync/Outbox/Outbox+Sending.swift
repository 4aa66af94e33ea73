import Amplify
import GRDB
import SQLiteExactText

extension Outbox {
    /// The oldest event of each record, oldest first, at most `limit` of them, skipping the
    /// records `excluding` names: the events that may be sent now.
    ///
    /// An event of a transaction waits besides for the transaction's earlier events, whatever
    /// their records: a transaction's changes reach the backend one after another, in its order.
    /// With `wholeTransactions`, a transaction's first event waits until every event of the
    /// transaction is the oldest of its record but for the transaction's own: the transaction is
    /// then sent whole (``transactionSiblings(of:_:)``).
    static func sendable(
        limit: Int,
        excluding: Set<RecordKey>,
        wholeTransactions: Bool = false,
        _ db: Database
    ) throws -> [MutationEvent] {
        var events: [MutationEvent] = []
        let whole =
            wholeTransactions
            ? """
            AND (o."transactionId" IS NULL OR NOT EXISTS (
              SELECT 1 FROM "\(table)" AS t JOIN "\(table)" AS p
              ON p."modelName" = t."modelName" AND p."modelId" = t."modelId" AND p."sequence" < t."sequence"
              WHERE t."transactionId" = o."transactionId" AND p."transactionId" IS NOT o."transactionId"
            ))
            """ : ""
        let statement = try db.cachedStatement(
            sql: """
                SELECT \(columns) FROM "\(table)" AS o
                WHERE NOT EXISTS (
                  SELECT 1 FROM "\(table)" AS p
                  WHERE p."modelName" = o."modelName" AND p."modelId" = o."modelId" AND p."sequence" < o."sequence"
                )
                AND (o."transactionId" IS NULL OR o."sequence" IN (\(transactionHeads)))
                \(whole)
                ORDER BY "sequence" LIMIT ?
                """
        )
        let rows = try statement.fetchExactRows([(limit + excluding.count).databaseValue])
        for row in rows {
            let event = try event(from: row)
            if excluding.contains(event.recordKey) { continue }
            events.append(event)
            if events.count == limit { break }
        }
        return events
    }

    /// The `sequence` of the oldest event of each transaction in the outbox: a walk over the
    /// `byTransaction` index that visits each transaction once, however many events it holds,
    /// computed once for the statement.
    static let transactionHeads = """
        WITH RECURSIVE heads("transactionId") AS (
          SELECT min("transactionId") FROM "\(table)" WHERE "transactionId" IS NOT NULL
          UNION ALL
          SELECT (SELECT min("transactionId") FROM "\(table)" WHERE "transactionId" > heads."transactionId")
          FROM heads WHERE heads."transactionId" IS NOT NULL
        )
        SELECT (SELECT min("sequence") FROM "\(table)" WHERE "transactionId" = heads."transactionId")
        FROM heads WHERE heads."transactionId" IS NOT NULL
        """

    /// The events of the transaction of event `id` after it, oldest first; none when the event
    /// is not part of a transaction.
    static func transactionSiblings(of id: String, _ db: Database) throws -> [MutationEvent] {
        try db.cachedStatement(
            sql: """
                SELECT \(columns) FROM "\(table)"
                WHERE "transactionId" = (SELECT "transactionId" FROM "\(table)" WHERE "id" = ?) AND "id" != ?
                ORDER BY "sequence"
                """
        )
        .fetchExactRows([id.databaseValue, id.databaseValue])
        .map(event(from:))
    }

    /// Marks the event `id` as sent at least once: no later event merges into it.
    static func markInProcess(_ id: String, _ db: Database) throws {
        try db.cachedStatement(sql: "UPDATE \"\(table)\" SET \"inProcess\" = 1 WHERE \"id\" = ?")
            .executeExactly([id.databaseValue])
    }

    /// Removes the event `id`.
    static func remove(_ id: String, _ db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM \"\(table)\" WHERE \"id\" = ?").executeExactly([id.databaseValue])
    }
}
