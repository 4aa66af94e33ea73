import GRDB
import Synchronization

/// Runs the store's write transactions with group commit: writes that arrive while a
/// transaction commits wait for it, then run together in the next one, each in a savepoint of
/// its own, so that concurrent mutations share one commit (and one `fsync`) instead of queueing
/// for one each.
///
/// Each write sees the writes before it in the batch, as it would have after their commits, so
/// the outcome is the outcome of running them one after another in arrival order. A write that
/// throws rolls back its own savepoint only; its caller gets the error, the others commit. A
/// caller hears of its write only once the transaction holding it has committed.
final class GroupCommitWriter: Sendable {
    /// One write waiting for its batch.
    private struct Pending: Sendable {
        /// Runs the write in `db`, in a savepoint of its own unless it is `alone` in its
        /// transaction, keeping its outcome for ``finish``; `false` when it threw.
        let run: @Sendable (_ db: Database, _ alone: Bool) -> Bool
        /// Hands the kept outcome to the caller, or `error` when the batch did not commit.
        let finish: @Sendable ((any Error)?) -> Void
    }

    private struct State {
        var pending: [Pending] = []
        var draining = false
    }

    private let pool: DatabasePool
    private let state = Mutex(State())
    /// The most writes one transaction takes, so that a long queue still commits in steps.
    private let batchLimit: Int

    /// Called on the writer's queue after each of its transactions.
    private let afterCommit: @Sendable () -> Void

    init(pool: DatabasePool, batchLimit: Int = 64, afterCommit: @escaping @Sendable () -> Void = {}) {
        self.pool = pool
        self.batchLimit = batchLimit
        self.afterCommit = afterCommit
    }

    /// Runs `body` in a write transaction, possibly shared with concurrent writes, and returns
    /// its result once that transaction has committed.
    ///
    /// - Throws: What `body` throws (its changes are rolled back), or the error of the commit.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let outcome = Mutex<Result<T, any Error>?>(nil)
            let pending = Pending(
                run: { db, alone in
                    do {
                        var value: T?
                        if alone {
                            value = try body(db)
                        } else {
                            try db.inSavepoint {
                                value = try body(db)
                                return .commit
                            }
                        }
                        outcome.withLock { $0 = value.map { .success($0) } }
                        return true
                    } catch {
                        outcome.withLock { $0 = .failure(error) }
                        return false
                    }
                },
                finish: { batchError in
                    if let batchError {
                        continuation.resume(throwing: batchError)
                    } else if let result = outcome.withLock({ $0 }) {
                        continuation.resume(with: result)
                    } else {
                        continuation.resume(throwing: DatabaseError(message: "a grouped write did not run"))
                    }
                }
            )
            let startDrain = state.withLock { state in
                state.pending.append(pending)
                defer { state.draining = true }
                return !state.draining
            }
            if startDrain {
                pool.asyncWriteWithoutTransaction { db in self.drain(db) }
            }
        }
    }

    /// Commits one batch on the pool's writer queue (a caller waits for its commit and nothing
    /// else, as it would for a write of its own), then queues the next batch behind the other
    /// writes already queued on the pool, until no write waits.
    private func drain(_ db: Database) {
        let batch: [Pending] = state.withLock { state in
            let batch = Array(state.pending.prefix(batchLimit))
            state.pending.removeFirst(batch.count)
            if batch.isEmpty { state.draining = false }
            return batch
        }
        if batch.isEmpty { return }
        do {
            try db.inTransaction(.immediate) {
                // A write alone in its transaction needs no savepoint: when it throws, the
                // transaction rolls back instead, which undoes the same changes.
                if batch.count == 1 { return batch[0].run(db, true) ? .commit : .rollback }
                for pending in batch { _ = pending.run(db, false) }
                return .commit
            }
            afterCommit()
            for pending in batch { pending.finish(nil) }
        } catch {
            for pending in batch { pending.finish(error) }
        }
        let more = state.withLock { state in
            if state.pending.isEmpty { state.draining = false }
            return state.draining
        }
        if more {
            pool.asyncWriteWithoutTransaction { db in self.drain(db) }
        }
    }
}
