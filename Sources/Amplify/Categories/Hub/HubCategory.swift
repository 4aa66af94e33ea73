import Synchronization

/// Events between categories and the application: a listener per channel, told of each payload
/// dispatched to it.
///
/// ```swift
/// let token = Amplify.Hub.listen(to: .auth) { payload in
///     if payload.eventName == HubPayload.EventName.Auth.signedOut { showSignIn() }
/// }
/// Amplify.Hub.removeListener(token)
///
/// for await payload in Amplify.Hub.events(for: .auth) {
///     print(payload.eventName)
/// }
/// ```
///
/// `Amplify.Hub` is shared by the categories; a plugin or a test can be given a hub of its own.
/// Listeners are called on the dispatching task, in the order they were added, so a listener
/// must return quickly (start a `Task` for longer work).
public final class HubCategory: Sendable {
    /// What ``listen(to:listener:)`` returns, to remove the listener.
    public struct UnsubscribeToken: Sendable, Hashable {
        /// The channel the listener listens to.
        public let channel: HubChannel
        let id: UInt64
    }

    private struct Listener {
        let channel: HubChannel
        /// The one event name the listener wants, or `nil` for every event of the channel.
        let eventName: String?
        let id: UInt64
        let listener: @Sendable (HubPayload) -> Void

        func wants(_ channel: HubChannel, _ eventName: String) -> Bool {
            self.channel == channel && (self.eventName == nil || self.eventName == eventName)
        }
    }

    private struct State {
        var nextId: UInt64 = 0
        var listeners: [Listener] = []
    }

    private let state = Mutex(State())

    /// A hub with no listeners.
    public init() {}

    /// Calls `listener` with every payload dispatched to `channel` from now on.
    @discardableResult
    public func listen(to channel: HubChannel, listener: @escaping @Sendable (HubPayload) -> Void) -> UnsubscribeToken {
        add(channel, eventName: nil, listener)
    }

    /// Calls `listener` with the payloads dispatched to `channel` whose event name is `eventName`.
    @discardableResult
    public func listen(
        to channel: HubChannel,
        eventName: String,
        listener: @escaping @Sendable (HubPayload) -> Void
    ) -> UnsubscribeToken {
        add(channel, eventName: eventName, listener)
    }

    private func add(
        _ channel: HubChannel,
        eventName: String?,
        _ listener: @escaping @Sendable (HubPayload) -> Void
    ) -> UnsubscribeToken {
        state.withLock { state in
            state.nextId += 1
            state.listeners.append(
                Listener(channel: channel, eventName: eventName, id: state.nextId, listener: listener)
            )
            return UnsubscribeToken(channel: channel, id: state.nextId)
        }
    }

    /// Stops calling the listener `token` was returned for; a removed token is ignored.
    public func removeListener(_ token: UnsubscribeToken) {
        state.withLock { state in state.listeners.removeAll { $0.id == token.id } }
    }

    /// Whether anything listens to `channel`: a dispatcher whose payload is costly to build can
    /// skip it when nothing does.
    package func hasListeners(on channel: HubChannel) -> Bool {
        state.withLock { state in state.listeners.contains { $0.channel == channel } }
    }

    /// Whether anything listens to the payloads named `eventName` on `channel`: a listener of the
    /// whole channel, or one of that event name only.
    package func hasListeners(on channel: HubChannel, eventName: String) -> Bool {
        state.withLock { state in state.listeners.contains { $0.wants(channel, eventName) } }
    }

    /// Sends `payload` to the listeners of `channel`.
    public func dispatch(to channel: HubChannel, payload: HubPayload) {
        let listeners = state.withLock { state in state.listeners.filter { $0.wants(channel, payload.eventName) } }
        for listener in listeners { listener.listener(payload) }
    }

    /// The payloads dispatched to `channel` from now on, as an asynchronous sequence; the
    /// listener is removed when the loop that reads it ends or its task is cancelled.
    public func events(for channel: HubChannel) -> AsyncStream<HubPayload> {
        let (stream, continuation) = AsyncStream.makeStream(of: HubPayload.self)
        let token = listen(to: channel) { continuation.yield($0) }
        continuation.onTermination = { [weak self] _ in self?.removeListener(token) }
        return stream
    }

    /// Removes every listener.
    public func removeAllListeners() {
        state.withLock { $0.listeners = [] }
    }
}
