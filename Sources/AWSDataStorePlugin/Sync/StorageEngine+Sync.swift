import Amplify
import Foundation
import GRDB
import SQLiteExactText
import Synchronization

/// What applying the backend's records did.
struct ReconcileResult: Sendable {
    var added = 0
    var updated = 0
    var deleted = 0
    /// The changes made, as observers were told of them.
    var applied: [MutationEvent] = []
    /// Records that could not be applied, with the reason.
    var refused: [DataStoreError] = []
}

/// Which models are synced, for `observeQuery`'s `isSynced`.
final class SyncStatus: Sendable {
    private struct State {
        var isSyncing = false
        var synced: Set<String> = []
    }
    private let state = Mutex(State())

    /// Whether the records of `modelName` are synced: always when there is no backend.
    func isSynced(_ modelName: String) -> Bool {
        state.withLock { !$0.isSyncing || $0.synced.contains(modelName) }
    }

    /// Sync started: no model is synced until its sync query ends.
    func begin() {
        state.withLock { state in
            state.isSyncing = true
            state.synced = []
        }
    }

    /// The sync query of `modelName` ended.
    func markSynced(_ modelName: String) {
        _ = state.withLock { $0.synced.insert(modelName) }
    }

    /// Sync stopped.
    func end() {
        state.withLock { state in
            state.isSyncing = false
            state.synced = []
        }
    }
}

extension StorageEngine {
    /// Applies records the backend sent, in one transaction: a record is written only when its
    /// `_version` is higher than the stored one and it has no pending outbox event (the local
    /// change wins until the backend has it); a `_deleted` record is removed with its children.
    /// Observers hear of the changes once the transaction commits.
    ///
    /// A record that does not fit its model is skipped and reported in
    /// ``ReconcileResult/refused``. A record that belongs to a parent that is not stored waits
    /// for it (in `_stratus_orphans`) and is applied when the parent arrives.
    func reconcile(_ items: [JSONValue], modelName: String) async throws(DataStoreError) -> ReconcileResult {
        guard let table = catalog.tables[modelName] else {
            throw DataStoreError(.sync, "The backend sent a \(modelName), which this DataStore does not store.")
        }
        return try await write { db in
            var result = ReconcileResult()
            for item in items {
                try self.reconcile(item, table: table, db, &result)
            }
            self.publishOnCommit(result.applied, db)
            return result
        }
    }

    /// Applies one record of the backend; see ``reconcile(_:modelName:)``.
    func reconcile(_ item: JSONValue, table: ModelTable, _ db: Database, _ result: inout ReconcileResult) throws {
        let identifier: String
        do {
            identifier = try table.identifier(of: item)
        } catch {
            result.refused.append(Self.unreadable(table, item, "\(error)"))
            return
        }
        let key = RecordKey(modelName: table.name, identifier: identifier)
        let version = item["_version"]?.intValue
        guard try !Outbox.hasPending(key, db) else {
            // The local change wins until the backend has it; the backend's record is kept for
            // when the change is gone without an answer that carries it (merged away).
            try Self.defer(item, table: table, key: key, version: version, db)
            return
        }
        let isDeleted = item["_deleted"]?.booleanValue ?? false
        let lastChangedAt = item["_lastChangedAt"]?.intValue
        if let version, let stored = try Self.storedVersion(key, db), version <= stored { return }
        if isDeleted {
            let keyValues = try table.keyValues(of: item)
            if let rowid = try Self.rowid(table.statements.rowidByKey, keyValues, db) {
                let row = try db.cachedStatement(
                    sql:
                        "SELECT rowid, \(table.statements.columnList) FROM \(table.name.quotedIdentifier) WHERE rowid = ?"
                )
                .fetchExactRows([rowid.databaseValue])
                for record in try CascadeDelete(catalog: catalog).plan(row, in: table, db) {
                    try db.cachedStatement(sql: record.table.statements.deleteByRowid).execute(arguments: [
                        record.rowid
                    ])
                    let recordKey = record.table.primaryKey.map { record.row[1 + record.table.columnIndex[$0]!] }
                    let recordIdentifier = ModelTable.identifier(of: recordKey)
                    _ = try SystemTables.markRecord(
                        RecordKey(modelName: record.table.name, identifier: recordIdentifier),
                        deleted: true,
                        db
                    )
                    result.applied.append(
                        MutationEvent(
                            modelId: recordIdentifier,
                            modelName: record.table.name,
                            json: record.table.jsonText(of: record.row, offset: 1),
                            mutationType: .delete,
                            version: record.table.name == table.name && recordIdentifier == identifier ? version : nil
                        )
                    )
                }
                result.deleted += 1
            }
            try Self.storeMetadata(key, version: version, deleted: true, lastChangedAt: lastChangedAt, db)
            // Records that came before this parent belong to a deleted record: nothing to apply.
            try db.cachedStatement(sql: "DELETE FROM \"\(SystemTables.orphans)\" WHERE \"parent\" = ?")
                .executeExactly([key.databaseValue])
            return
        }
        let record: StoredRecord
        do {
            record = try table.record(from: item)
        } catch {
            result.refused.append(Self.unreadable(table, item, error.message))
            return
        }
        if let parent = try missingParent(of: record, in: table, db) {
            // Subscriptions of different models deliver in no common order: the parent may come
            // next. The record waits for it.
            try Self.keepOrphan(
                item,
                table: table,
                key: key,
                parent: RecordKey(modelName: parent.table.name, identifier: parent.identifier),
                version: version,
                db
            )
            return
        }
        let rowid = try Self.rowid(table.statements.rowidByKey, record.keyValues, db)
        if let rowid {
            try db.cachedStatement(sql: table.statements.update).executeExactly(record.values + [rowid.databaseValue])
            result.updated += 1
        } else {
            try db.cachedStatement(sql: table.statements.insert).executeExactly(record.values)
            result.added += 1
        }
        try Self.storeMetadata(key, version: version, deleted: false, lastChangedAt: lastChangedAt, db)
        result.applied.append(
            MutationEvent(
                modelId: identifier,
                modelName: table.name,
                json: table.jsonText(of: record.values),
                mutationType: rowid == nil ? .create : .update,
                version: version
            )
        )
        try applyOrphans(of: key, db, &result)
    }

