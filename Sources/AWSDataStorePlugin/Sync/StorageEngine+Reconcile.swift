import Amplify
import GRDB
import SQLiteExactText

extension StorageEngine {
    /// Applies records the backend sent, in one transaction: a record is written only when its
    /// `_version` is higher than the stored one and it has no pending outbox event (the local
    /// change wins until the backend has it); a `_deleted` record is removed with its children.
    /// Observers hear of the changes once the transaction commits.
    ///
    /// A record that does not fit its model is skipped and reported in
    /// ``ReconcileResult/refused``. A record that belongs to a parent that is not stored waits
    /// for it (in `_stratus_orphans`) and is applied when the parent arrives.
    ///
    /// With `sameVersionToo` (the base sync after a schema change), a record at the stored
    /// `_version` is written too: the stored one lacks the fields the change added.
    func reconcile(
        _ items: [JSONValue],
        modelName: String,
        sameVersionToo: Bool = false
    ) async throws(DataStoreError) -> ReconcileResult {
        guard let table = catalog.tables[modelName] else {
            throw DataStoreError(.sync, "The backend sent a \(modelName), which this DataStore does not store.")
        }
        return try await write { db in
            var result = ReconcileResult()
            for item in items {
                try self.reconcile(item, table: table, sameVersionToo: sameVersionToo, db, &result)
            }
            self.publishOnCommit(result.applied, db)
            return result
        }
    }

    /// Applies one record of the backend; see ``reconcile(_:modelName:)``.
    func reconcile(
        _ item: JSONValue,
        table: ModelTable,
        sameVersionToo: Bool = false,
        _ db: Database,
        _ result: inout ReconcileResult
    ) throws {
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
        if let version, let stored = try Self.storedVersion(key, db),
            version < stored || (version == stored && !sameVersionToo)
        {
            return
        }
        if item["_deleted"]?.booleanValue ?? false {
            try applyDeletion(item, of: key, table: table, version: version, db, &result)
        } else {
            try applyRecord(item, of: key, table: table, version: version, db, &result)
        }
    }

    /// Removes the record `key` the backend deleted, with its children, and forgets the records
    /// that waited for it.
    private func applyDeletion(
        _ item: JSONValue,
        of key: RecordKey,
        table: ModelTable,
        version: Int?,
        _ db: Database,
        _ result: inout ReconcileResult
    ) throws {
        let keyValues = try table.keyValues(of: item)
        if let rowid = try Self.rowid(table.statements.rowidByKey, keyValues, db) {
            let row = try db.cachedStatement(
                sql: "SELECT rowid, \(table.statements.columnList) FROM \(table.name.quotedIdentifier) WHERE rowid = ?"
            )
            .fetchExactRows([rowid.databaseValue])
            for record in try CascadeDelete(catalog: catalog).plan(row, in: table, db) {
                try db.cachedStatement(sql: record.table.statements.deleteByRowid).execute(arguments: [record.rowid])
                let recordKey = record.table.primaryKey.map { record.row[1 + record.table.columnIndex[$0]!] }
                let removed = RecordKey(modelName: record.table.name, identifier: ModelTable.identifier(of: recordKey))
                _ = try SystemTables.markRecord(removed, deleted: true, db)
                result.applied.append(
                    MutationEvent(
                        modelId: removed.identifier,
                        modelName: removed.modelName,
                        json: record.table.jsonText(of: record.row, offset: 1),
                        mutationType: .delete,
                        version: removed == key ? version : nil
                    )
                )
            }
            result.deleted += 1
        }
        let lastChangedAt = item["_lastChangedAt"]?.intValue
        try Self.storeMetadata(key, version: version, deleted: true, lastChangedAt: lastChangedAt, db)
        // Records that came before this parent belong to a deleted record: nothing to apply.
        try db.cachedStatement(sql: "DELETE FROM \"\(SystemTables.orphans)\" WHERE \"parent\" = ?")
            .executeExactly([key.databaseValue])
    }

    /// Writes the record `key` the backend sent, and applies the records that waited for it;
    /// a record whose parent is not stored yet waits for it instead.
    private func applyRecord(
        _ item: JSONValue,
        of key: RecordKey,
        table: ModelTable,
        version: Int?,
        _ db: Database,
        _ result: inout ReconcileResult
    ) throws {
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
        let lastChangedAt = item["_lastChangedAt"]?.intValue
        try Self.storeMetadata(key, version: version, deleted: false, lastChangedAt: lastChangedAt, db)
        result.applied.append(
            MutationEvent(
                modelId: key.identifier,
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
}
