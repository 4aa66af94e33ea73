import AWSAPIPlugin
import AWSPluginsCore
import AWSWire
import Amplify
import Foundation
import StratusCodegen
import StratusServer
import Synchronization

/// The local backend started in process on a free port, for tests: a temporary data directory,
/// an HTTP endpoint, an API key and IAM credentials, and API plugins configured for it.
///
/// ```swift
/// let backend = try await LocalBackend.start(schema: "type Todo @model { id: ID! name: String! }")
/// let api = try backend.makeAPIPlugin()
/// let todo = try await api.mutate(request: .create(Todo(name: "Buy milk"))).get()
/// await backend.stop()
/// ```
public final class LocalBackend: Sendable {
    /// The GraphQL endpoint: `http://127.0.0.1:<port>/graphql`.
    public let endpoint: URL
    /// The API key the endpoint accepts.
    public let apiKey: String
    /// IAM credentials the endpoint accepts.
    public let credentials: AWSCredentials
    /// The temporary data directory, removed by ``stop()``.
    public let dataDirectory: URL
    /// The local Cognito served on the same port, when the backend was started with one.
    public let cognito: CognitoUserPool?
    /// The origin the Cognito services answer at (`http://127.0.0.1:<port>`), boto3's `endpoint_url`.
    public var origin: URL { URL(string: "http://127.0.0.1:\(endpoint.port ?? 0)")! }

    private struct Running {
        var server: StratusServer
        var task: Task<Void, any Error>?
    }

    private let schema: AnnotatedSchema
    private let configuration: ServerConfiguration
    private let authorization: ServerAuthorization
    /// The REST APIs served under `/rest/<name>`.
    public let restAPIs: [RESTAPI]
    private let running: Mutex<Running>

    /// The server behind the endpoint.
    public var server: StratusServer { running.withLock { $0.server } }

    private init(
        endpoint: URL,
        apiKey: String,
        credentials: AWSCredentials,
        dataDirectory: URL,
        schema: AnnotatedSchema,
        configuration: ServerConfiguration,
        authorization: ServerAuthorization,
        restAPIs: [RESTAPI],
        cognito: CognitoUserPool?,
        server: StratusServer,
        task: Task<Void, any Error>
    ) {
        self.cognito = cognito
        self.endpoint = endpoint
        self.apiKey = apiKey
        self.credentials = credentials
        self.dataDirectory = dataDirectory
        self.schema = schema
        self.configuration = configuration
        self.authorization = authorization
        self.restAPIs = restAPIs
        self.running = Mutex(Running(server: server, task: task))
    }

    /// Serves `server` on `port` (0 for a free one) and returns the task and the bound port.
    private static func serve(
        _ server: StratusServer,
        authorization: ServerAuthorization,
        restAPIs: [RESTAPI],
        cognito: CognitoUserPool?,
        port: Int
    ) async throws -> (Task<Void, any Error>, Int) {
        let http = StratusHTTPServer(
            server: server,
            authorization: authorization,
            restAPIs: restAPIs,
            cognito: cognito,
            log: { _ in }
        )
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task {
            defer { continuation.finish() }
            try await http.run(port: port) { continuation.yield($0) }
        }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next() else {
            let outcome = await task.result
            throw LocalBackendError(message: "The local backend stopped before it listened: \(outcome)")
        }
        return (task, bound)
    }

