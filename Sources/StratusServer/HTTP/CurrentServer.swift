import Synchronization

/// The ``StratusServer`` the endpoints answer with, which a schema reload replaces while the
/// HTTP listener and the real-time connections stay up.
///
/// Each request leases the server it starts on (``lease()``, ``release()``) and runs to its end
/// on it. A reload ``pause()``s: requests that come meanwhile wait, and the pause returns once the
/// leased requests have finished, so that the old server's store can be closed under no request;
/// ``resume(with:)`` hands the waiting requests the new server. One reload runs at a time: a
/// second ``pause()`` waits for the first ``resume(with:)``.
///
/// A request must not lease twice: its second lease would wait for a reload that waits for it.
package final class CurrentServer: Sendable {
    private struct State {
        var server: StratusServer
        /// The requests running on ``server``.
        var leases = 0
        var paused = false
        /// The leases and pauses waiting for the reload under way to end.
        var waiting: [CheckedContinuation<Void, Never>] = []
        /// The reload waiting for the leases to end.
        var drained: CheckedContinuation<Void, Never>?
    }

    private let state: Mutex<State>
    /// Where each server records the delivery lag of the writes its shared store announces.
    private let metrics: ServerMetrics?

    package init(_ server: StratusServer, metrics: ServerMetrics? = nil) {
        state = Mutex(State(server: server))
        self.metrics = metrics
        if let metrics { server.measureJournalLag(with: metrics) }
    }

    /// The server requests start on now (during a reload, the one being replaced).
    package var server: StratusServer { state.withLock { $0.server } }

    /// The server to run a request on, waiting for a reload under way to end; ``release()``
    /// must follow once the request is done with it.
    package func lease() async -> StratusServer {
        while true {
            let leased = state.withLock { state -> StratusServer? in
                guard !state.paused else { return nil }
                state.leases += 1
                return state.server
            }
            if let leased { return leased }
            await waitForResume()
        }
    }

    /// Ends a lease taken by ``lease()``.
    package func release() {
        let drained = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.leases -= 1
            guard state.leases == 0 else { return nil }
            defer { state.drained = nil }
            return state.drained
        }
        drained?.resume()
    }

    /// Runs `body` on a leased server.
    package func withServer<T>(_ body: (StratusServer) async -> T) async -> T {
        let server = await lease()
        defer { release() }
        return await body(server)
    }

    /// Stops new requests from starting and returns the current server once the requests
    /// running on it have finished; ``resume(with:)`` must follow.
    package func pause() async -> StratusServer {
        while true {
            let paused = state.withLock { state -> Bool in
                guard !state.paused else { return false }
                state.paused = true
                return true
            }
            if paused { break }
            await waitForResume()
        }
        await withCheckedContinuation { continuation in
            let drained = state.withLock { state -> Bool in
                guard state.leases > 0 else { return true }
                state.drained = continuation
                return false
            }
            if drained { continuation.resume() }
        }
        return server
    }

    /// Ends the pause: `server` answers from now on, the waiting requests included.
    package func resume(with server: StratusServer) {
        if let metrics { server.measureJournalLag(with: metrics) }
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.server = server
            state.paused = false
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    private func waitForResume() async {
        await withCheckedContinuation { continuation in
            let resumed = state.withLock { state -> Bool in
                guard state.paused else { return true }
                state.waiting.append(continuation)
                return false
            }
            if resumed { continuation.resume() }
        }
    }
}
