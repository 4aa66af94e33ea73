import Amplify
import Foundation
import GRDB
import SQLiteExactText

/// What a save writes, checked and encoded before the write transaction starts.
struct PreparedSave: Sendable {
    let table: ModelTable
    let record: StoredRecord
    /// The model as JSON text with sorted keys: its outbox event's `json`.
    let text: String
    let condition: SQLCondition?
    /// The condition as the GraphQL filter the outbox event carries.
    let filter: String?
}

/// The changes one write transaction made so far: the events observers hear of once it
/// commits, and those of them the outbox holds.
struct LocalChange {
    var events: [MutationEvent] = []
    var enqueued: [MutationEvent] = []
    /// The parents the transaction found stored, so that the saves of many children of one
    /// parent look it up once; a deletion forgets them all, as it may have removed one.
    var storedParents: Set<RecordKey> = []
}

extension StorageEngine {
    /// Creates or updates `model`; with a `condition`, updates it only when the stored record
    /// matches. The record, its sync metadata and its outbox event are written in one
    /// transaction, and observers hear of the change once it commits.
    ///
    /// - Throws: ``DataStoreError``: ``DataStoreError/Code/invalidModel`` when the model does
    ///   not fit its schema or belongs to a parent that is not saved,
    ///   ``DataStoreError/Code/invalidCondition`` for a condition on a record that does not exist
    ///   (a create), ``DataStoreError/Code/conditionalSaveFailed`` when the stored record does not
    ///   match.
    func save<M: Model>(_ model: M, where condition: (any QueryPredicate)?) async throws(DataStoreError) -> M {
        let prepared = try prepareSave(model, where: condition)
        defer { conditions.release(prepared.condition?.tokens ?? []) }
        try await write { db in
            var change = LocalChange()
            try self.writeSave(prepared, transaction: nil, db, &change)
            try self.publishLocalChange(change.events, enqueued: change.enqueued, db)
        }
        return model
    }

    /// Encodes `model` and translates `condition`; the caller releases `condition`'s tokens
    /// (``InMemoryConditions/release(_:)``) once the save is written.
    ///
    /// - Throws: ``DataStoreError`` as ``save(_:where:)`` throws it, for what can be told
    ///   without the stored record.
    func prepareSave<M: Model>(
        _ model: M,
        where condition: (any QueryPredicate)?
    ) throws(DataStoreError)
        -> PreparedSave
    {
        let table = try catalog.table(for: M.self)
        let (json, text) = try Self.encode(model)
        let record = try table.record(from: json)
        let sqlCondition = try condition.map { predicate throws(DataStoreError) in
            try SQLCondition(predicate, table: table, conditions: conditions)
        }
        do {
            let filter = try Self.filterText(of: condition, table: table, identifier: record.identifier, action: "save")
            return PreparedSave(table: table, record: record, text: text, condition: sqlCondition, filter: filter)
        } catch {
            conditions.release(sqlCondition?.tokens ?? [])
            throw error
        }
    }

    /// Writes a prepared save inside the caller's transaction: the record, its sync metadata
    /// and its outbox event (marked as part of `transaction`, when given), adding its event to
    /// `change`. Observers are the caller's to tell, once the transaction commits.
    func writeSave(_ save: PreparedSave, transaction: String?, _ db: Database, _ change: inout LocalChange) throws {
        let table = save.table
        let record = save.record
        let rowid = try Self.rowid(table.statements.rowidByKey, record.keyValues, db)
        if let sqlCondition = save.condition {
            guard let rowid else {
                throw DataStoreError(
                    .invalidCondition,
                    "\(table.name) '\(record.identifier)' is not saved yet, and a condition applies only to "
                        + "updates. Save the new \(table.name) without a condition."
                )
            }
            try Self.check(sqlCondition, on: rowid, in: table, db, action: "saved")
        }
        try checkParents(of: record, in: table, db, known: &change.storedParents)
        if let rowid {
            try db.cachedStatement(sql: table.statements.update).executeExactly(
                record.values + [rowid.databaseValue]
            )
        } else {
            try db.cachedStatement(sql: table.statements.insert).executeExactly(record.values)
        }
        let version = try SystemTables.markRecord(
            RecordKey(modelName: table.name, identifier: record.identifier),
            deleted: false,
            db
        )
        let event = MutationEvent(
            modelId: record.identifier,
            modelName: table.name,
            json: save.text,
            mutationType: rowid == nil ? .create : .update,
            version: version,
            graphQLFilterJSON: save.filter
        )
        change.events.append(event)
        if try Outbox.enqueue(event, transaction: transaction, db) == .pending { change.enqueued.append(event) }
    }