    /// Keeps `item`, which belongs to the record `parent` that is not stored yet, unless a newer
    /// one is kept already.
    static func keepOrphan(
        _ item: JSONValue,
        table: ModelTable,
        key: RecordKey,
        parent: RecordKey,
        version: Int?,
        _ db: Database
    ) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO "\(SystemTables.orphans)" ("id", "modelName", "parent", "json", "version")
                VALUES (?, ?, ?, ?, ?)
                ON CONFLICT ("id") DO UPDATE SET "parent" = excluded."parent", "json" = excluded."json",
                  "version" = excluded."version"
                WHERE coalesce(excluded."version", 0) >= coalesce("version", 0)
                """
        )
        .executeExactly([
            key.databaseValue, table.name.databaseValue, parent.databaseValue,
            try CanonicalJSON.text(of: item).databaseValue, version.databaseValue,
        ])
    }

    /// Applies the records that were waiting for the record `parent`, now stored, and forgets them.
    func applyOrphans(of parent: RecordKey, _ db: Database, _ result: inout ReconcileResult) throws {
        let rows = try db.cachedStatement(
            sql: "SELECT \"id\", \"modelName\", \"json\" FROM \"\(SystemTables.orphans)\" WHERE \"parent\" = ?"
        )
        .fetchExactRows([parent.databaseValue])
        for row in rows {
            guard let id = String.fromDatabaseValue(row[0]), let modelName = String.fromDatabaseValue(row[1]),
                let table = catalog.tables[modelName], let text = String.fromDatabaseValue(row[2])
            else { continue }
            try db.cachedStatement(sql: "DELETE FROM \"\(SystemTables.orphans)\" WHERE \"id\" = ?")
                .executeExactly([id.databaseValue])
            try reconcile(try JSONValue(parsing: text), table: table, db, &result)
        }
    }

    private static func unreadable(_ table: ModelTable, _ item: JSONValue, _ problem: String) -> DataStoreError {
        DataStoreError(
            .sync,
            "DataStore skipped a \(table.name) the backend sent (\(item.shortDescription)): \(problem) Make the "
                + "backend's schema and the generated models agree (regenerate them with `stratus codegen models`)."
        )
    }

    /// Keeps `item` for the record `key` unless a newer one is kept already.
    static func `defer`(_ item: JSONValue, table: ModelTable, key: RecordKey, version: Int?, _ db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO "\(SystemTables.deferred)" ("id", "modelName", "json", "version") VALUES (?, ?, ?, ?)
                ON CONFLICT ("id") DO UPDATE SET "json" = excluded."json", "version" = excluded."version"
                WHERE coalesce(excluded."version", 0) >= coalesce("version", 0)
                """
        )
        .executeExactly([
            key.databaseValue, table.name.databaseValue, try CanonicalJSON.text(of: item).databaseValue,
            version.databaseValue,
        ])
    }

    /// Applies the kept backend record of each of `keys` whose record has no pending event
    /// left, and forgets it.
    func applyDeferred(_ keys: Set<RecordKey>, _ db: Database, _ result: inout ReconcileResult) throws {
        for key in keys {
            let rows = try db.cachedStatement(
                sql: "SELECT \"json\" FROM \"\(SystemTables.deferred)\" WHERE \"id\" = ?"
            )
            .fetchExactRows([key.databaseValue])
            guard let row = rows.first, let table = catalog.tables[key.modelName],
                let text = String.fromDatabaseValue(row[0])
            else { continue }
            guard try !Outbox.hasPending(key, db) else { continue }
            try db.cachedStatement(sql: "DELETE FROM \"\(SystemTables.deferred)\" WHERE \"id\" = ?")
                .executeExactly([key.databaseValue])
            try reconcile(try JSONValue(parsing: text), table: table, db, &result)
        }
    }

    /// Applies the kept backend records of the records of `events` that have no pending event
    /// left: local changes merged away (a create and a delete) leave the backend's record.
    func applyDeferred(after events: [MutationEvent]) async throws(DataStoreError) -> ReconcileResult {
        let keys = Set(events.map(\.recordKey))
        // Almost always nothing is kept: a read says so without taking the write lock.
        let kept = try await read { db in
            try keys.contains { key in
                try !db.cachedStatement(sql: "SELECT 1 FROM \"\(SystemTables.deferred)\" WHERE \"id\" = ?")
                    .fetchExactRows([key.databaseValue]).isEmpty
            }
        }
        guard kept else { return ReconcileResult() }
        return try await write { db in
            var result = ReconcileResult()
            try self.applyDeferred(keys, db, &result)
            self.publishOnCommit(result.applied, db)
            return result
        }
    }

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

    // MARK: - Outbox

    /// Marks outbox events sent at least once, and returns the backend's `_version` of each
    /// one's record, when known.
    func beginSending(_ events: [MutationEvent]) async throws(DataStoreError) -> [Int?] {
        try await write { db in
            try events.map { event in
                try Outbox.markInProcess(event.id, db)
                return try Self.storedVersion(event.recordKey, db)
            }
        }
    }

    /// Ends an outbox event the backend answered: removes it and applies `item`, the
    /// backend's record, unless the record has newer pending events (then only its `_version`
    /// is kept, for the next one). `force` applies the record even when its version is not
    /// higher (the backend's record replaces a refused change).
    @discardableResult
    func finish(
        _ event: MutationEvent,
        item: JSONValue?,
        force: Bool = false
    ) async throws(DataStoreError) -> ReconcileResult {
        try await write { db in
            var result = ReconcileResult()
            try self.settle(event, item: item, force: force, db, &result)
            self.publishOnCommit(result.applied, db)
            return result
        }
    }

    /// What ``finish(_:item:force:)`` writes, inside the caller's transaction; observers are the
    /// caller's to tell of `result.applied`.
    func settle(
        _ event: MutationEvent,
        item: JSONValue?,
        force: Bool,
        _ db: Database,
        _ result: inout ReconcileResult
    ) throws {
        try Outbox.remove(event.id, db)
        let key = event.recordKey
        if let table = catalog.tables[event.modelName], let item {
            if try Outbox.hasPending(key, db) {
                if let version = item["_version"]?.intValue { try Self.raiseVersion(key, to: version, db) }
            } else {
                if force {
                    try db.cachedStatement(
                        sql: "UPDATE \"\(SystemTables.syncMetadata)\" SET \"version\" = NULL WHERE \"id\" = ?"
                    )
                    .executeExactly([key.databaseValue])
                }
                try reconcile(item, table: table, db, &result)
            }
        }
        try applyDeferred([key], db, &result)
    }

    /// Removes a local record the backend does not have (a refused create), without an
    /// outbox event, and the event itself.
    func dropLocal(_ event: MutationEvent) async throws(DataStoreError) -> Int {
        guard let table = catalog.tables[event.modelName] else { return 0 }
        return try await write { db in
            try Outbox.remove(event.id, db)
            if try !Outbox.hasPending(event.recordKey, db) {
                let keyValues = try table.keyValues(of: try JSONValue(parsing: event.json))
                if let rowid = try Self.rowid(table.statements.rowidByKey, keyValues, db) {
                    try db.cachedStatement(sql: table.statements.deleteByRowid).execute(arguments: [rowid])
                    let deleted = MutationEvent(
                        modelId: event.modelId,
                        modelName: event.modelName,
                        json: event.json,
                        mutationType: .delete
                    )
                    self.publishOnCommit([deleted], db)
                }
            }
            var result = ReconcileResult()
            try self.applyDeferred([event.recordKey], db, &result)
            self.publishOnCommit(result.applied, db)
            return try Outbox.count(db)
        }
    }

    /// The number of pending outbox events.
    func pendingCount() async throws(DataStoreError) -> Int {
        try await read { db in try Outbox.count(db) }
    }

    // MARK: - Per-model sync state

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
}

extension ModelTable {
    /// The primary-key values of the record `json`, as stored.
    ///
    /// - Throws: ``DataStoreError`` when a key field has no valid value.
    func keyValues(of json: JSONValue) throws(DataStoreError) -> [DatabaseValue] {
        var values: [DatabaseValue] = []
        for name in primaryKey {
            guard let value = json[name], !value.isNull,
                let stored = try ModelTable.databaseValue(value, kind: column(named: name)!.kind)
            else {
                throw DataStoreError(
                    .invalidModel,
                    "The \(self.name) has no valid value for its key field \(name), so it cannot name a stored record."
                )
            }
            values.append(stored)
        }
        return values
    }
}
