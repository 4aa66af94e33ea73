import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

/// The local backend on the network: `POST /graphql` and `GET /graphql` in front of a
/// ``StratusServer``, and its subscriptions over a WebSocket on `/graphql/realtime`.
///
/// ```swift
/// let http = StratusHTTPServer(server: server, authorization: ServerAuthorization(defaultMode: .apiKey, apiKeys: [key]))
/// try await http.run(port: 0) { port in print("http://127.0.0.1:\(port)/graphql") }
/// ```
public struct StratusHTTPServer: Sendable {
    /// The server requests start on now: the one it was made with, or the one a schema reload
    /// put in its place (`current`).
    public var server: StratusServer { current.server }
    /// The server the endpoints answer with, which a schema reload replaces.
    package let current: CurrentServer
    public let authorization: ServerAuthorization
    public let limits: ServerLimits
    /// The limits of the real-time endpoint.
    public let realtimeLimits: RealtimeLimits
    /// The REST APIs served under `/rest/<name>`.
    public let restAPIs: [RESTAPI]
    /// Routes of other services served on the same port, such as the local Cognito's (whose
    /// tokens and credentials the API trusts when ``authorization`` says so).
    public let routes: [any HTTPRouteProvider]
    /// The names clients may reach the server by besides its own (``AllowedHosts``): the name a
    /// load balancer or a DNS record gives it; `*` allows any.
    public let allowedHosts: [String]
    /// Where each request's line goes once answered (see `RequestLogMiddleware`); `nil` logs none.
    public let requestLog: (@Sendable (String) -> Void)?
    /// What requests, connections and subscriptions are counted in; `nil` counts nothing.
    public let metrics: ServerMetrics?
    /// How ``requestLog``'s lines are written.
    public let requestLogFormat: LogFormat
    /// What makes (and exports) a span per request; `nil` traces nothing.
    public let tracing: ServerTracing?
    /// Where each request to `/graphql`, the REST APIs and each subscription `start` is kept
    /// once answered, for the console; `nil` keeps none, and costs nothing.
    public let requestHistory: RequestHistory?
    /// What is told of each real-time connection, subscription and committed write, for the
    /// console; `nil` tells nothing.
    public let liveMonitor: LiveMonitor?
    /// The bytes waiting in the real-time connections, added up.
    let realtimeQueues: RealtimeQueueGauge
    private let clock: @Sendable () -> Date
    private let log: @Sendable (String) -> Void