    /// The model as a JSON object and as JSON text with sorted keys.
    static func encode<M: Model>(_ model: M) throws(DataStoreError) -> (JSONValue, String) {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let data = try encoder.encode(model)
            return (try JSONValue(parsing: data), String(decoding: data, as: UTF8.self))
        } catch {
            throw DataStoreError(
                .invalidModel,
                "The \(M.modelName) cannot be encoded as JSON: \(error). Check the values of its fields; a Double "
                    + "cannot be infinite or NaN."
            )
        }
    }

    /// The rowid that `sql` (a `rowidByKey` statement) selects for the key `keyValues`.
    static func rowid(_ sql: String, _ keyValues: [DatabaseValue], _ db: Database) throws -> Int64? {
        try db.cachedStatement(sql: sql).fetchExactRows(keyValues).first.flatMap { Int64.fromDatabaseValue($0[0]) }
    }

    /// The GraphQL filter of `condition`, as the outbox stores it for the backend.
    ///
    /// - Throws: ``DataStoreError`` with ``DataStoreError/Code/invalidCondition`` naming the
    ///   record when the filter compares with a number JSON cannot write (infinite or NaN).
    static func filterText(
        of condition: (any QueryPredicate)?,
        table: ModelTable,
        identifier: String,
        action: String
    ) throws(DataStoreError) -> String? {
        guard let filter = condition?.graphQLFilter(for: table.schema) else { return nil }
        do {
            return try CanonicalJSON.text(of: filter)
        } catch {
            throw DataStoreError(
                .invalidCondition,
                "The condition of the \(action) of \(table.name) '\(identifier)' cannot be sent to the backend: it "
                    + "compares with an infinite or NaN number, which a GraphQL filter cannot hold. Compare with "
                    + "finite numbers."
            )
        }
    }

    /// Throws ``DataStoreError/Code/conditionalSaveFailed`` unless the record at `rowid`
    /// matches `condition`.
    static func check(
        _ condition: SQLCondition,
        on rowid: Int64,
        in table: ModelTable,
        _ db: Database,
        action: String
    )
        throws
    {
        let matches = try db.makeStatement(
            sql: "SELECT 1 FROM \(table.name.quotedIdentifier) WHERE rowid = ? AND (\(condition.sql))"
        )
        .fetchExactRows([rowid.databaseValue] + condition.arguments)
        guard !matches.isEmpty else {
            throw DataStoreError(
                .conditionalSaveFailed,
                "The stored \(table.name) does not match the condition, so it was not \(action). Query it again "
                    + "and retry with a condition it matches."
            )
        }
    }

    /// Throws ``DataStoreError/Code/invalidModel`` when the record belongs to a parent that is
    /// not saved.
    /// `known` holds parents found stored before in the same transaction, and gains those
    /// found now.
    func checkParents(
        of record: StoredRecord,
        in table: ModelTable,
        _ db: Database,
        known: inout Set<RecordKey>
    ) throws {
        if let missing = try missingParent(of: record, in: table, db, known: &known) {
            throw DataStoreError(
                .invalidModel,
                "\(table.name) '\(record.identifier)' belongs to \(missing.table.name) '\(missing.identifier)' "
                    + "(\(missing.foreignKey.columns.joined(separator: ", "))), which is not saved. Save the "
                    + "\(missing.table.name) first, or set \(missing.foreignKey.field) to a saved one."
            )
        }
    }

    /// The first parent the record belongs to that is not stored, if any.
    func missingParent(
        of record: StoredRecord,
        in table: ModelTable,
        _ db: Database
    ) throws -> (table: ModelTable, identifier: String, foreignKey: TableForeignKey)? {
        var known: Set<RecordKey> = []
        return try missingParent(of: record, in: table, db, known: &known)
    }

    /// The first parent the record belongs to that is not stored, if any, looking up only the
    /// parents not in `known`, and adding those found.
    func missingParent(
        of record: StoredRecord,
        in table: ModelTable,
        _ db: Database,
        known: inout Set<RecordKey>
    ) throws -> (table: ModelTable, identifier: String, foreignKey: TableForeignKey)? {
        for foreignKey in table.foreignKeys {
            let values = foreignKey.columns.map { record.values[table.columnIndex[$0]!] }
            if values.contains(where: \.isNull) { continue }
            guard let parent = catalog.tables[foreignKey.parentTable] else { continue }
            let key = RecordKey(modelName: parent.name, identifier: ModelTable.identifier(of: values))
            if known.contains(key) { continue }
            if try Self.rowid(parent.statements.rowidByKey, values, db) == nil {
                return (parent, key.identifier, foreignKey)
            }
            known.insert(key)
        }
        return nil
    }
}
