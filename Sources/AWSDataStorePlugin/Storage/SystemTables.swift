import Amplify
import GRDB
import SQLiteExactText

/// The tables DataStore keeps beside the model tables.
///
/// - `_stratus_metadata`: what marks the file as DataStore's, with the format and the version of
///   the model registration the tables were made for.
/// - `_stratus_outbox`: the pending changes to send to the backend, one ``MutationEvent`` a row
///   in the order they were made; a save writes its row in the same transaction as the record
///   (see ``Outbox``). `transactionId` names the DataStore transaction an event belongs to,
///   `traceContext` the trace of the save that made it (``OutboxTrace``).
/// - `_stratus_sync_metadata`: per record (its ``RecordKey``), the backend's `_version`,
///   `_deleted` and `_lastChangedAt`.
/// - `_stratus_model_sync`: per model, when it was last synced and with which sync expression.
/// - `_stratus_deferred`: per record, the latest record the backend sent while the record had
///   pending outbox events; applied once they are gone.
/// - `_stratus_orphans`: per record, the latest record the backend sent before the parent it
///   belongs to (subscriptions of different models deliver in no common order); applied when
///   the parent arrives, forgotten when the parent is deleted.
enum SystemTables {
    static let metadata = "_stratus_metadata"
    static let outbox = "_stratus_outbox"
    static let syncMetadata = "_stratus_sync_metadata"
    static let modelSync = "_stratus_model_sync"
    static let deferred = "_stratus_deferred"
    static let orphans = "_stratus_orphans"

    /// The prefix of every system table's name.
    static let prefix = "_stratus_"

    /// The `application_id` in the header of every DataStore database: `STRA`.
    static let applicationID: Int32 = 0x5354_5241

    /// The version of the file's layout that this code writes and reads.
    static let format = 1

