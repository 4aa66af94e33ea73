import Foundation
import StratusCodegen
import StratusCognito
import StratusConsole
import StratusServer
import Synchronization

/// The local backend assembled: the server on its store, the local Cognito beside it, the API's
/// authorization trusting the pool, and the HTTP server in front of them.
///
/// `stratus serve`, the tests' `LocalBackend`, the fuzzer and the fan-out benchmark all start
/// the backend here, so that tests exercise the wiring users run.
///
/// ```swift
/// let backend = try await Backend.open(
///     Backend.Configuration(
///         schema: try SchemaParser().parse(source),
///         store: .dataDirectory(URL(filePath: ".stratus")),
///         authorization: ServerAuthorization(defaultMode: .apiKey, apiKeys: [APIKey(value: "da2-local")]),
///         cognito: CognitoConfiguration()
///     )
/// )
/// let serving = try await backend.start(port: 0)
/// print("http://127.0.0.1:\(serving.port)/graphql")
/// ```
public final class Backend: Sendable {
    /// Where the data lives.
    public enum Store: Sendable, Hashable {
        /// A data directory of SQLite databases, created when missing.
        case dataDirectory(URL)
        /// A PostgreSQL database, which several servers may share; the server opens at most
        /// `connections` connections to it.
        case database(PostgresLocation, connections: Int)
    }

    /// What to assemble.
    public struct Configuration: Sendable {
        /// The annotated schema.
        public var schema: AnnotatedSchema
        public var store: Store
        /// Conflict handling, TTLs and page sizes.
        public var server: ServerConfiguration
        /// How requests are authorized; the local Cognito, when there is one, is trusted besides.
        public var authorization: ServerAuthorization
        /// With no API key in ``authorization``, whether the backend uses the store's own, made on
        /// first use: the data directory's `api-key` file, or the database's shared setting
        /// (servers sharing the database share the key the first of them made).
        public var usesStoredAPIKey: Bool
        /// The local Cognito served on the API's port; `nil` for none.
        public var cognito: CognitoConfiguration?
        public var limits: ServerLimits
        public var realtimeLimits: RealtimeLimits
        /// The REST APIs served under `/rest/<name>`.
        public var restAPIs: [RESTAPI]
        /// Names clients reach the server by besides its own (``StratusHTTPServer/allowedHosts``).
        public var allowedHosts: [String]
        /// The current instant.
        public var clock: @Sendable () -> Date
        /// Where the server describes failures the responses do not detail.
        public var log: @Sendable (String) -> Void
        /// Where the HTTP server describes failed requests and connections; ``log`` when `nil`.
        public var httpLog: (@Sendable (String) -> Void)?
        /// Where a line per answered HTTP request goes (method, path, operation, authorization
        /// mode, status, duration); `nil` logs none.
        public var requestLog: (@Sendable (String) -> Void)?
        /// `/metrics`, and what the server counts in it; `nil` counts nothing.
        public var metrics: MetricsEndpoint?
        /// How ``requestLog``'s lines are written.
        public var requestLogFormat: LogFormat
        /// What makes and exports a span per request (`--otlp-endpoint`); `nil` traces nothing.
        public var tracing: ServerTracing?
        /// Where the local Cognito writes confirmation codes and its failures.
        public var cognitoLog: @Sendable (String) -> Void
        /// Hears what opening the store did that people should know: the schema changes it
        /// migrated, and the API's warnings.
        public var notice: @Sendable (String) -> Void
        /// The Stratus Console at `/console`; `nil` serves none.
        public var console: ConsoleSettings?
        /// Whether ``authorization``'s `openIDConnect` provider is the backend's own: its tokens
        /// are signed with a key the store keeps, which the console signs tokens of any claims
        /// with (``ServerAuthorization/openIDConnect``'s keys are replaced by that key's).
        public var localOpenIDConnect = false