    public init(
        server: StratusServer,
        authorization: ServerAuthorization,
        limits: ServerLimits = ServerLimits(),
        realtimeLimits: RealtimeLimits = RealtimeLimits(),
        restAPIs: [RESTAPI] = [],
        routes: [any HTTPRouteProvider] = [],
        allowedHosts: [String] = [],
        clock: @escaping @Sendable () -> Date = { Date() },
        log: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) },
        requestLog: (@Sendable (String) -> Void)? = nil,
        metrics: ServerMetrics? = nil,
        requestLogFormat: LogFormat = .text,
        tracing: ServerTracing? = nil,
        requestHistory: RequestHistory? = nil,
        liveMonitor: LiveMonitor? = nil
    ) {
        current = CurrentServer(server, metrics: metrics)
        self.requestHistory = requestHistory
        self.liveMonitor = liveMonitor
        self.tracing = tracing
        self.metrics = metrics
        self.requestLogFormat = requestLogFormat
        realtimeQueues = RealtimeQueueGauge(metrics: metrics, monitor: liveMonitor)
        self.authorization = authorization
        self.limits = limits
        self.realtimeLimits = realtimeLimits
        self.restAPIs = restAPIs
        self.routes = routes
        self.allowedHosts = allowedHosts
        self.clock = clock
        self.log = LogLine.bounding(log)
        self.requestLog = requestLog.map { LogLine.bounding($0) }
    }

    /// Serves until the task is cancelled; `onReady` receives the bound port (useful with port 0).
    /// Cancellation cancels the service group, which cuts open connections and in-flight
    /// requests, as a crash would: tests rely on it to simulate one.
    ///
    /// With `stopsOnSignals`, SIGINT and SIGTERM shut it down gracefully: in-flight requests
    /// finish, subscribers get a normal close, and `run` returns, so that a command-line server
    /// can close its database cleanly. Whatever still runs after ``ServerLimits/shutdownTimeout``
    /// is cancelled.
    ///
    /// - Throws: ``ServerError`` when a REST route cannot be served (`AWS_LAMBDA` authorization),
    ///   or when the address cannot be bound, for example a port already in use.
    public func run(
        host: String = "127.0.0.1",
        port: Int = 20002,
        stopsOnSignals: Bool = false,
        onReady: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        try await run(host: host, port: port, stopsOnSignals: stopsOnSignals, shutdownRequests: nil, onReady: onReady)
    }

    /// Serves as ``run(host:port:stopsOnSignals:onReady:)`` does, shutting down gracefully at the
    /// first element of `shutdownRequests` as at a signal.
    func run(
        host: String = "127.0.0.1",
        port: Int,
        stopsOnSignals: Bool = false,
        shutdownRequests: AsyncStream<Void>?,
        onReady: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        for api in restAPIs { try api.validate() }
        let hosts = AllowedHosts(listeningOn: host, configured: allowedHosts)
        let current = current
        let authorizer = RequestAuthenticator(
            configuration: authorization,
            clock: clock,
            hosts: hosts,
            current: current
        )
        let log = log
        let limits = limits
        // Each request runs to its end on the server it started on, whatever reloads meanwhile.
        let respond: @Sendable (Request) async -> Response = { request in
            await current.withServer { server in
                await GraphQLEndpoint(server: server, authorizer: authorizer, limits: limits, log: log)
                    .respond(to: request)
            }
        }
        let realtime = RealtimeEndpoint(
            current: current,
            authorizer: authorizer,
            limits: realtimeLimits,
            log: log,
            queues: realtimeQueues,
            history: requestHistory,
            monitor: liveMonitor
        )
        // The monitor hears every committed write of the models served when the server starts.
        let events = current.server.events
        let liveListener = liveMonitor.map { $0.listen(to: events, models: current.server.api.schema.models) }
        defer { if let liveListener { events.removeListener(liveListener) } }
        let router = Router(context: ClientAddressRequestContext.self)
        // First: they wrap the routes added after them, and requests that match none.
        router.add(
            middleware: RequestLogMiddleware(
                write: requestLog,
                metrics: metrics,
                format: requestLogFormat,
                tracer: tracing?.tracer,
                history: requestHistory
            )
        )
        router.add(middleware: HostCheckMiddleware(hosts: hosts))
        // The client's address reaches functions as `identity.sourceIp`.
        router.post("graphql") { request, context in
            await IncomingRequest.$sourceIP.withValue(context.remoteAddress?.ipAddress) {
                await respond(request)
            }
        }
        router.get("graphql") { request, context in
            // A person opening the endpoint in a browser reads how to query it.
            if LandingPage.isBrowserVisit(request) { return LandingPage.graphQLEndpoint(request) }
            return await IncomingRequest.$sourceIP.withValue(context.remoteAddress?.ipAddress) {
                await respond(request)
            }
        }
        router.on("graphql", method: .options) { _, _ in GraphQLEndpoint.preflight() }
        router.get("/") { [restAPIs] request, _ in LandingPage.root(request, restAPIs: restAPIs) }
        // For load balancers: 200 while the store answers, 503 (with what failed) otherwise.
        router.get("health") { _, _ in
            Self.status(await current.withServer { await $0.healthProblem() })
        }
        // For orchestrators: 200 once the store answers and, on PostgreSQL, other instances'
        // writes are heard; 503 (with what is missing) before.
        router.get("ready") { _, _ in
            Self.status(await current.withServer { await $0.readinessProblem() }, notReady: "not ready")
        }
        if !restAPIs.isEmpty {
            let rest = RESTEndpoint(
                apis: restAPIs,
                authorizer: authorizer,
                limits: limits,
                clock: clock,
                log: log
            )
            for method in [HTTPRequest.Method.get, .post, .put, .delete, .patch, .head, .options] {
                router.on("rest/**", method: method) { request, _ in await rest.respond(to: request) }
            }
        }
        for provider in routes { provider.addRoutes(to: router) }
        // Upgrade requests are routed apart: `/graphql/realtime`, and `/graphql` itself, where
        // clients that only rewrite an AWS host name connect.
        let webSocketRouter = Router(context: RealtimeRequestContext.self)
        for path in ["graphql/realtime", "graphql"] {
            webSocketRouter.ws(RouterPath(path)) { request, _ in
                // An upgrade naming another host gets the refusal as `connection_error` and is
                // closed, without reading a message: refused before it, it would get an empty 400.
                RealtimeEndpoint.shouldUpgrade(request)
            } onUpgrade: { inbound, outbound, context in
                try await realtime.serve(inbound: inbound, outbound: outbound, context: context)
            }
        }
        let logger = LogLevels.logger("http", otherwise: .warning)
        let webSocketResponder = webSocketRouter.buildResponder()
        let channelConfiguration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: HTTP1Channel.Configuration(idleTimeout: TimeAmount(limits.idleTimeout)),
            // No WebSocket pings of the framework's own: its ping waits behind the `data`
            // messages written straight to the channel, so a subscriber that lags under load
            // missed its pong deadline and every connection was closed. AppSync's protocol has
            // its own liveness: `ka` messages, the connection timeout and the slow-consumer rule.
            ws: WebSocketServerConfiguration(maxFrameSize: realtimeLimits.maxMessageBytes, autoPing: .disabled)
        )
        let connections = OpenConnections(
            limitPerAddress: limits.maxConnectionsPerAddress,
            limit: limits.maxConnections
        )
        let (requestHeadTimeout, requestTimeout) = (limits.requestHeadTimeout, limits.requestTimeout)
        let app = Application(
            router: router,
            server: HTTPServerBuilder { responder in
                GuardedChildChannel(
                    inner: HTTP1WebSocketUpgradeChannel(
                        responder: responder,
                        webSocketResponder: webSocketResponder,
                        configuration: channelConfiguration
                    ),
                    connections: connections,
                    requestHeadTimeout: requestHeadTimeout,
                    requestTimeout: requestTimeout
                )
            },
            configuration: ApplicationConfiguration(address: .hostname(host, port: port)),
            onServerRunning: { [routes] channel in
                let bound = channel.localAddress?.port ?? port
                let origin = "http://\(host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host):\(bound)"
                for provider in routes { provider.serverListens(at: origin) }
                await onReady(bound)
            },
            logger: logger
        )
        // The exporter shuts down after the server, and sends the spans of its last requests then.
        let services: [any Service] = (tracing?.service.map { [$0] } ?? []) + [app]
        var groupConfiguration = ServiceGroupConfiguration(
            services: services,
            gracefulShutdownSignals: stopsOnSignals ? [.sigint, .sigterm] : [],
            logger: logger
        )
        // Requests and subscribers still running at the deadline are cancelled.
        groupConfiguration.maximumGracefulShutdownDuration = limits.shutdownTimeout
        let group = ServiceGroup(configuration: groupConfiguration)
        // Cancelling the task cancels the group's run, and asks for a graceful shutdown as well.
        try await withTaskCancellationHandler {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                if let shutdownRequests {
                    tasks.addTask {
                        for await _ in shutdownRequests {
                            await group.triggerGracefulShutdown()
                            return
                        }
                    }
                }
                try await group.run()
                tasks.cancelAll()
            }
        } onCancel: {
            Task { await group.triggerGracefulShutdown() }
        }
    }

    /// `{"status":"ok"}` with 200 without a `problem`, else 503 with `notReady` and the problem.
    private static func status(_ problem: String?, notReady: String = "unavailable") -> Response {
        var body: JSONObject = ["status": .string(problem == nil ? "ok" : notReady)]
        if let problem { body["problem"] = .string(problem) }
        return Response(
            status: problem == nil ? .ok : .serviceUnavailable,
            headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: JSON.object(body).text))
        )
    }
}
