import Amplify
import GRDB
import SQLiteExactText

/// The backend's metadata of each record (`_stratus_sync_metadata`) and of each model's last
/// sync (`_stratus_model_sync`).
extension StorageEngine {
    /// The backend's `_version` of the record `key`, when known.
    static func storedVersion(_ key: RecordKey, _ db: Database) throws -> Int? {
        try db.cachedStatement(sql: "SELECT \"version\" FROM \"\(SystemTables.syncMetadata)\" WHERE \"id\" = ?")
            .fetchExactRows([key.databaseValue]).first.flatMap { Int.fromDatabaseValue($0[0]) }
    }

    /// Stores the backend's metadata of the record `key`.
    static func storeMetadata(
        _ key: RecordKey,
        version: Int?,
        deleted: Bool,
        lastChangedAt: Int?,
        _ db: Database
    ) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO "\(SystemTables.syncMetadata)" ("id", "version", "deleted", "lastChangedAt")
                VALUES (?, ?, ?, ?)
                ON CONFLICT ("id") DO UPDATE SET "version" = excluded."version", "deleted" = excluded."deleted",
                  "lastChangedAt" = excluded."lastChangedAt"
                """
        )
        .executeExactly([
            key.databaseValue, version.databaseValue, (deleted ? 1 : 0).databaseValue, lastChangedAt.databaseValue,
        ])
    }

    /// Raises the stored `_version` of the record `key` to `version` when it is higher.
    static func raiseVersion(_ key: RecordKey, to version: Int, _ db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO "\(SystemTables.syncMetadata)" ("id", "version") VALUES (?, ?)
                ON CONFLICT ("id") DO UPDATE SET "version" = max(coalesce("version", 0), excluded."version")
                """
        )
        .executeExactly([key.databaseValue, version.databaseValue])
    }

    /// When the model was last synced (the backend's `startedAt`, in milliseconds) and with which
    /// sync expression.
    func lastSync(of modelName: String) async throws(DataStoreError) -> (lastSync: Int?, expression: String?) {
        try await read { db in
            let rows = try db.makeStatement(
                sql:
                    "SELECT \"lastSync\", \"syncExpression\" FROM \"\(SystemTables.modelSync)\" WHERE \"modelName\" = ?"
            )
            .fetchExactRows([modelName.databaseValue])
            guard let row = rows.first else { return (nil, nil) }
            return (Int.fromDatabaseValue(row[0]), String.fromDatabaseValue(row[1]))
        }
    }

    /// Records that the model was synced at `lastSync` with `expression`.
    func setLastSync(of modelName: String, _ lastSync: Int?, expression: String?) async throws(DataStoreError) {
        try await write { db in
            try db.makeStatement(
                sql: """
                    INSERT INTO "\(SystemTables.modelSync)" ("modelName", "lastSync", "syncExpression") VALUES (?, ?, ?)
                    ON CONFLICT ("modelName") DO UPDATE SET "lastSync" = excluded."lastSync",
                      "syncExpression" = excluded."syncExpression"
                    """
            )
            .executeExactly([modelName.databaseValue, lastSync.databaseValue, expression.databaseValue])
        }
    }

    /// Whether a schema change marked the model for a base sync that is not done yet.
    func needsBaseSyncAfterMigration(_ modelName: String) async throws(DataStoreError) -> Bool {
        try await read { db in try SystemTables.metadataValue(db, SystemTables.baseSyncKey(of: modelName)) != nil }
    }

    /// Records that the base sync a schema change asked for is done.
    func finishBaseSyncAfterMigration(_ modelName: String) async throws(DataStoreError) {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM \"\(SystemTables.metadata)\" WHERE \"key\" = ?",
                arguments: [SystemTables.baseSyncKey(of: modelName)]
            )
        }
    }
}