        public init(
            schema: AnnotatedSchema,
            store: Store,
            server: ServerConfiguration = ServerConfiguration(),
            authorization: ServerAuthorization,
            usesStoredAPIKey: Bool = false,
            cognito: CognitoConfiguration? = nil,
            limits: ServerLimits = ServerLimits(),
            realtimeLimits: RealtimeLimits = RealtimeLimits(),
            restAPIs: [RESTAPI] = [],
            allowedHosts: [String] = [],
            clock: @escaping @Sendable () -> Date = { Date() },
            log: @escaping @Sendable (String) -> Void = Backend.standardError,
            httpLog: (@Sendable (String) -> Void)? = nil,
            requestLog: (@Sendable (String) -> Void)? = nil,
            metrics: MetricsEndpoint? = nil,
            requestLogFormat: LogFormat = .text,
            tracing: ServerTracing? = nil,
            cognitoLog: @escaping @Sendable (String) -> Void = Backend.standardError,
            notice: @escaping @Sendable (String) -> Void = { _ in },
            console: ConsoleSettings? = nil
        ) {
            self.schema = schema
            self.store = store
            self.server = server
            self.authorization = authorization
            self.usesStoredAPIKey = usesStoredAPIKey
            self.cognito = cognito
            self.limits = limits
            self.realtimeLimits = realtimeLimits
            self.restAPIs = restAPIs
            self.allowedHosts = allowedHosts
            self.clock = clock
            self.log = log
            self.httpLog = httpLog
            self.requestLog = requestLog
            self.metrics = metrics
            self.requestLogFormat = requestLogFormat
            self.tracing = tracing
            self.cognitoLog = cognitoLog
            self.notice = notice
            self.console = console
        }
    }

    /// What the backend was assembled from, with the schema and server configuration of the
    /// last ``reload(schema:server:)``.
    public var configuration: Configuration { assembled.withLock { $0 } }
    /// The API and its store: the server requests start on now.
    public var server: StratusServer { http.current.server }
    /// The local Cognito, when the configuration has one.
    public let cognito: CognitoUserPool?
    /// The API's authorization as the HTTP server applies it: the configured one, with the
    /// store's API key when it uses one, trusting the local Cognito's tokens and credentials.
    public var authorization: ServerAuthorization { http.authorization }
    /// The HTTP server in front of the API and the local Cognito.
    public let http: StratusHTTPServer
    /// The Stratus Console on the same port, when the configuration has one.
    public let console: ConsoleEndpoint?
    /// ``configuration``, which a reload changes.
    let assembled: Mutex<Configuration>

    private init(
        configuration: Configuration,
        cognito: CognitoUserPool?,
        console: ConsoleEndpoint?,
        http: StratusHTTPServer
    ) {
        assembled = Mutex(configuration)
        self.cognito = cognito
        self.console = console
        self.http = http
    }

