import Amplify
import Foundation
import GRDB
import Metrics
import Synchronization
import Tracing

/// The on-device store: one SQLite database in WAL mode, a table per model, and the system
/// tables (see ``SystemTables``).
///
/// Every public operation is one transaction: a save writes the record, its sync metadata and
/// its outbox event together, a delete writes every cascaded deletion together, and observers
/// hear of the changes once they are committed.
final class StorageEngine: Sendable {
    /// The database file.
    let url: URL
    /// The connections.
    let pool: DatabasePool
    /// The model tables.
    let catalog: ModelCatalog
    /// Observers of committed changes.
    let hub = MutationEventHub()
    /// Which models are synced, when a backend is configured.
    let syncStatus = SyncStatus()
    /// Told of the outbox events of each committed local change: the sync engine's wake-up.
    let outboxListener = Mutex<OutboxListener?>(nil)
    /// How many write transactions took an ``OutboxSnapshot``: the stamp of the next one.
    let outboxStamps = Atomic<UInt64>(0)
    /// Predicate operations that queries leave to the in-memory evaluator.
    let conditions: InMemoryConditions
    /// The calls using the store, which closing waits for.
    let uses = StoreUses()
    /// Where messages go.
    let log: @Sendable (DataStoreConfiguration.LogEntry) -> Void
    /// The device-health metrics; `nil` without a metrics backend.
    let metrics: DataStoreMetrics?
    /// What makes DataStore's spans; `nil` without a tracer (see ``OutboxTrace``).
    let tracer: (any Tracer)?

    private init(
        url: URL,
        pool: DatabasePool,
        catalog: ModelCatalog,
        conditions: InMemoryConditions,
        log: @escaping @Sendable (DataStoreConfiguration.LogEntry) -> Void,
        metrics: DataStoreMetrics?,
        tracer: (any Tracer)?
    ) {
        self.url = url
        self.pool = pool
        self.catalog = catalog
        self.conditions = conditions
        self.log = log
        self.metrics = metrics
        self.tracer = tracer
    }

