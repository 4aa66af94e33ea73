import Amplify
import GRDB
import SQLiteExactText

extension Outbox {
    /// What the merge of a new event needs to know of a record's latest event.
    struct LatestEvent {
        let sequence: Int64
        let kind: MutationEvent.MutationType
        let version: Int?
        let filter: String?
        let inProcess: Bool
    }

    /// The latest event of the record `modelName|modelId`, if it has one.
    ///
    /// - Throws: ``DataStoreError`` with ``DataStoreError/Code/invalidDatabase`` naming the event
    ///   when its mutation type is not `create`, `update` or `delete`.
    static func latestEvent(_ modelName: String, _ modelId: String, _ db: Database) throws -> LatestEvent? {
        let rows = try db.cachedStatement(
            sql: """
                SELECT "sequence", "mutationType", "version", "graphQLFilterJSON", "inProcess" FROM "\(table)"
                WHERE "modelName" = ? AND "modelId" = ? ORDER BY "sequence" DESC LIMIT 1
                """
        )
        .fetchExactRows([modelName.databaseValue, modelId.databaseValue])
        guard let row = rows.first else { return nil }
        let sequence = Int64.fromDatabaseValue(row[0]) ?? 0
        // `mutationType` is `TEXT NOT NULL` in a STRICT table: SQLite holds text there.
        let text = String.fromDatabaseValue(row[1]) ?? ""
        guard let kind = MutationEvent.MutationType(rawValue: text) else {
            // Read only here: every save reads its record's latest event.
            let id = try String.fetchOne(
                db,
                sql: "SELECT \"id\" FROM \"\(table)\" WHERE \"sequence\" = ?",
                arguments: [sequence]
            )
            throw unknownKind(text, ofEvent: id ?? "", modelName, modelId)
        }
        return LatestEvent(
            sequence: sequence,
            kind: kind,
            version: Int.fromDatabaseValue(row[2]),
            filter: String.fromDatabaseValue(row[3]),
            inProcess: Int.fromDatabaseValue(row[4]) == 1
        )
    }

    /// The oldest event of each record, oldest first, at most `limit` of them, skipping the
    /// records `excluding` names: the events that may be sent now.
    static func sendable(limit: Int, excluding: Set<RecordKey>, _ db: Database) throws -> [MutationEvent] {
        var events: [MutationEvent] = []
        let statement = try db.cachedStatement(
            sql: """
                SELECT \(columns) FROM "\(table)" AS o
                WHERE NOT EXISTS (
                  SELECT 1 FROM "\(table)" AS p
                  WHERE p."modelName" = o."modelName" AND p."modelId" = o."modelId" AND p."sequence" < o."sequence"
                )
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

    /// Marks the event `id` as sent at least once: no later event merges into it.
    static func markInProcess(_ id: String, _ db: Database) throws {
        try db.cachedStatement(sql: "UPDATE \"\(table)\" SET \"inProcess\" = 1 WHERE \"id\" = ?")
            .executeExactly([id.databaseValue])
    }

    /// Removes the event `id`.
    static func remove(_ id: String, _ db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM \"\(table)\" WHERE \"id\" = ?").executeExactly([id.databaseValue])
    }

    /// Whether `record` has a pending event.
    static func hasPending(_ record: RecordKey, _ db: Database) throws -> Bool {
        try !db.cachedStatement(
            sql: "SELECT 1 FROM \"\(table)\" WHERE \"modelName\" = ? AND \"modelId\" = ? LIMIT 1"
        )
        .fetchExactRows([record.modelName.databaseValue, record.identifier.databaseValue]).isEmpty
    }

    /// The number of pending events.
    static func count(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"\(table)\"") ?? 0
    }

    /// Whether there is no pending event: unlike ``count(_:)``, it reads one row at most.
    static func isEmpty(_ db: Database) throws -> Bool {
        try db.cachedStatement(sql: "SELECT 1 FROM \"\(table)\" LIMIT 1").fetchExactRows([]).isEmpty
    }
}
