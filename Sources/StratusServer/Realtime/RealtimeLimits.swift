/// The limits of the real-time endpoint: AppSync's, and what protects the server from a client
/// that reads too slowly.
public struct RealtimeLimits: Sendable, Hashable {
    /// Subscriptions one connection may hold; the next `start` gets `MaxSubscriptionsReachedError`.
    public var maxSubscriptionsPerConnection: Int
    /// The largest message a client may send and the largest `data` payload the server sends.
    public var maxPayloadBytes: Int
    /// `connectionTimeoutMs` of `connection_ack`: the connection closes after this long without
    /// a message or a pong from the client, and clients expect a `ka` within it.
    public var connectionTimeout: Duration
    /// How often the server sends `ka`.
    public var keepAliveInterval: Duration
    /// Messages that may wait to be written to one connection. A client that reads so slowly
    /// that more wait is disconnected with an error, so that it never misses an event silently
    /// and never holds back other subscribers or writers.
    public var maxQueuedMessages: Int
    /// Bytes of messages that may wait to be written to one connection, counted as the client
    /// would receive them: the same rule for a client that reads too slowly, bounding the
    /// memory it makes the server hold (large events fill it long before the message count).
    public var maxQueuedBytes: Int
    /// How often the tokens of live connections and subscriptions are checked for revocation
    /// (sign-out); they are checked at their expiry too.
    public var credentialCheckInterval: Duration

    public init(
        maxSubscriptionsPerConnection: Int = 100,
        maxPayloadBytes: Int = 240 * 1024,
        connectionTimeout: Duration = .seconds(300),
        keepAliveInterval: Duration = .seconds(60),
        maxQueuedMessages: Int = 10_000,
        maxQueuedBytes: Int = 8 << 20,
        credentialCheckInterval: Duration = .seconds(60)
    ) {
        self.maxSubscriptionsPerConnection = maxSubscriptionsPerConnection
        self.maxPayloadBytes = maxPayloadBytes
        self.connectionTimeout = connectionTimeout
        self.keepAliveInterval = keepAliveInterval
        self.maxQueuedMessages = maxQueuedMessages
        self.maxQueuedBytes = maxQueuedBytes
        self.credentialCheckInterval = credentialCheckInterval
    }

    /// The largest WebSocket message read from a client: room for a `start` whose payload is at
    /// the limit, escaped inside its `data` string.
    var maxMessageBytes: Int { max(maxPayloadBytes * 4, 1 << 20) }

    /// `connectionTimeout` in milliseconds, as `connection_ack` announces it.
    var connectionTimeoutMilliseconds: Int {
        let (seconds, attoseconds) = connectionTimeout.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}
