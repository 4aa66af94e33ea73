import Foundation

/// AppSync's limits, enforced by the local endpoint too, and what protects it from clients that
/// hold connections: how long and how many connections a client may hold.
public struct ServerLimits: Sendable, Hashable {
    /// Request bodies larger than this are refused with HTTP 413.
    public var maxRequestBytes: Int
    /// Responses larger than this fail with an error instead of data.
    public var maxResponseBytes: Int
    /// Requests that run longer than this fail with `ExecutionTimeout`, AppSync's 30 seconds by
    /// default; their work is cancelled.
    public var executionTimeout: Duration
    /// How long a new connection has to send its first request's head (the request line and
    /// headers); it is closed after that.
    public var requestHeadTimeout: Duration
    /// How long a client has to send a whole request, its head and its body, from its first
    /// byte; a request still incomplete then is answered 408 and its connection closed. Without
    /// it, a client sending a byte now and then would hold a connection for ever.
    public var requestTimeout: Duration
    /// How long a connection may stay idle between requests, or while a request's body stalls,
    /// before it is closed.
    public var idleTimeout: Duration
    /// The connections one client address may hold open, WebSockets included; the next one is
    /// answered 429 and closed.
    public var maxConnectionsPerAddress: Int
    /// The connections the server holds open in all, WebSockets included, whatever their
    /// addresses; the next one is answered 503 and closed, so that clients spread over many
    /// addresses cannot take every descriptor and the memory behind them.
    public var maxConnections: Int
    /// How long a graceful shutdown waits for requests in flight and subscribers before it
    /// cancels them.
    public var shutdownTimeout: Duration

    public init(
        maxRequestBytes: Int = 1_048_576,
        maxResponseBytes: Int = 1_048_576,
        executionTimeout: Duration = .seconds(30),
        requestHeadTimeout: Duration = .seconds(10),
        requestTimeout: Duration = .seconds(30),
        idleTimeout: Duration = .seconds(60),
        maxConnectionsPerAddress: Int = 1024,
        maxConnections: Int = 10_000,
        shutdownTimeout: Duration = .seconds(30)
    ) {
        self.maxRequestBytes = maxRequestBytes
        self.maxResponseBytes = maxResponseBytes
        self.executionTimeout = executionTimeout
        self.requestHeadTimeout = requestHeadTimeout
        self.requestTimeout = requestTimeout
        self.idleTimeout = idleTimeout
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.maxConnections = maxConnections
        self.shutdownTimeout = shutdownTimeout
    }
}
