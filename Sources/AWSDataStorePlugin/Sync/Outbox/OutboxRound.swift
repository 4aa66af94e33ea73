import Amplify
import GRDB

/// An outbox event the backend accepted, with the record it answered.
struct AcceptedEvent: Sendable {
    let event: MutationEvent
    let item: JSONValue
}

/// An outbox event to send: marked as sent at least once, as it is stored now, with the
/// backend's `_version` of its record when known.
struct TakenEvent: Sendable {
    let event: MutationEvent
    let version: Int?
    /// The fields the model gained after the event was made (a schema change).
    var unknownFields: Set<String> = []
    /// When the outbox sends transactions whole, the events of the transaction after this one,
    /// taken with it, in order.
    var siblings: [TakenEvent] = []
    /// The trace context the event keeps, when DataStore traces (``OutboxTrace``).
    var traceContext: String?

    /// The records of the event and its siblings.
    var recordKeys: [RecordKey] { [event.recordKey] + siblings.map(\.event.recordKey) }
}

/// What one round of the outbox did: see ``StorageEngine/outboxRound(settling:take:excluding:)``.
struct OutboxRound: Sendable {
    /// For each accepted event, in order: what applying the backend's record did, or why it
    /// could not be applied (the event then stays in the outbox, to be sent again under its key).
    var settled: [Result<ReconcileResult, DataStoreError>] = []
    /// The events to send now.
    var taken: [TakenEvent] = []
    /// The outbox once the round is over.
    var snapshot = OutboxSnapshot(stamp: 0, isEmpty: false)

    /// Whether the outbox holds no event once the round is over.
    var isEmpty: Bool { snapshot.isEmpty }
}

extension StorageEngine {
    /// The outbox's bookkeeping for several events in one write transaction: settles each event
    /// the backend accepted (as ``finish(_:item:force:)`` does, each in a savepoint of its own, so
    /// one that fails leaves the others settled), then takes up to `limit` events to send, the
    /// oldest of each record that is not in `inFlight`, and marks them as
    /// sent at least once: later changes queue behind them instead of merging into them.
    ///
    /// The record of a settled event may give its next event in the same round. Observers hear
    /// of the applied records once the transaction commits.
    ///
    /// - Throws: ``DataStoreError`` when the transaction fails as a whole: nothing is settled or
    ///   taken, and the accepted events stay in the outbox.
    func outboxRound(
        settling accepted: [AcceptedEvent],
        take limit: Int,
        excluding inFlight: Set<RecordKey>,
        wholeTransactions: Bool = false
    ) async throws(DataStoreError) -> OutboxRound {
        let url = url
        return try await write { db in
            var round = OutboxRound()
            var applied: [MutationEvent] = []
            var unsettled: Set<RecordKey> = []
            for accepted in accepted {
                var result = ReconcileResult()
                do {
                    try db.inSavepoint {
                        result = ReconcileResult()
                        try self.settle(accepted.event, item: accepted.item, force: false, db, &result)
                        return .commit
                    }
                    applied += result.applied
                    round.settled.append(.success(result))
                } catch {
                    unsettled.insert(accepted.event.recordKey)
                    round.settled.append(.failure(Self.translate(error, url: url)))
                }
            }
            self.publishOnCommit(applied, db)
            if limit > 0 {
                // An event that could not be settled waits for the next round.
                let sendable = try Outbox.sendable(
                    limit: limit,
                    excluding: inFlight.union(unsettled),
                    wholeTransactions: wholeTransactions,
                    db
                )
                for event in sendable {
                    var taken = try self.take(event, db)
                    if wholeTransactions {
                        taken.siblings = try Outbox.transactionSiblings(of: event.id, db).map { try self.take($0, db) }
                    }
                    round.taken.append(taken)
                }
            }
            round.snapshot = try self.outboxSnapshot(db)
            self.reportOutbox(db)
            return round
        }
    }

    /// Marks `event` as sent at least once and reads what sending it needs.
    private func take(_ event: MutationEvent, _ db: Database) throws -> TakenEvent {
        try Outbox.markInProcess(event.id, db)
        return TakenEvent(
            event: event,
            version: try Self.storedVersion(event.recordKey, db),
            unknownFields: try SystemTables.unknownFields(of: event, db),
            traceContext: tracer == nil ? nil : try Outbox.traceContext(of: event.id, db)
        )
    }
}