    /// Opens the store (creating or migrating it), the local Cognito's state beside it, and
    /// assembles the HTTP server; nothing listens until ``run(host:port:stopsOnSignals:onReady:)``
    /// or ``start(host:port:)``.
    ///
    /// - Throws: ``BackendError`` naming what could not be opened; what was opened is closed.
    public static func open(_ configuration: Configuration) async throws(BackendError) -> Backend {
        var configuration = configuration
        if configuration.console != nil, configuration.server.functionInvocations == nil {
            // For the console's Functions page only: without a console nothing is kept.
            configuration.server.functionInvocations = FunctionInvocations()
        }
        var authorization = configuration.authorization
        let storesKey = configuration.usesStoredAPIKey && authorization.apiKeys.isEmpty
        if storesKey, case .dataDirectory(let directory) = configuration.store {
            // Read (or made) before the server opens the directory, as its other files are.
            authorization.apiKeys = [try storedAPIKey(in: directory)]
        }
        let server = try await openServer(configuration)
        for change in server.appliedSchemaChanges {
            configuration.notice("Migrated \(server.storeDescription): \(change)")
        }
        for warning in server.api.warnings + server.resolverNotices {
            configuration.notice(warning)
        }
        if storesKey, case .database = configuration.store {
            do {
                authorization.apiKeys = [
                    APIKey(value: try await server.sharedSetting("apiKey", proposing: newAPIKey()))
                ]
            } catch {
                closeAfterFailure(server, log: configuration.log)
                throw .sharedAPIKey(store: server.storeDescription, error)
            }
        }
        var localProvider: LocalOpenIDConnect?
        if configuration.localOpenIDConnect {
            do {
                let provider = try await localOpenIDConnect(configuration, authorization: authorization, server: server)
                authorization.openIDConnect = provider.authorization
                localProvider = provider
            } catch {
                closeAfterFailure(server, log: configuration.log)
                throw error
            }
        }
        var cognito: CognitoUserPool?
        if let cognitoConfiguration = configuration.cognito {
            do {
                cognito = try await CognitoUserPool(
                    configuration: cognitoConfiguration,
                    store: CognitoUserPool.store(besides: server),
                    clock: configuration.clock,
                    log: configuration.cognitoLog
                )
            } catch {
                closeAfterFailure(server, log: configuration.log)
                throw .cognito(error)
            }
        }
        var console: ConsoleEndpoint?
        if let settings = configuration.console {
            do {
                let secret = try await consoleSecret(settings, store: configuration.store, server: server)
                console = ConsoleEndpoint(
                    access: ConsoleAccess(secret: secret),
                    cognito: cognito,
                    openIDConnect: localProvider
                )
            } catch {
                closeAfterFailure(server, log: configuration.log)
                throw error
            }
        }
        return Backend(
            configuration: configuration,
            cognito: cognito,
            console: console,
            http: http(configuration, server: server, authorization: authorization, cognito: cognito, console: console)
        )
    }

    /// The same backend on its store opened again, after ``close()``, as a restarted process
    /// finds it: the local Cognito and the API keys carry over.
    ///
    /// - Throws: ``BackendError/store(_:)`` when the store cannot be opened.
    public func reopened() async throws(BackendError) -> Backend {
        let configuration = configuration
        let server = try await Self.openServer(configuration)
        var authorization = configuration.authorization
        authorization.apiKeys = http.authorization.apiKeys
        authorization.openIDConnect = http.authorization.openIDConnect
        return Backend(
            configuration: configuration,
            cognito: cognito,
            console: console,
            http: Self.http(
                configuration,
                server: server,
                authorization: authorization,
                cognito: cognito,
                console: console
            )
        )
    }

    private static func openServer(_ configuration: Configuration) async throws(BackendError) -> StratusServer {
        do {
            switch configuration.store {
            case .dataDirectory(let directory):
                return try StratusServer(
                    schema: configuration.schema,
                    configuration: configuration.server,
                    dataDirectory: directory,
                    clock: configuration.clock,
                    log: configuration.log
                )
            case .database(let location, let connections):
                return try await StratusServer(
                    schema: configuration.schema,
                    configuration: configuration.server,
                    database: location,
                    connections: connections,
                    clock: configuration.clock,
                    log: configuration.log
                )
            }
        } catch {
            throw .store(error)
        }
    }

    private static func http(
        _ configuration: Configuration,
        server: StratusServer,
        authorization: ServerAuthorization,
        cognito: CognitoUserPool?,
        console: ConsoleEndpoint?
    ) -> StratusHTTPServer {
        let http = StratusHTTPServer(
            server: server,
            authorization: authorization,
            limits: configuration.limits,
            realtimeLimits: configuration.realtimeLimits,
            restAPIs: configuration.restAPIs,
            cognito: cognito,
            allowedHosts: configuration.allowedHosts,
            clock: configuration.clock,
            log: configuration.httpLog ?? configuration.log,
            requestLog: configuration.requestLog,
            routes: (configuration.metrics.map { [$0] } ?? []) + (console.map { [$0] } ?? []),
            metrics: configuration.metrics?.makeMetrics(),
            requestLogFormat: configuration.requestLogFormat,
            tracing: configuration.tracing,
            // For the console's Requests and Live pages only: without a console nothing is kept.
            requestHistory: console.map { _ in RequestHistory() },
            liveMonitor: console.map { _ in LiveMonitor() }
        )
        console?.drive(http)
        return http
    }

