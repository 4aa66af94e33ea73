import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
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
    public let server: StratusServer
    public let authorization: ServerAuthorization
    public let limits: ServerLimits
    /// The limits of the real-time endpoint.
    public let realtimeLimits: RealtimeLimits
    /// The REST APIs served under `/rest/<name>`.
    public let restAPIs: [RESTAPI]
    private let clock: @Sendable () -> Date
    private let log: @Sendable (String) -> Void

    public init(
        server: StratusServer,
        authorization: ServerAuthorization,
        limits: ServerLimits = ServerLimits(),
        realtimeLimits: RealtimeLimits = RealtimeLimits(),
        restAPIs: [RESTAPI] = [],
        clock: @escaping @Sendable () -> Date = { Date() },
        log: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
    ) {
        self.server = server
        self.authorization = authorization
        self.limits = limits
        self.realtimeLimits = realtimeLimits
        self.restAPIs = restAPIs
        self.clock = clock
        self.log = log
    }

    /// Serves until the task is cancelled; `onReady` receives the bound port (useful with port 0).
    /// Cancellation cancels the service group, which cuts open connections and in-flight
    /// requests, as a crash would: tests rely on it to simulate one.
    ///
    /// With `stopsOnSignals`, SIGINT and SIGTERM shut it down gracefully: in-flight requests
    /// finish, subscribers get a normal close, and `run` returns, so that a command-line server
    /// can close its database cleanly.
    ///
    /// - Throws: when the address cannot be bound, for example a port already in use.
    public func run(
        host: String = "127.0.0.1",
        port: Int = 20002,
        stopsOnSignals: Bool = false,
        onReady: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        let authorizer = RequestAuthenticator(configuration: authorization, clock: clock)
        let endpoint = GraphQLEndpoint(server: server, authorizer: authorizer, limits: limits, log: log)
        let realtime = RealtimeEndpoint(server: server, authorizer: authorizer, limits: realtimeLimits, log: log)
        let router = Router()
        router.post("graphql") { request, _ in await endpoint.respond(to: request) }
        router.get("graphql") { request, _ in await endpoint.respond(to: request) }
        router.on("graphql", method: .options) { _, _ in GraphQLEndpoint.preflight() }
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
        // Upgrade requests are routed apart: `/graphql/realtime`, and `/graphql` itself, where
        // clients that only rewrite an AWS host name connect.
        let webSocketRouter = Router(context: RealtimeRequestContext.self)
        for path in ["graphql/realtime", "graphql"] {
            webSocketRouter.ws(RouterPath(path)) { request, _ in
                RealtimeEndpoint.shouldUpgrade(request)
            } onUpgrade: { inbound, outbound, context in
                try await realtime.serve(inbound: inbound, outbound: outbound, context: context)
            }
        }
        var logger = Logger(label: "stratus.http")
        logger.logLevel = .warning
        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade(
                webSocketRouter: webSocketRouter,
                configuration: .init(ws: WebSocketServerConfiguration(maxFrameSize: realtimeLimits.maxMessageBytes))
            ),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port)),
            onServerRunning: { channel in await onReady(channel.localAddress?.port ?? port) },
            logger: logger
        )
        let group = ServiceGroup(
            services: [app],
            gracefulShutdownSignals: stopsOnSignals ? [.sigint, .sigterm] : [],
            logger: logger
        )
        // Cancelling the task cancels the group's run, and asks for a graceful shutdown as well.
        try await withTaskCancellationHandler {
            try await group.run()
        } onCancel: {
            Task { await group.triggerGracefulShutdown() }
        }
    }
}
