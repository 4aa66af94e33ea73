import Foundation
import HTTPTypes
import Hummingbird
import Logging
import ServiceLifecycle

/// The local backend on the network: `POST /graphql` and `GET /graphql` in front of a
/// ``StratusServer``.
///
/// ```swift
/// let http = StratusHTTPServer(server: server, authorization: ServerAuthorization(defaultMode: .apiKey, apiKeys: [key]))
/// try await http.run(port: 0) { port in print("http://127.0.0.1:\(port)/graphql") }
/// ```
public struct StratusHTTPServer: Sendable {
    public let server: StratusServer
    public let authorization: ServerAuthorization
    public let limits: ServerLimits
    /// The REST APIs served under `/rest/<name>`.
    public let restAPIs: [RESTAPI]
    private let clock: @Sendable () -> Date
    private let log: @Sendable (String) -> Void

    public init(
        server: StratusServer,
        authorization: ServerAuthorization,
        limits: ServerLimits = ServerLimits(),
        restAPIs: [RESTAPI] = [],
        clock: @escaping @Sendable () -> Date = { Date() },
        log: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
    ) {
        self.server = server
        self.authorization = authorization
        self.limits = limits
        self.restAPIs = restAPIs
        self.clock = clock
        self.log = log
    }

    /// Serves until the task is cancelled, then shuts down gracefully; `onReady` receives the bound
    /// port (useful with port 0).
    ///
    /// - Throws: when the address cannot be bound, for example a port already in use.
    public func run(
        host: String = "127.0.0.1",
        port: Int = 20002,
        onReady: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        let endpoint = GraphQLEndpoint(
            server: server,
            authorizer: RequestAuthorizer(configuration: authorization, clock: clock),
            limits: limits,
            log: log
        )
        let router = Router()
        router.post("graphql") { request, _ in await endpoint.respond(to: request) }
        router.get("graphql") { request, _ in await endpoint.respond(to: request) }
        if !restAPIs.isEmpty {
            let rest = RESTEndpoint(
                apis: restAPIs,
                authorization: authorization,
                limits: limits,
                clock: clock,
                log: log
            )
            for method in [HTTPRequest.Method.get, .post, .put, .delete, .patch, .head, .options] {
                router.on("rest/**", method: method) { request, _ in await rest.respond(to: request) }
            }
        }
        var logger = Logger(label: "stratus.http")
        logger.logLevel = .warning
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port)),
            onServerRunning: { channel in await onReady(channel.localAddress?.port ?? port) },
            logger: logger
        )
        let group = ServiceGroup(services: [app], gracefulShutdownSignals: [], logger: logger)
        // Cancelling the task shuts the server down gracefully: in-flight requests finish.
        try await withTaskCancellationHandler {
            try await group.run()
        } onCancel: {
            Task { await group.triggerGracefulShutdown() }
        }
    }
}
