import Amplify
import GRDB

/// The outbox as one committed write transaction left it.
///
/// Write transactions run one at a time, so stamps taken inside them follow commit order: of
/// two snapshots, the one with the higher stamp is the later state of the outbox.
struct OutboxSnapshot: Sendable, Equatable {
    /// The transaction's place in commit order.
    let stamp: UInt64
    /// Whether the outbox held no event once the transaction committed.
    let isEmpty: Bool
}

/// What a committed local change did to the outbox.
struct OutboxChange: Sendable {
    /// Every event of the change, as observers hear of them.
    let events: [MutationEvent]
    /// The events now in the outbox: appended, or merged into their record's unsent event. A
    /// delete that cancelled its record's unsent create is not among them.
    let enqueued: [MutationEvent]
    /// The outbox once the change committed.
    let snapshot: OutboxSnapshot
}

extension StorageEngine {
    /// The outbox as the current write transaction leaves it; taken last in the transaction.
    ///
    /// - Throws: the database's error when the outbox cannot be read.
    func outboxSnapshot(_ db: Database) throws -> OutboxSnapshot {
        OutboxSnapshot(stamp: outboxStamps.add(1, ordering: .relaxed).newValue, isEmpty: try Outbox.isEmpty(db))
    }

    /// The outbox as the last commit left it, read in a write transaction of its own so that it
    /// takes its place in commit order.
    ///
    /// - Throws: ``DataStoreError`` when storage fails.
    func outboxSnapshot() async throws(DataStoreError) -> OutboxSnapshot {
        try await write { db in try self.outboxSnapshot(db) }
    }
}