    /// Closes a server that opened when a later part of the backend could not: the failure of
    /// that part is what the caller hears, and the server's own failure to close goes to its log.
    private static func closeAfterFailure(_ server: StratusServer, log: @Sendable (String) -> Void) {
        do {
            try server.close()
        } catch {
            log("Closing \(server.storeDescription) after a failed start failed too: \(error)")
        }
    }

    /// Serves until the task is cancelled, or, with `stopsOnSignals`, until SIGINT or SIGTERM
    /// (see ``StratusHTTPServer/run(host:port:stopsOnSignals:onReady:)``); `onReady` receives the
    /// bound port.
    ///
    /// - Throws: when the address cannot be bound, for example a port already in use.
    public func run(
        host: String = "127.0.0.1",
        port: Int,
        stopsOnSignals: Bool = false,
        onReady: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        try await http.run(host: host, port: port, stopsOnSignals: stopsOnSignals, onReady: onReady)
    }

    /// Serves in a task of its own and returns once the port is bound.
    ///
    /// - Throws: ``BackendError/stoppedBeforeListening(_:)`` when the server stopped before it
    ///   listened, such as on a port in use.
    public func start(host: String = "127.0.0.1", port: Int = 0) async throws(BackendError) -> Serving {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let http = http
        let task = Task {
            defer { continuation.finish() }
            try await http.run(host: host, port: port) { continuation.yield($0) }
        }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next() else {
            throw .stoppedBeforeListening("\(await task.result)")
        }
        return Serving(port: bound, task: task)
    }

    /// A backend serving in a task of its own (``start(host:port:)``).
    public struct Serving: Sendable {
        /// The bound port.
        public let port: Int
        let task: Task<Void, any Error>

        /// Stops serving, cutting open connections and in-flight requests as a crash would, and
        /// waits until the server has stopped. The store stays open.
        public func stop() async {
            task.cancel()
            _ = await task.result
        }
    }

    /// Closes the store. The backend answers no request afterwards.
    ///
    /// - Throws: ``ServerError`` when the store cannot be closed cleanly.
    public func close() throws(ServerError) {
        try server.close()
    }

    /// The files clients read to reach the backend at `endpoint` (its GraphQL URL): the API with
    /// its modes and key, the REST APIs, and the local Cognito's pools.
    public func clientConfiguration(endpoint: URL) -> ClientConfigurationFiles {
        let authorization = authorization
        let apiKey = authorization.apiKeys.first?.value
        var files = ClientConfigurationFiles(
            endpoint: endpoint,
            region: authorization.region,
            authorizationMode: authorization.defaultMode,
            apiKey: authorization.defaultMode == .apiKey ? apiKey : nil
        )
        files.restAPIs = configuration.restAPIs.map {
            ClientConfigurationFiles.RESTAPIEntry($0, graphQLEndpoint: endpoint)
        }
        files.additionalModes = authorization.additionalModes
        files.additionalAPIKey = authorization.additionalModes.contains(.apiKey) ? apiKey : nil
        files.schema = configuration.schema
        if let cognito, let origin = URL(string: cognito.servedOrigin) {
            files.cognito = ClientConfigurationFiles.CognitoEntry(cognito, endpoint: origin)
        }
        return files
    }

    /// Writes to standard error, a line at a time.
    public static let standardError: @Sendable (String) -> Void = {
        FileHandle.standardError.write(Data(($0 + "\n").utf8))
    }
}
