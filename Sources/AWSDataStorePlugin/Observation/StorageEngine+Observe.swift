import Amplify
import Foundation
import GRDB
import SQLiteExactText
import Synchronization

extension StorageEngine {
    /// Every committed change to models named `modelName`, from now on, in commit order.
    func observe(modelName: String) -> AsyncThrowingStream<MutationEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: MutationEvent.self)
        let hub = hub
        let id = hub.addObserver(
            modelName: modelName,
            receive: { notification in
                if case .mutation(let event) = notification { continuation.yield(event) }
            },
            finish: { continuation.finish() }
        )
        continuation.onTermination = { _ in hub.removeObserver(id) }
        return stream
    }

    /// Snapshots of the models of type `type` matching `predicate`: the current result first,
    /// then a new one after each committed change that may alter it.
    ///
    /// Changes that cannot alter the result (a record that neither matches the predicate nor is
    /// in the last snapshot) are skipped, and a burst of changes gives one new snapshot; the
    /// changes of one transaction arrive together and give one. Without
    /// a backend every snapshot is synced (`isSynced` is `true`); with one, `isSynced` turns true
    /// (with a new snapshot) when the model's sync query ends.
    func observeQuery<M: Model>(
        _ type: M.Type,
        where predicate: (any QueryPredicate)?,
        sort: QuerySortInput?
    ) -> AsyncThrowingStream<DataStoreQuerySnapshot<M>, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: DataStoreQuerySnapshot<M>.self)
        let table: ModelTable
        do {
            table = try catalog.table(for: M.self)
            // Reports a predicate or sort that does not fit the model before the first snapshot.
            let query = try SQLQuery(
                table: table,
                predicate: predicate,
                sort: sort,
                pagination: nil,
                conditions: conditions
            )
            conditions.release(query.tokens)
        } catch {
            continuation.finish(throwing: error)
            return stream
        }
        let tracker = SnapshotTracker(predicate: predicate, schema: table.schema)
        let (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let hub = hub
        let id = hub.addObserver(
            modelName: table.name,
            receive: { notification in
                switch notification {
                case .reset: signal.yield()
                case .mutation(let event):
                    // The next snapshot waits for the end of the transaction.
                    tracker.note(event)
                case .committed:
                    if tracker.takeChange() { signal.yield() }
                }
            },
            finish: { signal.finish() }
        )
        let task = Task {
            defer { hub.removeObserver(id) }
            do {
                var pending = true
                var iterator = signals.makeAsyncIterator()
                while pending {
                    tracker.beginQuery()
                    // A store that is closing ends the observation, as its closing hub does.
                    guard
                        let results = try await self.ifOpen({
                            try await self.queryWithIdentifiers(M.self, table: table, predicate, sort)
                        })
                    else { break }
                    tracker.endQuery(Set(results.map(\.identifier)))
                    continuation.yield(
                        DataStoreQuerySnapshot(
                            items: results.map(\.model),
                            isSynced: self.syncStatus.isSynced(table.name)
                        )
                    )
                    pending = await iterator.next() != nil
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in
            task.cancel()
            signal.finish()
        }
        return stream
    }

    /// The models matching `predicate`, each with its identifier.
    private func queryWithIdentifiers<M: Model>(
        _ type: M.Type,
        table: ModelTable,
        _ predicate: (any QueryPredicate)?,
        _ sort: QuerySortInput?
    ) async throws(DataStoreError) -> [(identifier: String, model: M)] {
        let keyColumns = table.primaryKey.map(\.quotedIdentifier).joined(separator: ", ")
        let query = try SQLQuery(
            table: table,
            selection: "\(keyColumns), \(table.statements.columnList)",
            predicate: predicate,
            sort: sort,
            pagination: nil,
            conditions: conditions
        )
        defer { conditions.release(query.tokens) }
        let keyCount = table.primaryKey.count
        return try await read { db in
            let decoder = self.makeDecoder()
            var results: [(identifier: String, model: M)] = []
            try db.cachedStatement(sql: query.sql).forEachExactRow(query.arguments) { row in
                let model = try table.decode(M.self, from: row, offset: keyCount, decoder: decoder)
                results.append((ModelTable.identifier(of: Array(row[0..<keyCount])), model))
            }
            return results
        }
    }
}

/// Decides which changes may alter an `observeQuery` result.
///
/// A change may alter it when its record matches the predicate now, or may be in the result:
/// in the last snapshot, or changed while the query for the next one ran.
final class SnapshotTracker: Sendable {
    private let predicate: (any QueryPredicate)?
    private let schema: ModelSchema
    private struct State {
        var identifiers: Set<String> = []
        var changedDuringQuery: Set<String> = []
        /// Whether a change of the transaction being told may alter the result.
        var changedInTransaction = false
    }
    private let state = Mutex(State())

    init(predicate: (any QueryPredicate)?, schema: ModelSchema) {
        self.predicate = predicate
        self.schema = schema
    }

    /// Whether `event` may alter the result; remembers its record when it may.
    func isAffected(by event: MutationEvent) -> Bool {
        let affected: Bool
        if let predicate, !state.withLock({ $0.identifiers.contains(event.modelId) }) {
            affected = mayMatch(event, predicate)
        } else {
            affected = true
        }
        if affected {
            state.withLock { state in
                state.identifiers.insert(event.modelId)
                state.changedDuringQuery.insert(event.modelId)
            }
        }
        return affected
    }

    /// Whether `event`'s record may match `predicate`: `true` when the predicate cannot be
    /// checked against it, for the next query decides then, and reports what it cannot read.
    private func mayMatch(_ event: MutationEvent, _ predicate: any QueryPredicate) -> Bool {
        do {
            return try predicate.evaluate(target: try JSONValue(parsing: event.json), schema: schema)
        } catch {
            return true
        }
    }

    /// Looks at a change of the transaction being told, remembering whether it may alter the
    /// result.
    func note(_ event: MutationEvent) {
        if isAffected(by: event) { state.withLock { $0.changedInTransaction = true } }
    }

    /// Whether a change of the transaction just told may alter the result; forgets it.
    func takeChange() -> Bool {
        state.withLock { state in
            defer { state.changedInTransaction = false }
            return state.changedInTransaction
        }
    }

    /// Marks the start of a query for the next snapshot.
    func beginQuery() {
        state.withLock { $0.changedDuringQuery = [] }
    }

    /// Records the identifiers of the records in the snapshot the query gave.
    func endQuery(_ identifiers: Set<String>) {
        state.withLock { state in
            state.identifiers = identifiers.union(state.changedDuringQuery)
        }
    }
}
