import Foundation
import GRDB

/// A mutation waiting in the offline queue: what is sent, and how its attempts went.
package struct QueuedMutation: Sendable, Hashable {
    /// The durable id, sent as the `Idempotency-Key` header of every attempt.
    package let id: String
    /// The position in the queue: mutations are sent in this order.
    package let sequence: Int64
    /// The operation's name (`CreateTodo`).
    package let operationName: String
    /// The request body: `{"query": …, "variables": …}`.
    package let requestBody: String
    /// When it was queued.
    package let createdAt: Date
    /// How many attempts failed so far.
    package let attempts: Int
    /// The error of the last failed attempt.
    package let lastError: String?
    /// The record the mutation writes (its `input.id` or `id` variable), which per-record
    /// ordering keeps mutations of in order; `nil` when its variables name none.
    package let recordKey: String?
    /// The selections of its result (``StoredSelections``), with which the answer to a mutation
    /// replayed by a later run is written to the cache; `nil` for a mutation queued without.
    package let selections: String?

    /// The operation's document, read from the request body.
    ///
    /// - Throws: ``JSONDecodingError`` when the stored body is not JSON.
    package func operationString() throws -> String {
        try JSONValue(parsing: Data(requestBody.utf8)).objectValue?["query"]?.stringValue ?? ""
    }
}

/// The offline mutation queue's SQLite database (`offlineMutations.db`, or the one file of the
/// `databaseURL:` configuration): a mutation is written here before it is sent, and deleted once
/// it is done.
package final class OfflineMutationStore: Sendable {
    private let database: DatabaseQueue

    /// The queue in the file at `url`, created if needed, or in memory when `url` is `nil`.
    ///
    /// - Throws: ``AWSAppSyncClientError`` (``AWSAppSyncClientError/Code/cache``) when the file
    ///   cannot be opened or is not a mutation queue.
    package init(databaseURL url: URL?) throws {
        do {
            database = try ClientDatabase.open(url)
            try database.write(Self.createTable)
        } catch {
            throw AWSAppSyncClientError(
                .cache,
                "Cannot open the offline mutation queue at '\(url?.path ?? ":memory:")': \(sentence: error) "
                    + "Pass another file in the cache configuration, or delete this one (its queued mutations are lost)."
            )
        }
    }

    private static func createTable(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS mutations (
                    sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                    id TEXT NOT NULL UNIQUE,
                    operationName TEXT NOT NULL,
                    requestBody TEXT NOT NULL,
                    createdAt REAL NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    lastError TEXT,
                    recordKey TEXT,
                    selections TEXT
                )
                """
        )
        // A queue written before mutations kept their record and selections.
        let columns = Set(try db.columns(in: "mutations").map(\.name))
        for column in ["recordKey", "selections"] where !columns.contains(column) {
            try db.execute(sql: "ALTER TABLE mutations ADD COLUMN \(column) TEXT")
        }
    }

    /// Queues a mutation and returns it; it is on disk when this returns.
    package func enqueue(
        id: String,
        operationName: String,
        requestBody: String,
        recordKey: String? = nil,
        selections: String? = nil
    ) throws -> QueuedMutation {
        try database.write { db in
            let now = Date()
            try db.execute(
                sql: """
                    INSERT INTO mutations (id, operationName, requestBody, createdAt, recordKey, selections)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [id, operationName, requestBody, now.timeIntervalSince1970, recordKey, selections]
            )
            return QueuedMutation(
                id: id,
                sequence: db.lastInsertedRowID,
                operationName: operationName,
                requestBody: requestBody,
                createdAt: now,
                attempts: 0,
                lastError: nil,
                recordKey: recordKey,
                selections: selections
            )
        }
    }

    /// How many mutations are queued, and when the oldest was queued: the queue's metrics.
    func depth() throws -> (count: Int, oldest: Date?) {
        try database.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT COUNT(*) AS count, MIN(createdAt) AS oldest FROM mutations")
            let oldest: Double? = row?["oldest"]
            return (row?["count"] ?? 0, oldest.map(Date.init(timeIntervalSince1970:)))
        }
    }

    /// The first `limit` mutations in sending order.
    func first(_ limit: Int) throws -> [QueuedMutation] {
        try database.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT \(Self.columns) FROM mutations ORDER BY sequence LIMIT ?",
                arguments: [limit]
            ).map(Self.mutation)
        }
    }

    /// Every queued mutation, in order.
    package func all() throws -> [QueuedMutation] {
        try database.read(Self.all)
    }

    /// Whether no mutation is queued: unlike ``all()``, it reads one row at most.
    func isEmpty() throws -> Bool {
        try database.read { db in try Row.fetchOne(db, sql: "SELECT 1 FROM mutations LIMIT 1") == nil }
    }

    /// The ids of the queued mutations.
    func ids() throws -> Set<String> {
        try database.read { db in Set(try String.fetchAll(db, sql: "SELECT id FROM mutations")) }
    }

    /// Counts a failed attempt of `id`.
    package func recordFailure(of id: String, error: String) throws {
        try database.write { db in
            try db.execute(
                sql: "UPDATE mutations SET attempts = attempts + 1, lastError = ? WHERE id = ?",
                arguments: [error, id]
            )
        }
    }

    /// Deletes `id`; returns whether it was queued.
    @discardableResult
    func delete(_ id: String) throws -> Bool {
        try database.write { db in
            try db.execute(sql: "DELETE FROM mutations WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    /// Deletes every queued mutation and returns their ids.
    func deleteAll() throws -> [String] {
        try database.write { db in
            let ids = try String.fetchAll(db, sql: "SELECT id FROM mutations ORDER BY sequence")
            try db.execute(sql: "DELETE FROM mutations")
            return ids
        }
    }

    /// Every column: a queue written before `recordKey` and `selections` existed reads as
    /// having none (`stratus queue list` opens it read-only, without adding them).
    private static let columns = "*"

    private static func all(_ db: Database) throws -> [QueuedMutation] {
        try Row.fetchAll(db, sql: "SELECT \(columns) FROM mutations ORDER BY sequence").map(mutation)
    }

    private static func mutation(_ row: Row) -> QueuedMutation {
        QueuedMutation(
            id: row["id"],
            sequence: row["sequence"],
            operationName: row["operationName"],
            requestBody: row["requestBody"],
            createdAt: Date(timeIntervalSince1970: row["createdAt"]),
            attempts: row["attempts"],
            lastError: row["lastError"],
            recordKey: row["recordKey"],
            selections: row["selections"]
        )
    }

    /// The queued mutations of the database at `url`, read without changing it: what
    /// `stratus queue list` shows.
    ///
    /// - Throws: ``AWSAppSyncClientError`` (``AWSAppSyncClientError/Code/cache``) when the file
    ///   cannot be read as a mutation queue.
    package static func queuedMutations(inDatabaseAt url: URL) throws -> [QueuedMutation] {
        do {
            let database = try DatabaseQueue(
                path: url.path,
                configuration: ClientDatabase.configuration(readonly: true)
            )
            return try database.read(all)
        } catch {
            throw AWSAppSyncClientError(
                .cache,
                "Cannot read the offline mutation queue at '\(url.path)': \(sentence: error) "
                    + "Pass the directory of a client's offlineMutations.db."
            )
        }
    }
}
