import Synchronization

/// Which models are synced, for `observeQuery`'s `isSynced`.
final class SyncStatus: Sendable {
    private struct State {
        var isSyncing = false
        var synced: Set<String> = []
    }
    private let state = Mutex(State())

    /// Whether the records of `modelName` are synced: always when there is no backend.
    func isSynced(_ modelName: String) -> Bool {
        state.withLock { !$0.isSyncing || $0.synced.contains(modelName) }
    }

    /// Sync started: no model is synced until its sync query ends.
    func begin() {
        state.withLock { state in
            state.isSyncing = true
            state.synced = []
        }
    }

    /// The sync query of `modelName` ended.
    func markSynced(_ modelName: String) {
        _ = state.withLock { $0.synced.insert(modelName) }
    }

    /// Sync stopped.
    func end() {
        state.withLock { state in
            state.isSyncing = false
            state.synced = []
        }
    }
}