    /// Creates the system tables.
    static func create(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS "\(metadata)" (
                  "key" TEXT NOT NULL PRIMARY KEY,
                  "value" TEXT NOT NULL
                ) STRICT;
                CREATE TABLE IF NOT EXISTS "\(outbox)" (
                  "sequence" INTEGER PRIMARY KEY,
                  "id" TEXT NOT NULL UNIQUE,
                  "modelName" TEXT NOT NULL,
                  "modelId" TEXT NOT NULL,
                  "mutationType" TEXT NOT NULL CHECK ("mutationType" IN ('create', 'update', 'delete')),
                  "json" TEXT NOT NULL,
                  "createdAt" TEXT NOT NULL,
                  "version" INTEGER,
                  "graphQLFilterJSON" TEXT,
                  "inProcess" INTEGER NOT NULL DEFAULT 0 CHECK ("inProcess" IN (0, 1))
                ) STRICT;
                CREATE INDEX IF NOT EXISTS "\(outbox):byRecord" ON "\(outbox)" ("modelName", "modelId");
                CREATE TABLE IF NOT EXISTS "\(syncMetadata)" (
                  "id" TEXT NOT NULL PRIMARY KEY,
                  "version" INTEGER,
                  "deleted" INTEGER NOT NULL DEFAULT 0 CHECK ("deleted" IN (0, 1)),
                  "lastChangedAt" INTEGER
                ) STRICT;
                CREATE TABLE IF NOT EXISTS "\(modelSync)" (
                  "modelName" TEXT NOT NULL PRIMARY KEY,
                  "lastSync" INTEGER,
                  "syncExpression" TEXT
                ) STRICT;
                """
        )
    }

    /// Creates the tables added after the first format, when they are missing.
    static func createLaterTables(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS "\(deferred)" (
                  "id" TEXT NOT NULL PRIMARY KEY,
                  "modelName" TEXT NOT NULL,
                  "json" TEXT NOT NULL,
                  "version" INTEGER
                ) STRICT;
                CREATE TABLE IF NOT EXISTS "\(orphans)" (
                  "id" TEXT NOT NULL PRIMARY KEY,
                  "modelName" TEXT NOT NULL,
                  "parent" TEXT NOT NULL,
                  "json" TEXT NOT NULL,
                  "version" INTEGER
                ) STRICT;
                CREATE INDEX IF NOT EXISTS "\(orphans):byParent" ON "\(orphans)" ("parent");
                """
        )
        // The transaction an outbox event belongs to, if any (a file made before transactions has
        // no such column; its events belong to none).
        if try !db.columns(in: outbox).contains(where: { $0.name == "transactionId" }) {
            try db.execute(sql: "ALTER TABLE \"\(outbox)\" ADD COLUMN \"transactionId\" TEXT")
        }
        // The trace context of the save that made an event, when DataStore traces (``OutboxTrace``).
        if try !db.columns(in: outbox).contains(where: { $0.name == "traceContext" }) {
            try db.execute(sql: "ALTER TABLE \"\(outbox)\" ADD COLUMN \"traceContext\" TEXT")
        }
        try db.execute(
            sql: """
                CREATE INDEX IF NOT EXISTS "\(outbox):byTransaction" ON "\(outbox)" ("transactionId", "sequence")
                WHERE "transactionId" IS NOT NULL
                """
        )
    }

    /// The value stored under `key` in the metadata table.
    static func metadataValue(_ db: Database, _ key: String) throws -> String? {
        try String.fetchOne(db, sql: "SELECT \"value\" FROM \"\(metadata)\" WHERE \"key\" = ?", arguments: [key])
    }

    /// The metadata key that marks `modelName` for a base sync after a schema change: the next
    /// sync of the model is a base sync that applies the backend's records even at the version
    /// stored, so records synced before the change receive the values of its new fields.
    static func baseSyncKey(of modelName: String) -> String {
        "baseSyncAfterMigration:\(modelName)"
    }

    /// The metadata key that lists (comma-separated) the fields a model gained after the pending
    /// update `eventID` was made: sending it leaves them out unless the event's record sets them.
    static func unknownFieldsKey(of eventID: String) -> String {
        "outboxUnknownFields:\(eventID)"
    }

    /// The fields listed under ``unknownFieldsKey(of:)`` for `event`. Only pending updates are
    /// marked (a schema change marks them), so another kind of event has none and is not looked
    /// up: the outbox asks for every event it takes.
    static func unknownFields(of event: MutationEvent, _ db: Database) throws -> Set<String> {
        guard event.kind == .update else { return [] }
        let statement = try db.cachedStatement(sql: "SELECT \"value\" FROM \"\(metadata)\" WHERE \"key\" = ?")
        let rows = try statement.fetchExactRows([unknownFieldsKey(of: event.id).databaseValue])
        guard let value = rows.first.flatMap({ String.fromDatabaseValue($0[0]) }) else { return [] }
        return Set(value.split(separator: ",").map(String.init))
    }

    /// Stores `value` under `key` in the metadata table.
    static func setMetadataValue(_ db: Database, _ key: String, _ value: String) throws {
        try db.execute(
            sql: """
                INSERT INTO "\(metadata)" ("key", "value") VALUES (?, ?)
                ON CONFLICT ("key") DO UPDATE SET "value" = excluded."value"
                """,
            arguments: [key, value]
        )
    }

    /// Removes the sync metadata of `record`, whose create and delete the outbox dropped unsent
    /// together, when it has no version: the backend never had the record.
    static func forgetRecord(_ record: RecordKey, _ db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM \"\(syncMetadata)\" WHERE \"id\" = ? AND \"version\" IS NULL")
            .execute(arguments: [record.databaseValue])
    }

    /// Records that `record` exists (`deleted` false) or was deleted, and returns its sync
    /// version.
    static func markRecord(_ record: RecordKey, deleted: Bool, _ db: Database) throws -> Int? {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO "\(syncMetadata)" ("id", "deleted") VALUES (?, ?)
                ON CONFLICT ("id") DO UPDATE SET "deleted" = excluded."deleted"
                RETURNING "version"
                """
        )
        let rows = try statement.fetchExactRows([
            record.databaseValue, (deleted ? 1 : 0).databaseValue,
        ])
        return rows.first.flatMap { Int.fromDatabaseValue($0[0]) }
    }
}
