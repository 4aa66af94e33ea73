import Amplify
import Foundation
import Synchronization

/// The open store and its sync, changed only together, under one lock.
///
/// The rules that keep `start()`, `stop()`, `clear()` and the calls that open the store safe
/// from any number of tasks at once:
///
/// - A sync engine runs only on the store held here: it is created under the lock, for that
///   store, and both are taken away together.
/// - While a transition is under way (a sync engine stopping, a store closing, a clear), no sync
///   engine starts: two engines on one database would send the same outbox event twice. A call
///   that wants sync then marks it, and sync starts when the last transition ends.
/// - A store taken away closes only once the calls using it have ended (``StoreUses``): a save
///   under way when `stop()` is called is committed, not failed by a closed database.
struct Lifecycle {
    /// The open store, `nil` until the first call and after `stop()`.
    var store: StorageEngine?
    /// Its sync engine, when it syncs.
    var sync: SyncEngine?
    /// The transitions under way.
    var transitions = 0
    /// Whether a call wanted sync during a transition.
    var startsAfterTransitions = false
}

extension AWSDataStorePlugin {
    /// Whether the plugin syncs with a backend now.
    public var isSyncing: Bool { lifecycle.withLock { $0.sync != nil } }

    /// Whether a store was opened, so that a sign-in starts its sync again.
    var isOpen: Bool { lifecycle.withLock { $0.store != nil } }

    /// The open store, opening it first if needed, with sync started when there is a backend.
    func openEngine() throws(DataStoreError) -> StorageEngine {
        try openEngine(startingSync: true)
    }

    /// The open store, opening it first if needed.
    func openStore() throws(DataStoreError) -> StorageEngine {
        try openEngine(startingSync: false)
    }

    private func openEngine(startingSync: Bool) throws(DataStoreError) -> StorageEngine {
        let catalog = try self.catalog.get()
        let api = startingSync ? syncAPI : nil
        return try lifecycle.withLock { state throws(DataStoreError) -> StorageEngine in
            let store: StorageEngine
            if let open = state.store {
                store = open
            } else {
                store = try StorageEngine.open(
                    catalog: catalog,
                    registryVersion: modelRegistration.version,
                    configuration: configuration
                )
                state.store = store
            }
            if let api { startSync(&state, api: api) }
            return store
        }
    }

    /// The API sync goes through: the one given, or the API plugin added to Amplify besides
    /// this one.
    private var syncAPI: (any APICategory)? { api ?? Amplify.apiPlugin(besides: self) }

    /// Starts sync on the open store, under the lock, unless it runs, waits for a sign-in, or a
    /// transition is under way (then it starts when the transition ends).
    private func startSync(_ state: inout Lifecycle, api: any APICategory) {
        // Signed out or expired: sync starts again with the next sign-in. Checked under the lock
        // `stopSync()` takes, so that a sign-out that stopped sync does not see it started again.
        guard let store = state.store, state.sync == nil, !auth.withLock({ $0.waitsForSignIn }) else { return }
        guard state.transitions == 0 else {
            state.startsAfterTransitions = true
            return
        }
        let engine = SyncEngine(
            storage: store,
            api: api,
            hub: hub,
            configuration: configuration,
            hasSignedInUser: signedInUserCheck(store.catalog)
        )
        state.sync = engine
        engine.start()
    }

    /// Ends a transition; the last one starts the sync a call asked for meanwhile.
    private func endTransition() {
        let api = syncAPI
        lifecycle.withLock { state in
            state.transitions -= 1
            guard state.transitions == 0, state.startsAfterTransitions else { return }
            state.startsAfterTransitions = false
            if let api { startSync(&state, api: api) }
        }
    }

    /// Runs `body` with the open store (opened first if needed, with sync when `startingSync`),
    /// which does not close before `body` returns.
    func withEngine<T>(
        startingSync: Bool = true,
        _ body: (StorageEngine) async throws -> T
    ) async throws -> T {
        while true {
            let engine = try openEngine(startingSync: startingSync)
            // A store that is closing was taken away already: the next turn opens the file again.
            guard engine.uses.enter() else { continue }
            defer { engine.uses.leave() }
            return try await body(engine)
        }
    }

    /// Stops syncing and waits until the sync engine's requests ended.
    func stopSync() async {
        let running = lifecycle.withLock { state in
            defer { state.sync = nil }
            if state.sync != nil { state.transitions += 1 }
            return state.sync
        }
        guard let running else { return }
        await running.stop()
        endTransition()
    }

    /// Stops syncing, closes the store once the calls using it ended, and ends every
    /// observation.
    func close() async {
        let (store, sync) = lifecycle.withLock { state in
            defer {
                state.store = nil
                state.sync = nil
                state.startsAfterTransitions = false
            }
            state.transitions += 1
            return (state.store, state.sync)
        }
        await sync?.stop()
        await store?.uses.closeWhenIdle()
        store?.close()
        endTransition()
    }

    /// Stops syncing, then removes every record, the outbox and the sync metadata, tells the
    /// hub `cleared` with what was removed, and logs the changes never sent. Sync starts again
    /// with the next call, or at once when a call asked for it meanwhile.
    ///
    /// - Throws: ``DataStoreError`` when the store cannot be opened or SQLite fails; nothing is
    ///   removed then.
    @discardableResult
    func clearStore() async throws -> DataStoreClearedEvent {
        let running = lifecycle.withLock { state in
            defer { state.sync = nil }
            state.transitions += 1
            return state.sync
        }
        await running?.stop()
        let cleared: DataStoreClearedEvent
        do {
            cleared = try await withEngine(startingSync: false) { try await $0.clear() }
        } catch {
            endTransition()
            throw error
        }
        endTransition()
        hub.dispatch(
            to: .dataStore,
            payload: HubPayload(eventName: HubPayload.EventName.DataStore.cleared, data: cleared)
        )
        if cleared.discardedChanges > 0 {
            configuration.log(
                DataStoreConfiguration.LogEntry(
                    level: .warning,
                    message: "DataStore.clear() discarded \(cleared.discardedChanges) local "
                        + (cleared.discardedChanges == 1 ? "change" : "changes")
                        + " the backend had not confirmed, and removed \(cleared.removedRecords) "
                        + (cleared.removedRecords == 1 ? "record." : "records.")
                )
            )
        }
        return cleared
    }
}

extension StorageEngine {
    /// Runs `body` unless the store is closing, `nil` then; closing waits until it returns.
    func ifOpen<T>(_ body: () async throws -> T) async rethrows -> T? {
        guard uses.enter() else { return nil }
        defer { uses.leave() }
        return try await body()
    }
}

/// The calls using a store: closing it waits for them instead of failing them.
final class StoreUses: Sendable {
    private struct State {
        var count = 0
        var isClosing = false
        var whenIdle: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    /// Counts one more call; `false` when the store is closing, and the call must not use it.
    func enter() -> Bool {
        state.withLock { state in
            guard !state.isClosing else { return false }
            state.count += 1
            return true
        }
    }

    /// A call entered with ``enter()`` ended.
    func leave() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.count -= 1
            guard state.count == 0 else { return [] }
            defer { state.whenIdle = [] }
            return state.whenIdle
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Lets no call enter any more, and returns once the calls that entered have left.
    func closeWhenIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                state.isClosing = true
                guard state.count > 0 else { return true }
                state.whenIdle.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }
}
