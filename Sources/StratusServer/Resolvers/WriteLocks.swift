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
