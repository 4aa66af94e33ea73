import Amplify
import GRDB
import SQLiteExactText

/// The pending changes to send to the backend: one ``MutationEvent`` a row of
/// `_stratus_outbox`, in the order they were made.
///
/// A save or delete appends its events in the same transaction as the records it writes, so the
/// outbox never misses a committed change and never holds one that was rolled back.
enum Outbox {
    /// The table the events are stored in.
    static let table = SystemTables.outbox

    /// The columns an event is read from, in the order ``event(from:)`` reads them.
    static let columns =
        #""id", "modelName", "modelId", "mutationType", "json", "createdAt", "version", "graphQLFilterJSON""#

    /// The statement that appends an event.
    static let insertEvent = """
        INSERT INTO "\(table)" ("id", "modelName", "modelId", "mutationType", "json", "createdAt", "version", \
        "graphQLFilterJSON", "transactionId", "traceContext") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// What ``enqueue(_:_:)`` did with an event.
    enum Enqueued: Sendable {
        /// The event is in the outbox: appended, or merged into the record's unsent event.
        case pending
        /// The event cancelled the record's unsent create (a delete): neither is in the outbox.
        case cancelled
    }

    /// Appends `event`, or merges it into the record's latest pending event.
    ///
    /// Only an event that was never sent takes a merge (one that was sent may have reached the
    /// backend under its idempotency key), and events with a condition never merge:
    /// create+update gives a create with the new data, update+update an update, update+delete a
    /// delete, and create+delete removes both.
    ///
    /// The events of a transaction (`transaction` is its identifier) never merge, neither into
    /// an earlier event nor a later one into them: each change of a transaction is its own
    /// mutation, sent in the transaction's order (see ``sendable(limit:excluding:_:)``).
    @discardableResult
    static func enqueue(_ event: MutationEvent, transaction: String?, _ db: Database) throws -> Enqueued {
        if event.graphQLFilterJSON == nil, transaction == nil,
            let latest = try latestEvent(event.modelName, event.modelId, db),
            !latest.inProcess, latest.filter == nil, !latest.inTransaction
        {
            switch (latest.kind, event.kind) {
            case (.create, .update), (.update, .update), (.update, .delete):
                try db.cachedStatement(
                    sql:
                        "UPDATE \"\(table)\" SET \"json\" = ?, \"mutationType\" = ?, \"version\" = ? WHERE \"sequence\" = ?"
                )
                .executeExactly([
                    event.json.databaseValue,
                    (latest.kind == .create ? .create : event.kind).rawValue.databaseValue,
                    (max(latest.version ?? 0, event.version ?? 0) == 0
                        ? nil : max(latest.version ?? 0, event.version ?? 0)).databaseValue,
                    latest.sequence.databaseValue,
                ])
                return .pending
            case (.create, .delete):
                try db.cachedStatement(sql: "DELETE FROM \"\(table)\" WHERE \"sequence\" = ?")
                    .executeExactly([latest.sequence.databaseValue])
                return .cancelled
            case (.delete, _), (_, .create):
                // Nothing merges into a deletion, and a create starts the record over: appended.
                break
            }
        }
        try db.cachedStatement(sql: insertEvent).executeExactly([
            event.id.databaseValue, event.modelName.databaseValue, event.modelId.databaseValue,
            event.kind.rawValue.databaseValue, event.json.databaseValue, event.createdAt.iso8601String.databaseValue,
            event.version.databaseValue, event.graphQLFilterJSON.databaseValue, transaction.databaseValue,
            OutboxTrace.current.databaseValue,
        ])
        return .pending
    }

    /// What the merge of a new event needs to know of a record's latest event.
    struct LatestEvent {
        let sequence: Int64
        let kind: MutationEvent.MutationType
        let version: Int?
        let filter: String?
        let inProcess: Bool
        /// Whether the event belongs to a transaction: nothing merges into it.
        let inTransaction: Bool
    }

    /// The latest event of the record `modelName|modelId`, if it has one.
    ///
    /// - Throws: ``DataStoreError`` with ``DataStoreError/Code/invalidDatabase`` naming the event
    ///   when its mutation type is not `create`, `update` or `delete`.
    static func latestEvent(_ modelName: String, _ modelId: String, _ db: Database) throws -> LatestEvent? {
        let rows = try db.cachedStatement(
            sql: """
                SELECT "sequence", "mutationType", "version", "graphQLFilterJSON", "inProcess", "transactionId"
                FROM "\(table)"
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
            inProcess: Int.fromDatabaseValue(row[4]) == 1,
            inTransaction: !row[5].isNull
        )
    }

    /// The pending events, oldest first.
    ///
    /// - Throws: ``DataStoreError`` with ``DataStoreError/Code/invalidDatabase`` naming the event
    ///   and its record when a stored event cannot be read (a `createdAt` that is not an
    ///   `AWSDateTime`, an unknown mutation type): the table was changed outside DataStore.
    static func events(_ db: Database) throws -> [MutationEvent] {
        try db.makeStatement(
            sql: """
                SELECT \(columns) FROM "\(table)" ORDER BY "sequence"
                """
        )
        .fetchExactRows([])
        .map(event(from:))
    }

    /// The trace context the event `id` keeps (see ``OutboxTrace``), if it has one.
    static func traceContext(of id: String, _ db: Database) throws -> String? {
        try String.fetchOne(
            db,
            sql: "SELECT \"traceContext\" FROM \"\(table)\" WHERE \"id\" = ?",
            arguments: [id]
        )
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

    static func event(from row: [DatabaseValue]) throws(DataStoreError) -> MutationEvent {
        // These columns are `TEXT NOT NULL` in a STRICT table: SQLite holds text there and nothing else.
        let text = { (index: Int) in String.fromDatabaseValue(row[index]) ?? "" }
        let id = text(0)
        let modelName = text(1)
        let modelId = text(2)
        let mutationText = text(3)
        let createdAtText = text(5)
        guard let mutationType = MutationEvent.MutationType(rawValue: mutationText) else {
            throw unknownKind(mutationText, ofEvent: id, modelName, modelId)
        }
        let createdAt: Temporal.DateTime
        do {
            createdAt = try Temporal.DateTime(iso8601String: createdAtText)
        } catch {
            throw unreadable(id, modelName, modelId, "its createdAt \(error)")
        }
        return MutationEvent(
            id: id,
            modelId: modelId,
            modelName: modelName,
            json: text(4),
            mutationType: mutationType,
            createdAt: createdAt,
            version: Int.fromDatabaseValue(row[6]),
            graphQLFilterJSON: String.fromDatabaseValue(row[7])
        )
    }

    /// The error for an event whose `mutationType` is `text`, not `create`, `update` or `delete`.
    static func unknownKind(
        _ text: String,
        ofEvent id: String,
        _ modelName: String,
        _ modelId: String
    ) -> DataStoreError {
        unreadable(id, modelName, modelId, "its mutationType '\(text)' is not create, update or delete.")
    }

    /// The error for a stored event that cannot be read: it names the event, its record and
    /// the `problem`, and says how to recover.
    static func unreadable(_ id: String, _ modelName: String, _ modelId: String, _ problem: String) -> DataStoreError {
        DataStoreError(
            .invalidDatabase,
            "The outbox event '\(id)' for \(modelName) '\(modelId)' cannot be read: \(problem) The table "
                + "\(table) was changed outside DataStore. Correct or delete that row, or call "
                + "DataStore.clear() to start over without the pending changes."
        )
    }
}