    /// Starts a backend for `schema` with API key (default) and IAM modes. IAM accepts
    /// ``credentials`` and `otherIAMCredentials` (such as an identity pool's). With `cognito`,
    /// a local user pool and identity pool answer on the same port (``cognito``), and the API
    /// trusts their tokens and credentials.
    ///
    /// - Throws: ``SchemaError`` for a bad schema, or what the server throws when it cannot start.
    public static func start(
        schema source: String,
        configuration: ServerConfiguration = ServerConfiguration(),
        defaultMode: Identity.AuthorizationMode = .apiKey,
        additionalModes: [Identity.AuthorizationMode] = [.awsIAM],
        lambdaAuthorizer: (@Sendable (String) async throws -> LambdaAuthorization)? = nil,
        userPool: UserPoolAuthorization? = nil,
        openIDConnect: OIDCAuthorization? = nil,
        restAPIs: [RESTAPI] = [],
        otherIAMCredentials: [AWSCredentials] = [],
        cognito cognitoConfiguration: CognitoConfiguration? = nil
    ) async throws -> LocalBackend {
        let schema = try SchemaParser().parse(source)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stratus-backend-\(UUID().uuidString)"
        )
        let server = try StratusServer(schema: schema, configuration: configuration, dataDirectory: directory)
        var cognito: CognitoUserPool?
        if let cognitoConfiguration {
            cognito = try await CognitoUserPool(
                configuration: cognitoConfiguration,
                dataDirectory: directory,
                log: { _ in }
            )
        }
        let apiKey = "da2-test-\(UUID().uuidString.prefix(8).lowercased())"
        let credentials = AWSCredentials(
            accessKeyId: "AKIDSTRATUSTEST",
            secretAccessKey: "stratus/test/secret",
            sessionToken: "stratus-session"
        )
        let authorization = ServerAuthorization(
            defaultMode: defaultMode,
            additionalModes: additionalModes,
            apiKeys: [APIKey(value: apiKey)],
            iamCredentials: ([credentials] + otherIAMCredentials).map {
                IAMCredential(
                    accessKeyId: $0.accessKeyId,
                    secretAccessKey: $0.secretAccessKey,
                    sessionToken: $0.sessionToken
                )
            },
            lambdaAuthorizer: lambdaAuthorizer,
            userPool: userPool,
            openIDConnect: openIDConnect
        )
        let task: Task<Void, any Error>
        let port: Int
        do {
            (task, port) = try await serve(
                server,
                authorization: authorization,
                restAPIs: restAPIs,
                cognito: cognito,
                port: 0
            )
        } catch {
            try? server.close()
            throw error
        }
        return LocalBackend(
            endpoint: URL(string: "http://127.0.0.1:\(port)/graphql")!,
            apiKey: apiKey,
            credentials: credentials,
            dataDirectory: directory,
            schema: schema,
            configuration: configuration,
            authorization: authorization,
            restAPIs: restAPIs,
            cognito: cognito,
            server: server,
            task: task
        )
    }

    /// Stops the endpoint and closes the store, keeping the data directory: clients see the
    /// server go away, as when its process dies.
    public func kill() async {
        let (task, server) = running.withLock { running in
            defer { running.task = nil }
            return (running.task, running.server)
        }
        task?.cancel()
        _ = await task?.result
        try? server.close()
    }

    /// Starts the server again on the same port and data directory, after ``kill()``.
    ///
    /// - Throws: when the store cannot be opened or the port cannot be bound again.
    public func restart() async throws {
        let server = try StratusServer(schema: schema, configuration: configuration, dataDirectory: dataDirectory)
        var attempts = 0
        while true {
            do {
                let (task, _) = try await Self.serve(
                    server,
                    authorization: authorization,
                    restAPIs: restAPIs,
                    cognito: cognito,
                    port: endpoint.port ?? 0
                )
                running.withLock { $0 = Running(server: server, task: task) }
                return
            } catch {
                attempts += 1
                // The port may linger for a moment after the previous listener closed.
                guard attempts < 20 else {
                    try? server.close()
                    throw error
                }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// An API plugin configured for this backend with `authorizationType`; with a `proxy`, its
    /// GraphQL requests and real-time connections go through it; with an `authPlugin`, it takes
    /// user pool tokens from it, as `Amplify.configure()` links them.
    ///
    /// - Throws: `ConfigurationError` when the configuration is refused.
    public func makeAPIPlugin(
        authorizationType: AWSAuthorizationType = .apiKey,
        apiAuthProviderFactory: APIAuthProviderFactory = APIAuthProviderFactory(),
        authPlugin: (any AuthCategoryPlugin)? = nil,
        through proxy: FaultProxy? = nil
    ) throws -> AWSAPIPlugin {
        var endpoints: [AWSAPIPluginConfiguration.Endpoint] = [
            .init(
                name: "stratus",
                endpointType: .graphQL,
                endpoint: proxy?.url(proxying: endpoint) ?? endpoint,
                region: "us-east-1",
                authorizationType: authorizationType,
                apiKey: apiKey,
                additionalAuthorizationTypes: AWSAuthorizationType.allCases
            )
        ]
        for api in restAPIs {
            endpoints.append(
                .init(
                    name: api.name,
                    endpointType: .rest,
                    endpoint: api.endpoint(besides: endpoint),
                    region: "us-east-1",
                    authorizationType: AWSAuthorizationType(rawValue: api.authorizationMode.rawValue) ?? .none,
                    apiKey: apiKey,
                    additionalAuthorizationTypes: AWSAuthorizationType.allCases
                )
            )
        }
        let configuration = AWSAPIPluginConfiguration(endpoints: endpoints)
        let plugin = AWSAPIPlugin(
            apiAuthProviderFactory: apiAuthProviderFactory,
            credentialsProvider: StaticCredentialsProvider(credentials)
        )
        plugin.useAuthPlugin(authPlugin)
        try plugin.configure(configuration)
        return plugin
    }

    /// Makes the server's copy of an item newer, as a write from another device would: an
    /// update through the server's own API that raises `_version` by one and sets `values`
    /// (none by default).
    ///
    /// A client that then writes the item with the version it knows meets a conflict, as it
    /// would against AppSync:
    ///
    /// ```swift
    /// let version = try await backend.bumpVersion(model: "Todo", id: todo.id, setting: ["name": "Theirs"])
    /// // A save with `_version: version - 1` now gets ConflictUnhandled under
    /// // OPTIMISTIC_CONCURRENCY, or is merged under AUTOMERGE.
    /// ```
    ///
    /// Subscribers hear the update with every field of the item, as a client's full update
    /// would send them.
    ///
    /// - Parameters:
    ///   - model: The model's name; its primary key must be `id`, and the server must run with
    ///     conflict detection.
    ///   - id: The item's `id`.
    ///   - values: Fields to change, by name, as the update's `input` takes them.
    ///   - identity: Who writes; an API-key caller unless the model's rules need another.
    /// - Returns: The item's new `_version`.
    /// - Throws: ``LocalBackendError`` naming the model and item when the model is unknown, the
    ///   item does not exist, or the server refuses the update.
    @discardableResult
    public func bumpVersion(
        model: String,
        id: String,
        setting values: JSONObject = [:],
        as identity: Identity = .apiKey
    ) async throws -> Int {
        guard let type = schema.models.first(where: { $0.name == model }),
            let get = type.operations.get, let update = type.operations.update
        else {
            throw LocalBackendError(
                message: "The schema has no model '\(model)' with get and update operations. Give one of: "
                    + schema.models.map(\.name).joined(separator: ", ") + "."
            )
        }
        let idLiteral = JSON.string(id).text
        let read = await server.execute(query: "{ \(get)(id: \(idLiteral)) { _version } }", identity: identity).body
        guard let version = read["data"]?[get]?["_version"]?.intValue else {
            throw LocalBackendError(
                message: "Cannot read the _version of \(model) '\(id)': the server answered \(read.text). "
                    + "Create the item first, and start the backend with conflict detection."
            )
        }
        let generator = StatementsGenerator(conflictDetection: configuration.conflictDetection)
        guard let document = generator.document(ofField: update, in: schema) else {
            throw LocalBackendError(message: "The schema has no mutation \(update) for \(model).")
        }
        var input = values
        input["id"] = .string(id)
        input["_version"] = .int(version)
        let written = await server.execute(query: document, variables: ["input": .object(input)], identity: identity)
            .body
        guard let bumped = written["data"]?[update]?["_version"]?.intValue else {
            throw LocalBackendError(
                message: "The server refused to update \(model) '\(id)': it answered \(written.text)."
            )
        }
        return bumped
    }

    /// The base URL of a REST API: `http://127.0.0.1:<port>/rest/<name>`.
    public func restEndpoint(of name: String) -> URL {
        RESTAPI(name: name, routes: []).endpoint(besides: endpoint)
    }

    /// Stops the endpoint, closes the store and removes the data directory.
    public func stop() async {
        await kill()
        try? FileManager.default.removeItem(at: dataDirectory)
    }
}

/// The local backend could not start, or refused what a test asked of it.
public struct LocalBackendError: Error, Sendable, CustomStringConvertible {
    /// What went wrong and what to do.
    public let message: String
    public var description: String { message }
}
