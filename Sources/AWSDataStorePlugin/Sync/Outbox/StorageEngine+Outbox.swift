import Amplify
import GRDB
import SQLiteExactText

/// The outbox's bookkeeping besides the outbox loop's rounds
/// (``StorageEngine/outboxRound(settling:take:excluding:)``).
extension StorageEngine {
    /// The pending outbox events, oldest first.
    func outboxEvents() async throws(DataStoreError) -> [MutationEvent] {
        try await read { db in try Outbox.events(db) }
    }

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
                let applied = result.applied.count
                try reconcile(item, table: table, db, &result)
                if force, !result.applied[applied...].contains(where: { $0.recordKey == key }) {
                    try dropRefusedRecord(event, table: table, db, &result)
                }
            }
        }
        try applyDeferred([key], db, &result)
    }

    /// Removes the local record of the refused `event` when the backend's record that replaces
    /// it waits for a parent this device does not hold (``keepOrphan(_:table:key:parent:version:_:)``;
    /// a parent the backend deleted never comes): the refused values, which the backend never
    /// had, do not stay on the device.
    private func dropRefusedRecord(
        _ event: MutationEvent,
        table: ModelTable,
        _ db: Database,
        _ result: inout ReconcileResult
    ) throws {
        let key = event.recordKey
        let waits = try Row.fetchOne(
            db,
            sql: "SELECT 1 FROM \"\(SystemTables.orphans)\" WHERE \"id\" = ?",
            arguments: [key.databaseValue]
        )
        guard waits != nil else { return }
        let keyValues = try table.keyValues(of: try JSONValue(parsing: event.json))
        guard let rowid = try Self.rowid(table.statements.rowidByKey, keyValues, db) else { return }
        try db.cachedStatement(sql: table.statements.deleteByRowid).execute(arguments: [rowid])
        result.applied.append(
            MutationEvent(modelId: event.modelId, modelName: event.modelName, json: event.json, mutationType: .delete)
        )
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
}
