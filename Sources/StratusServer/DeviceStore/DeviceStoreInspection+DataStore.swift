import Foundation
import GRDB

/// Reading a DataStore database: the system tables `_stratus_metadata`, `_stratus_outbox`,
/// `_stratus_sync_metadata`, `_stratus_model_sync`, `_stratus_deferred` and `_stratus_orphans`
/// (AWSDataStorePlugin's `SystemTables` describes them) beside one table per model.
extension DeviceStoreInspection {
    /// The newest layout of a DataStore database this reads (`SystemTables.format`).
    public static let dataStoreFormat = 1

    static func readDataStore(
        _ db: Database,
        path: String,
        now: Date,
        syncInterval: TimeInterval
    ) throws -> DataStoreContents {
        guard try db.tableExists("_stratus_metadata") else {
            throw DeviceStoreInspectionError(
                .notAStore,
                "'\(path)' carries DataStore's application_id but has no _stratus_metadata table: DataStore did not "
                    + "finish creating it, or it is damaged. Start the app once, or pass another file."
            )
        }
        var metadata: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT \"key\", \"value\" FROM \"_stratus_metadata\"") {
            metadata[row[0]] = row[1]
        }
        guard let formatText = metadata["format"], let format = Int(formatText) else {
            throw DeviceStoreInspectionError(
                .notAStore,
                "'\(path)' is a DataStore database that does not record its format (the _stratus_metadata key "
                    + "'format' is \(metadata["format"].map { "'\($0)'" } ?? "missing")): it is damaged."
            )
        }
        guard format <= dataStoreFormat else {
            throw DeviceStoreInspectionError(
                .newerFormat,
                "'\(path)' is a DataStore database of format \(format), written by a newer DataStore; this stratus "
                    + "reads format \(dataStoreFormat) and older. Update stratus to the version of the app's DataStore."
            )
        }
        let outbox = try readOutbox(db)
        let modelNames = try String.fetchAll(
            db,
            sql: #"""
                SELECT "name" FROM sqlite_master WHERE "type" = 'table'
                AND "name" NOT LIKE '\_stratus\_%' ESCAPE '\' AND "name" NOT LIKE 'sqlite\_%' ESCAPE '\'
                """#
        )
        var deleted: [String: Int] = [:]
        for row in try Row.fetchAll(
            db,
            sql: """
                SELECT substr("id", 1, instr("id", '|') - 1), COUNT(*) FROM "_stratus_sync_metadata"
                WHERE "deleted" = 1 GROUP BY 1
                """
        ) {
            deleted[row[0]] = row[1]
        }
        var pending: [String: Int] = [:]
        for mutation in outbox { pending[mutation.modelName, default: 0] += 1 }
        var models: [ModelCount] = []
        for name in Set(modelNames).union(deleted.keys).union(pending.keys).sorted() {
            let records =
                modelNames.contains(name)
                ? try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(quoted(name))") ?? 0 : nil
            models.append(
                ModelCount(name: name, records: records, deleted: deleted[name] ?? 0, pending: pending[name] ?? 0)
            )
        }
        return DataStoreContents(
            format: format,
            createdAt: metadata["createdAt"],
            modelsVersion: metadata["registryVersion"],
            models: models,
            outbox: outbox,
            sync: try readSyncState(db, models: modelNames, metadata: metadata, now: now, syncInterval: syncInterval),
            held: try readHeldRecords(db)
        )
    }

    /// The outbox in sending order.
    private static func readOutbox(_ db: Database) throws -> [OutboxMutation] {
        // A file made before transactions has no transactionId column: its events belong to none.
        let hasTransactions = try db.columns(in: "_stratus_outbox").contains { $0.name == "transactionId" }
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT "sequence", "id", "modelName", "modelId", "mutationType", "json", "createdAt", "version",
                  "graphQLFilterJSON", "inProcess", \(hasTransactions ? "\"transactionId\"" : "NULL")
                FROM "_stratus_outbox" ORDER BY "sequence"
                """
        )
        return try rows.enumerated().map { position, row in
            let condition: String? = row[8]
            let kindText: String = row[4]
            guard let kind = MutationKind(rawValue: kindText) else {
                throw DeviceStoreInspectionError(
                    .unreadable,
                    "The outbox mutation at sequence \(row[0] as Int) has the kind '\(kindText)', which is not "
                        + "create, update or delete: the file is damaged."
                )
            }
            return OutboxMutation(
                position: position + 1,
                sequence: row[0],
                id: row[1],
                modelName: row[2],
                modelId: row[3],
                kind: kind,
                createdAt: row[6],
                inFlight: row[9] as Int == 1,
                version: row[7],
                transactionId: row[10],
                condition: condition.map(StoredJSON.init),
                record: StoredJSON(row[5])
            )
        }
    }

    /// Each model's sync state: those with a table or a recorded sync, by name.
    private static func readSyncState(
        _ db: Database,
        models: [String],
        metadata: [String: String],
        now: Date,
        syncInterval: TimeInterval
    ) throws -> [ModelSyncState] {
        var recorded: [String: (lastSync: Int?, expression: String?)] = [:]
        for row in try Row.fetchAll(
            db,
            sql: "SELECT \"modelName\", \"lastSync\", \"syncExpression\" FROM \"_stratus_model_sync\""
        ) {
            recorded[row[0]] = (row[1], row[2])
        }
        let nowMilliseconds = Int(now.timeIntervalSince1970 * 1000)
        return Set(models).union(recorded.keys).sorted().map { name in
            let lastSync = recorded[name]?.lastSync
            let afterSchemaChange = metadata["baseSyncAfterMigration:\(name)"] != nil
            let nextSync: NextSync
            if afterSchemaChange {
                nextSync = NextSync(kind: .base, reason: "a schema change asked for a base sync")
            } else if let lastSync {
                if nowMilliseconds - lastSync < Int(syncInterval * 1000) {
                    nextSync = NextSync(
                        kind: .delta,
                        reason: "the last sync is within the sync interval (a base sync if the app's sync "
                            + "expression differs from the recorded one)"
                    )
                } else {
                    nextSync = NextSync(kind: .base, reason: "the last sync is older than the sync interval")
                }
            } else {
                nextSync = NextSync(kind: .base, reason: "never synced")
            }
            return ModelSyncState(
                modelName: name,
                lastSync: lastSync,
                syncExpression: recorded[name]?.expression,
                baseSyncAfterSchemaChange: afterSchemaChange,
                nextSync: nextSync
            )
        }
    }

    /// The backend's records held back, deferred ones first, each kind by record.
    private static func readHeldRecords(_ db: Database) throws -> [HeldRecord] {
        var held: [HeldRecord] = []
        // A file of the first format may predate these tables.
        if try db.tableExists("_stratus_deferred") {
            for row in try Row.fetchAll(
                db,
                sql: "SELECT \"id\", \"modelName\", \"json\", \"version\" FROM \"_stratus_deferred\" ORDER BY \"id\""
            ) {
                let key = recordName(row[0], modelName: row[1])
                held.append(
                    HeldRecord(
                        kind: .deferred,
                        modelName: key.modelName,
                        modelId: key.modelId,
                        parent: nil,
                        version: row[3],
                        record: StoredJSON(row[2])
                    )
                )
            }
        }
        if try db.tableExists("_stratus_orphans") {
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT "id", "modelName", "parent", "json", "version" FROM "_stratus_orphans" ORDER BY "id"
                    """
            ) {
                let key = recordName(row[0], modelName: row[1])
                let parent: String = row[2]
                held.append(
                    HeldRecord(
                        kind: .orphan,
                        modelName: key.modelName,
                        modelId: key.modelId,
                        parent: recordName(parent, modelName: nil),
                        version: row[4],
                        record: StoredJSON(row[3])
                    )
                )
            }
        }
        return held
    }

    /// The record named by the stored text `modelName|identifier` (model names hold no `|`).
    private static func recordName(_ stored: String, modelName: String?) -> RecordName {
        guard let bar = stored.firstIndex(of: "|") else {
            return RecordName(modelName: modelName ?? "", modelId: stored)
        }
        return RecordName(
            modelName: modelName ?? String(stored[..<bar]),
            modelId: String(stored[stored.index(after: bar)...])
        )
    }
}
