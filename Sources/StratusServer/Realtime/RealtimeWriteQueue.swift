import NIOCore
import Synchronization

/// The real-time connections of one event loop that have protocol messages waiting
/// (`start_ack`, `ka`, `complete`, errors), written by one task per event-loop tick rather than
/// one task per connection and message. Events go through the loop's ``RealtimeFanout``.
final class RealtimeWriteQueue: Sendable {
    let eventLoop: any EventLoop
    /// The connections to write, in the order they asked; `nil` when no task is scheduled.
    private let ready = Mutex<[(connection: RealtimeConnection, writer: RealtimeFrameWriter)]?>(nil)

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Has `connection`'s waiting messages written by `writer` on the next tick.
    func schedule(_ connection: RealtimeConnection, on writer: RealtimeFrameWriter) {
        let first = ready.withLock { ready in
            guard ready != nil else {
                ready = [(connection, writer)]
                return true
            }
            ready?.append((connection, writer))
            return false
        }
        if first { eventLoop.execute { self.run() } }
    }

    private func run() {
        let connections = ready.withLock { ready in
            defer { ready = nil }
            return ready ?? []
        }
        for (connection, writer) in connections {
            RealtimeEndpoint.write(connection.takePending(), of: connection, to: writer)
        }
    }
}

/// One value for each event loop, made the first time the loop asks: the real-time endpoint's
/// write queue and watcher of each loop.
final class PerEventLoop<Value: Sendable>: Sendable {
    private let values = Mutex<[ObjectIdentifier: Value]>([:])

    /// The value of `eventLoop`, from `make` the first time.
    func value(for eventLoop: any EventLoop, make: (any EventLoop) -> Value) -> Value {
        values.withLock { values in
            let key = ObjectIdentifier(eventLoop)
            if let value = values[key] { return value }
            let value = make(eventLoop)
            values[key] = value
            return value
        }
    }
}
