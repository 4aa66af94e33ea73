import Amplify
import Foundation
import GRDB

extension StorageEngine {
    /// Runs `body` in one write transaction, handing it a ``StoreTransaction`` whose saves and
    /// deletes take the paths single ones take (``writeSave(_:transaction:_:_:)``,
    /// ``writeDelete(_:transaction:_:_:)``) inside it.
    ///
    /// The records, their sync metadata and their outbox events commit together, or roll back
    /// together when `body` throws or one of its writes failed (even when `body` caught that
    /// failure: the transaction cannot commit half of a write). The outbox events carry the
    /// transaction's identifier, so that they are sent in its order and merge with no other
    /// event. Observers hear of every change at once, after the commit.
    ///
    /// - Throws: the failed write's ``DataStoreError``, naming its index and record, or what
    ///   `body` throws; database errors translated to ``DataStoreError``.
    func transaction<T: Sendable>(
        _ body: @Sendable (any DataStoreTransaction) throws -> T
    ) async throws -> T {
        do {
            let trace = outboxTrace()
            return try await pool.write { db in
                try OutboxTrace.$current.withValue(trace) {
                    let transaction = StoreTransaction(engine: self, db: db)
                    defer { transaction.end() }
                    let value = try body(transaction)
                    if let failure = transaction.failure { throw failure }
                    try self.publishLocalChange(transaction.change.events, enqueued: transaction.change.enqueued, db)
                    return value
                }
            }
        } catch let error as DataStoreError {
            throw error
        } catch let error as DatabaseError {
            throw Self.translate(error, url: url)
        }
    }
}

/// The ``DataStoreTransaction`` of the SQLite store: the writer's connection inside one write
/// transaction, and what the transaction wrote so far.
///
/// Used on the writer's queue only, inside ``StorageEngine/transaction(_:)``.
final class StoreTransaction: DataStoreTransaction {
    private let engine: StorageEngine
    private let db: Database
    /// The identifier the transaction's outbox events carry.
    let identifier = UUID().uuidString
    /// The events of the writes so far, for observers and the outbox's listener.
    private(set) var change = LocalChange()
    /// The first write that failed: the transaction rolls back.
    private(set) var failure: DataStoreError?
    /// How many writes were made, failed ones included: the index of the next.
    private var writeCount = 0
    private var isOpen = true

    init(engine: StorageEngine, db: Database) {
        self.engine = engine
        self.db = db
    }

    /// Marks the transaction over: a later call stops the program.
    func end() { isOpen = false }

    @discardableResult
    func save<M: Model>(_ model: M, where condition: (any QueryPredicate)?) throws -> M {
        try perform("the save of \(M.modelName) '\(model.identifier)'") { change throws in
            let prepared = try engine.prepareSave(model, where: condition)
            defer { engine.conditions.release(prepared.condition?.tokens ?? []) }
            try engine.writeSave(prepared, transaction: identifier, db, &change)
        }
        return model
    }

    func delete<M: Model>(_ model: M, where predicate: (any QueryPredicate)?) throws {
        try perform("the delete of \(M.modelName) '\(model.identifier)'") { change throws in
            let table = try engine.catalog.table(for: M.self)
            let (json, _) = try StorageEngine.encode(model)
            try delete(table, identifier: try table.identifier(of: json), predicate, &change)
        }
    }

    func delete<M: Model>(_ modelType: M.Type, withId id: String, where predicate: (any QueryPredicate)?) throws {
        try perform("the delete of \(M.modelName) '\(id)'") { change throws in
            try delete(try engine.catalog.table(for: M.self), identifier: id, predicate, &change)
        }
    }

    func delete<M: Model>(_ modelType: M.Type, where predicate: any QueryPredicate) throws {
        try perform("the delete of the \(M.modelName) records matching a predicate") { change throws in
            let table = try engine.catalog.table(for: M.self)
            let query = try engine.deleteQuery(from: table, where: predicate)
            defer { engine.conditions.release(query.tokens) }
            try engine.writeDelete(query, in: table, transaction: identifier, db, &change)
        }
    }

    func query<M: Model>(_ modelType: M.Type, byId id: String) throws -> M? {
        checkOpen()
        let table = try engine.catalog.table(for: M.self)
        let condition = table.identifierCondition(id)
        let sql = "SELECT \(table.statements.columnList) FROM \(table.name.quotedIdentifier) WHERE \(condition.sql)"
        return try read { try engine.fetch(M.self, table: table, sql, condition.arguments, db).first }
    }

    func query<M: Model>(
        _ modelType: M.Type,
        where predicate: (any QueryPredicate)?,
        sort sortInput: QuerySortInput?,
        paginate paginationInput: QueryPaginationInput?
    ) throws -> [M] {
        checkOpen()
        let table = try engine.catalog.table(for: M.self)
        let query = try SQLQuery(
            table: table,
            predicate: predicate,
            sort: sortInput,
            pagination: paginationInput,
            conditions: engine.conditions
        )
        defer { engine.conditions.release(query.tokens) }
        return try read { try engine.fetch(M.self, table: table, query.sql, query.arguments, db) }
    }

    private func delete(
        _ table: ModelTable,
        identifier: String,
        _ predicate: (any QueryPredicate)?,
        _ change: inout LocalChange
    ) throws {
        let prepared = try engine.prepareDelete(from: table, identifier: identifier, where: predicate)
        defer { engine.conditions.release(prepared.condition?.tokens ?? []) }
        try engine.writeDelete(prepared, transaction: self.identifier, db, &change)
    }

    /// Runs the write `what` describes, or throws the error that names it: its index in the
    /// transaction, its record and the reason. After a failed write, every later one fails too,
    /// naming the first.
    ///
    /// `what` is worked out only for an error: a model's `identifier` encodes the model, which
    /// cost a fifth of a transaction's saves when every save described itself.
    private func perform(_ what: @autoclosure () -> String, _ write: (inout LocalChange) throws -> Void) throws {
        checkOpen()
        let index = writeCount
        writeCount += 1
        if let failure {
            throw DataStoreError(
                .invalidOperation,
                "Write \(index) of the transaction (\(what())) was not made: an earlier write failed, so the "
                    + "transaction rolls back. \(failure.message)"
            )
        }
        do {
            try write(&change)
        } catch {
            let cause = StorageEngine.translate(error, url: engine.url)
            let failure = DataStoreError(
                cause.code,
                "Write \(index) of the transaction (\(what())) failed, so the transaction rolled back and wrote "
                    + "nothing: \(cause.message)"
            )
            self.failure = failure
            throw failure
        }
    }

    /// Runs a read, its database errors translated.
    private func read<T>(_ value: () throws -> T) throws(DataStoreError) -> T {
        do {
            return try value()
        } catch {
            throw StorageEngine.translate(error, url: engine.url)
        }
    }

    private func checkOpen() {
        precondition(
            isOpen,
            "A DataStoreTransaction was used after its transaction ended. Use it only inside the closure "
                + "given to DataStore.transaction(_:)."
        )
    }
}