    /// Opens the store at `configuration.databaseURL` (or the default path), creating it when
    /// there is no file and migrating its tables when `registryVersion` differs from the one
    /// they were made for.
    ///
    /// - Throws: ``DataStoreError`` with ``DataStoreError/Code/invalidDatabase`` when the file is
    ///   not DataStore's or is corrupted (the file is left untouched), or
    ///   ``DataStoreError/Code/storage`` when SQLite fails.
    static func open(
        catalog: ModelCatalog,
        registryVersion: String,
        configuration: DataStoreConfiguration
    ) throws(DataStoreError) -> StorageEngine {
        let url = configuration.databaseURL ?? DataStoreConfiguration.defaultDatabaseURL()
        try DatabaseFile.rollBackInterruptedTransaction(url)
        let contents = try DatabaseFile.inspect(url)
        if contents != .dataStore {
            do {
                try DatabaseFile.create(url)
            } catch {
                throw DataStoreError(
                    .storage,
                    "DataStore cannot create its database at '\(url.path)': \(error). Check that the directory is "
                        + "writable, or give DataStoreConfiguration(databaseURL:) another path."
                )
            }
            // Another store may have put its file there first; it is checked like any other.
            _ = try DatabaseFile.inspect(url)
        }
        let check = try DatabaseFile.check(
            url,
            integrity: configuration.checksIntegrityOnOpen && contents == .dataStore
        )
        let conditions = InMemoryConditions()
        var grdb = Configuration()
        grdb.foreignKeysEnabled = true
        grdb.busyMode = .timeout(10)
        let synchronous = configuration.durability == .full ? "FULL" : "NORMAL"
        let function = conditions.function
        grdb.prepareDatabase { db in
            db.add(function: function)
            for collation in TemporalCollations.all { db.add(collation: collation) }
            if !db.configuration.readonly {
                try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
            }
        }
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: url.path, configuration: grdb)
        } catch {
            throw translate(error, url: url)
        }
        let engine = StorageEngine(
            url: url,
            pool: pool,
            catalog: catalog,
            conditions: conditions,
            log: configuration.log,
            metrics: DataStoreMetrics(
                factory: configuration.metricsFactory ?? MetricsSystem.factory,
                modelNames: catalog.modelNames
            ),
            tracer: Self.tracer(configuration.tracer ?? InstrumentationSystem.tracer)
        )
        do {
            try pool.write { db in try SystemTables.createLaterTables(db) }
        } catch {
            throw translate(error, url: url)
        }
        try engine.prepareTables(storedVersion: check.registryVersion, registryVersion: registryVersion)
        engine.reportOutbox()
        return engine
    }

    /// Migrates the model tables when the registration's version changed or a table is missing.
    private func prepareTables(storedVersion: String?, registryVersion: String) throws(DataStoreError) {
        do {
            let upToDate = try pool.read { db in
                try storedVersion == registryVersion && catalog.modelNames.allSatisfy { try db.tableExists($0) }
            }
            if upToDate { return }
            let migrator = SchemaMigrator(catalog: catalog, log: log)
            try pool.barrierWriteWithoutTransaction { db in
                try db.execute(sql: "PRAGMA foreign_keys = OFF")
                do {
                    try db.inTransaction {
                        try migrator.migrate(db, from: storedVersion, to: registryVersion)
                        return .commit
                    }
                } catch {
                    // The migration's error is the one to report: the store does not open, and this
                    // connection closes with it, so turning the checks back on is only tidiness.
                    try? db.execute(sql: "PRAGMA foreign_keys = ON")
                    throw error
                }
                try db.execute(sql: "PRAGMA foreign_keys = ON")
            }
        } catch {
            throw Self.translate(error, url: url)
        }
    }

    /// Closes the database and ends every observation.
    func close() {
        hub.close()
        do {
            try pool.close()
        } catch {
            log(.init(level: .warning, message: "Closing the database at '\(url.path)' failed: \(error)"))
        }
    }

    // MARK: - Transactions

    /// `tracer`, or `nil` for the no-op tracer: DataStore then makes no span and stores no trace.
    private static func tracer(_ tracer: any Tracer) -> (any Tracer)? {
        tracer is NoOpTracer ? nil : tracer
    }

    /// Runs `updates` in one write transaction.
    ///
    /// - Throws: what `updates` throws, database errors translated to ``DataStoreError``.
    func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws(DataStoreError) -> T {
        do {
            guard let trace = outboxTrace() else { return try await pool.write(updates) }
            return try await pool.write { db in try OutboxTrace.$current.withValue(trace) { try updates(db) } }
        } catch {
            throw Self.translate(error, url: url)
        }
    }

    /// The current span's context for the outbox events of a write, when DataStore traces: the
    /// writer runs the write on a thread of its own, which the caller's context does not reach,
    /// so the write binds ``OutboxTrace/current`` to it there.
    func outboxTrace() -> String? {
        tracer.flatMap(OutboxTrace.capture)
    }

    /// Runs `value` in one read transaction.
    ///
    /// - Throws: what `value` throws, database errors translated to ``DataStoreError``.
    func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws(DataStoreError) -> T {
        do {
            return try await pool.read(value)
        } catch {
            throw Self.translate(error, url: url)
        }
    }

    /// Publishes `events` to observers once the current transaction commits.
    func publishOnCommit(_ events: [MutationEvent], _ db: Database) {
        let hub = hub
        db.afterNextTransaction { _ in hub.publish(events) }
    }

    /// Publishes the events of a local change to observers once the current transaction
    /// commits, and tells the sync engine which of them are in the outbox (`enqueued`) and what
    /// the outbox holds then.
    ///
    /// - Throws: the database's error when the outbox cannot be read.
    func publishLocalChange(_ events: [MutationEvent], enqueued: [MutationEvent], _ db: Database) throws {
        let hub = hub
        let listener = outboxListener.withLock { $0 }
        let snapshot = try listener.map { _ in try outboxSnapshot(db) }
        reportOutbox(db)
        db.afterNextTransaction { _ in
            hub.publish(events)
            if let listener, let snapshot {
                listener.call(OutboxChange(events: events, enqueued: enqueued, snapshot: snapshot))
            }
        }
    }

    /// A `DataStoreError` for any error.
    static func translate(_ error: any Error, url: URL) -> DataStoreError {
        if let error = error as? DataStoreError { return error }
        guard let error = error as? DatabaseError else { return DataStoreError(error) }
        switch error.resultCode {
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            return DatabaseFile.corrupted(url, error.message ?? "\(error)")
        case .SQLITE_FULL:
            return DataStoreError(
                .storage,
                "The disk holding the DataStore database at '\(url.path)' is full. Free some space and try again."
            )
        case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM:
            return DataStoreError(
                .storage,
                "DataStore cannot write its database at '\(url.path)' (\(error.message ?? "\(error)")). "
                    + "Check the file's permissions."
            )
        default:
            return DataStoreError(.storage, "SQLite failed on the DataStore database at '\(url.path)': \(error)")
        }
    }

    /// A decoder whose lists and references load through this store.
    func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.userInfo[.modelRelationLoader] = StoreRelationLoader(engine: self)
        return decoder
    }

    // MARK: - Clear

    /// Deletes every record, the outbox and the sync metadata; observers requery.
    ///
    /// - Returns: How many outbox events (changes the backend had not confirmed) and records
    ///   were deleted.
    func clear() async throws(DataStoreError) -> DataStoreClearedEvent {
        let tables = catalog.modelNames
        let hub = hub
        return try await write { db in
            // Counted before deleting: a parent's deletion cascades to its children, which
            // SQLite's count of changes leaves out.
            var records = 0
            for table in tables {
                records += try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table.quotedIdentifier)") ?? 0
            }
            let changes = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"\(Outbox.table)\"") ?? 0
            for table in tables {
                try db.execute(sql: "DELETE FROM \(table.quotedIdentifier)")
            }
            try db.execute(sql: "DELETE FROM \"\(Outbox.table)\"")
            try db.execute(sql: "DELETE FROM \"\(SystemTables.syncMetadata)\"")
            try db.execute(sql: "DELETE FROM \"\(SystemTables.modelSync)\"")
            try db.execute(sql: "DELETE FROM \"\(SystemTables.deferred)\"")
            try db.execute(sql: "DELETE FROM \"\(SystemTables.orphans)\"")
            db.afterNextTransaction { _ in hub.publishReset() }
            self.reportOutbox(db)
            return DataStoreClearedEvent(discardedChanges: changes, removedRecords: records)
        }
    }
}

/// What the sync engine wants called with the local changes a transaction committed.
///
/// A struct around the closure, not the closure itself, sits in the `Mutex`: an `inout` access
/// to a function value stored at a generic abstraction writes back a reabstracted copy, and
/// every read then added two thunks to the chain every later call walks through (the outbox
/// slowed down with each save).
struct OutboxListener: Sendable {
    let call: @Sendable (OutboxChange) -> Void
}
