import Foundation
import GRDB

/// Reading an AppSync client's database: the offline queue's `mutations`, the query cache's
/// `records` and `optimistic_layers`, the delta sync metadata's `sync_operations` (AWSAppSync's
/// `OfflineMutationStore`, `ApolloStore`, `OptimisticLayers` and `SubscriptionMetadataStore`).
extension DeviceStoreInspection {
    /// The newest layout of an AppSync query cache this reads (`ApolloStore.fileVersion`).
    public static let appSyncCacheFileVersion = 2

    static func readAppSyncClient(_ db: Database, path: String, applicationID: UInt32) throws -> AppSyncClientContents {
        let tables = Set(try String.fetchAll(db, sql: "SELECT \"name\" FROM sqlite_master WHERE \"type\" = 'table'"))
        guard !tables.isDisjoint(with: appSyncTables) else {
            throw DeviceStoreInspectionError(
                .notAStore,
                "'\(path)' is a SQLite database but not a DataStore database (its application_id is "
                    + "0x\(String(applicationID, radix: 16, uppercase: true)), DataStore's is 0x"
                    + "\(String(dataStoreApplicationID, radix: 16, uppercase: true))) nor an AppSync client's (it has "
                    + "none of the tables \(appSyncTables.sorted().joined(separator: ", "))). Pass the path of a "
                    + "DataStore database or of an AppSync client's offlineMutations.db, queries.db or "
                    + "subscriptionMetadataCache.db."
            )
        }
        var contents = AppSyncClientContents()
        if tables.contains("records") || tables.contains("optimistic_layers") {
            contents.cache = try readCache(db, path: path, tables: tables)
        }
        if tables.contains("mutations") {
            contents.offlineQueue = try readOfflineQueue(db, path: path)
        }
        if tables.contains("sync_operations") {
            contents.deltaSync = try Row.fetchAll(
                db,
                sql: "SELECT \"operation\", \"lastSync\" FROM \"sync_operations\" ORDER BY \"operation\""
            )
            .map { DeltaSyncOperation(operation: $0[0], lastSync: Date(timeIntervalSince1970: $0[1])) }
        }
        return contents
    }

    private static func readCache(_ db: Database, path: String, tables: Set<String>) throws -> QueryCache {
        let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        guard version <= appSyncCacheFileVersion else {
            throw DeviceStoreInspectionError(
                .newerFormat,
                "'\(path)' is an AppSync query cache of version \(version), written by a newer AWSAppSync; this "
                    + "stratus reads versions up to \(appSyncCacheFileVersion). Update stratus to the version of the "
                    + "app's AWSAppSync."
            )
        }
        let records =
            tables.contains("records") ? try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"records\"") ?? 0 : 0
        var layers: [OptimisticLayer] = []
        if tables.contains("optimistic_layers") {
            layers = try Row.fetchAll(
                db,
                sql: """
                    SELECT "mutation", COUNT(*) FROM "optimistic_layers" GROUP BY "mutation" ORDER BY MIN("sequence")
                    """
            )
            .map { OptimisticLayer(mutation: $0[0], records: $0[1]) }
        }
        return QueryCache(fileVersion: version, records: records, optimisticLayers: layers)
    }

    private static func readOfflineQueue(_ db: Database, path: String) throws -> [OfflineMutation] {
        let columns = Set(try db.columns(in: "mutations").map(\.name))
        let required = ["sequence", "id", "operationName", "requestBody", "createdAt", "attempts"]
        let missing = required.filter { !columns.contains($0) }
        guard missing.isEmpty else {
            throw DeviceStoreInspectionError(
                .notAStore,
                "'\(path)' has a mutations table without the column\(missing.count == 1 ? "" : "s") "
                    + "\(missing.joined(separator: ", ")): it is not an AppSync client's offline mutation queue."
            )
        }
        // A queue written before mutations kept their record has no recordKey column.
        let recordKey = columns.contains("recordKey") ? "\"recordKey\"" : "NULL"
        let lastError = columns.contains("lastError") ? "\"lastError\"" : "NULL"
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT "sequence", "id", "operationName", \(recordKey), "createdAt", "attempts", \(lastError),
                  "requestBody"
                FROM "mutations" ORDER BY "sequence"
                """
        )
        return rows.enumerated().map { position, row in
            OfflineMutation(
                position: position + 1,
                sequence: row[0],
                id: row[1],
                operationName: row[2],
                recordKey: row[3],
                createdAt: Date(timeIntervalSince1970: row[4]),
                attempts: row[5],
                lastError: row[6],
                request: StoredJSON(row[7])
            )
        }
    }
}
