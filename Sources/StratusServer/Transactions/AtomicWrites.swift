import StratusCodegen
import Synchronization

/// The writes of a request sent with `Stratus-Transaction: atomic`, held back until every
/// mutation of the request has run, then committed together (``ServerStore/write(batch:)``).
///
/// While the request runs, the model resolvers read and write through it (``TracedItemStore``
/// looks for ``current``): a write is checked as the store would check it (its expectation and
/// condition, on the item as the request's earlier writes left it) and kept; a read of an item
/// the request wrote answers the written item. What subscribers hear of each write is kept too,
/// and told once the batch has committed.
///
/// The item locks a write takes are held until the batch commits, so that no other write of the
/// server runs between a read and the commit. A lock another request holds is not waited for
/// (two requests could each hold what the other wants): the lock is noted in ``wanted``, the
/// write fails, and the runner starts over holding every lock it needs, taken in sorted order.
final class AtomicWrites: Sendable {
    /// The batch of the request running in this task, if it is atomic.
    @TaskLocal static var current: AtomicWrites?

    /// A write's announcement to subscribers, told after the commit.
    struct Publication: Sendable {
        var model: ModelType
        var kind: WriteEvent.Kind
        var item: StoredItem
        var selectedFields: Set<String>?
    }

    /// A write failed because another request holds the lock of its item.
    struct LockHeld: Error, CustomStringConvertible {
        var description: String { "Another request is writing the item; the transaction starts over." }
    }

    private struct State {
        /// The items the batch wrote, by model and key; `nil` for a removed item.
        var written: [String: StoredItem?] = [:]
        var writes: [ItemWrite] = []
        var publications: [Publication] = []
        var held: Set<String>
        var wanted: Set<String> = []
    }

    private let state: Mutex<State>
    private let locks: WriteLocks

    /// A batch that holds the locks of `holding` already.
    init(locks: WriteLocks, holding: Set<String>) {
        self.locks = locks
        state = Mutex(State(held: holding))
    }

    /// The writes, in the order the mutations made them.
    var writes: [ItemWrite] { state.withLock { $0.writes } }
    /// What subscribers hear once the writes are committed, in the same order.
    var publications: [Publication] { state.withLock { $0.publications } }
    /// The item locks the batch holds.
    var held: Set<String> { state.withLock { $0.held } }
    /// The item locks other requests held when the batch wanted them.
    var wanted: Set<String> { state.withLock { $0.wanted } }

    /// Runs `body` holding the lock `name` until the batch ends, taken now if no one holds it.
    ///
    /// - Throws: ``LockHeld`` when another request holds the lock, or what `body` throws.
    func withLock<T: Sendable>(_ name: String, _ body: () async throws -> T) async throws -> T {
        let holds = state.withLock { $0.held.contains(name) || !$0.wanted.isEmpty }
        if !holds {
            if await locks.tryLock(name) {
                state.withLock { _ = $0.held.insert(name) }
            } else {
                state.withLock { _ = $0.wanted.insert(name) }
            }
        }
        // Once one lock is wanted the request starts over: nothing after it runs.
        guard state.withLock({ $0.wanted.isEmpty }) else { throw LockHeld() }
        return try await body()
    }

    /// The item with this key as the batch left it, or as `store` holds it when the batch did
    /// not write it.
    func fetchItem(model: String, key: [JSON], now: Int, from store: any ItemStore) async throws -> StoredItem? {
        if let written = state.withLock({ $0.written[Self.name(model, key)] }) { return written }
        return try await store.fetchItem(model: model, key: key, now: now)
    }

    /// Checks `write` on the item as the batch left it, and keeps it: what the store would answer.
    func stage(_ write: ItemWrite, in store: any ItemStore) async throws -> WriteOutcome {
        let current = try await fetchItem(model: write.model, key: write.key, now: write.now, from: store)
        switch (write.expectation, current) {
        case (.absent, .some): return .exists
        case (.present, .none): return .missing
        default: break
        }
        if let condition = write.condition,
            !condition.evaluate(current ?? StoredItem(values: [:], version: nil, deleted: nil, lastChangedAt: nil))
        {
            return .conditionFailed
        }
        if case .present(let version?) = write.expectation, let current, current.version != version {
            return .stale(current)
        }
        state.withLock { state in
            switch write.action {
            case .put(let item): state.written[Self.name(write.model, write.key)] = .some(item)
            case .remove: state.written[Self.name(write.model, write.key)] = .some(nil)
            }
            state.writes.append(write)
        }
        return .written
    }

    /// Keeps what subscribers hear of a staged write until the commit.
    func keep(_ publication: Publication) {
        state.withLock { $0.publications.append(publication) }
    }

    private static func name(_ model: String, _ key: [JSON]) -> String {
        ItemWrite.lockName(model: model, key: key)
    }
}
