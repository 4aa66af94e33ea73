/// Serializes the writes to each item: a mutation reads the stored item, decides (merging, or
/// asking a conflict handler) and writes, and no other write to the same key runs in between.
///
/// Writes to different keys run concurrently. The store's version check still guards every
/// write, so a write that lost a race anyway is retried.
actor WriteLocks {
    private var held: Set<String> = []
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    /// Runs `body` holding the lock of `key`.
    nonisolated func withLock<T: Sendable>(
        _ key: String,
        _ body: () async throws -> T
    ) async throws -> T {
        await lock(key)
        do {
            let result = try await body()
            await unlock(key)
            return result
        } catch {
            await unlock(key)
            throw error
        }
    }

    /// Takes the lock of `key` when no one holds it; `false` when someone does, without waiting.
    func tryLock(_ key: String) -> Bool {
        held.insert(key).inserted
    }

    /// Takes the locks of `keys`, waiting for each in turn, in sorted order: callers that take
    /// several locks this way, and otherwise only ``tryLock(_:)``, never wait for one another in
    /// a circle.
    func lock(all keys: Set<String>) async {
        for key in keys.sorted() { await lock(key) }
    }

    /// Releases the locks of `keys`, each handed to its next waiter.
    func unlock(all keys: Set<String>) {
        for key in keys { unlock(key) }
    }

    private func lock(_ key: String) async {
        guard held.contains(key) else {
            held.insert(key)
            return
        }
        // `unlock` hands the lock over without releasing it.
        await withCheckedContinuation { waiting[key, default: []].append($0) }
    }

    private func unlock(_ key: String) {
        guard var queue = waiting[key], !queue.isEmpty else {
            held.remove(key)
            return
        }
        let next = queue.removeFirst()
        waiting[key] = queue.isEmpty ? nil : queue
        next.resume()
    }
}
