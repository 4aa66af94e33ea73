import NIOCore
import Synchronization

/// The real-time connections of one event loop, watched by one repeated task of the loop: it
/// closes a connection after `connectionTimeout` without a message from its client, sends `ka`
/// every `keepAliveInterval`, and closes the channel of a client whose queue overflowed and that
/// does not read the error.
///
/// One task for the loop rather than one per connection: a thousand connections with a timer
/// each kept the loop's timer heap busy (each tick of each timer is a removal and an insertion
/// in a heap of a thousand tasks), which cost more than the checks themselves.
final class RealtimeWatcher: Sendable {
    private struct Watched {
        let connection: RealtimeConnection
        let channel: any Channel
        var lastKeepAlive: ContinuousClock.Instant
    }

    private struct State {
        var watched: [ObjectIdentifier: Watched] = [:]
        /// The loop's task; `nil` while no connection is watched.
        var task: RepeatedTask?
    }

    let eventLoop: any EventLoop
    let limits: RealtimeLimits
    private let state = Mutex(State())

    init(eventLoop: any EventLoop, limits: RealtimeLimits) {
        self.eventLoop = eventLoop
        self.limits = limits
    }

    /// How often the connections are checked.
    var tick: Duration { min(.milliseconds(250), limits.keepAliveInterval, limits.connectionTimeout) }

    /// Watches `connection`, whose WebSocket is `channel`, until ``remove(_:)``.
    func add(_ connection: RealtimeConnection, channel: any Channel) {
        state.withLock { state in
            state.watched[ObjectIdentifier(connection)] = Watched(
                connection: connection,
                channel: channel,
                lastKeepAlive: .now
            )
            guard state.task == nil else { return }
            let tick = TimeAmount(tick)
            state.task = eventLoop.scheduleRepeatedTask(initialDelay: tick, delay: tick) { [weak self] _ in
                self?.check()
            }
        }
    }

    /// Stops watching `connection`; the loop's task stops with the last connection.
    func remove(_ connection: RealtimeConnection) {
        state.withLock { state in
            state.watched[ObjectIdentifier(connection)] = nil
            if state.watched.isEmpty {
                state.task?.cancel()
                state.task = nil
            }
        }
    }

    /// How many connections are watched, for tests.
    var count: Int { state.withLock { $0.watched.count } }

    /// What one check does to a connection, done outside the lock.
    private enum Action {
        case closeChannel(any Channel)
        case timeOut(RealtimeConnection)
        case keepAlive(RealtimeConnection)
    }

    private static let keepAlive: JSON = ["type": "ka"]

    /// Checks every watched connection once.
    private func check() {
        let now = ContinuousClock.now
        let actions: [Action] = state.withLock { state in
            var actions: [Action] = []
            for (key, var watched) in state.watched {
                let status = watched.connection.watchStatus
                if let overflowedAt = status.overflowedAt {
                    if now - overflowedAt > .seconds(2) {
                        actions.append(.closeChannel(watched.channel))
                        state.watched[key] = nil
                    }
                } else if now - status.lastTraffic > limits.connectionTimeout {
                    actions.append(.timeOut(watched.connection))
                    state.watched[key] = nil
                } else if status.acknowledged, now - watched.lastKeepAlive >= limits.keepAliveInterval {
                    watched.lastKeepAlive = now
                    state.watched[key] = watched
                    actions.append(.keepAlive(watched.connection))
                }
            }
            return actions
        }
        for action in actions {
            switch action {
            case .closeChannel(let channel):
                channel.close(promise: nil)
            case .timeOut(let connection):
                connection.close(
                    code: 1000,
                    reason:
                        "Connection timed out: the client sent nothing for \(limits.connectionTimeoutMilliseconds) ms."
                )
            case .keepAlive(let connection):
                connection.send(Self.keepAlive)
            }
        }
    }
}
