import AWSAPIPlugin
import AWSPluginsCore
import AWSWire
import Amplify
import Foundation
import StratusBackend
import StratusCodegen
import StratusCognito
import StratusServer
import Synchronization
import Tracing

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
    public var cognito: CognitoUserPool? { running.withLock { $0.backend.cognito } }
    /// The origin the Cognito services answer at (`http://127.0.0.1:<port>`), boto3's `endpoint_url`.
    public var origin: URL { URL(string: "http://127.0.0.1:\(endpoint.port ?? 0)")! }

    private struct Running {
        var backend: Backend
        var serving: Backend.Serving?
    }

    private let schema: AnnotatedSchema
    private let configuration: ServerConfiguration
    /// The REST APIs served under `/rest/<name>`.
    public let restAPIs: [RESTAPI]
    private let running: Mutex<Running>

    /// The server behind the endpoint.
    public var server: StratusServer { running.withLock { $0.backend.server } }

    /// The configuration files `stratus serve` writes for clients of this backend.
    public var clientConfiguration: ClientConfigurationFiles {
        running.withLock { $0.backend.clientConfiguration(endpoint: endpoint) }
    }

    private init(
        endpoint: URL,
        apiKey: String,
        credentials: AWSCredentials,
        dataDirectory: URL,
        schema: AnnotatedSchema,
        configuration: ServerConfiguration,
        restAPIs: [RESTAPI],
        backend: Backend,
        serving: Backend.Serving
    ) {
        self.endpoint = endpoint
        self.apiKey = apiKey
        self.credentials = credentials
        self.dataDirectory = dataDirectory
        self.schema = schema
        self.configuration = configuration
        self.restAPIs = restAPIs
        self.running = Mutex(Running(backend: backend, serving: serving))
    }

    /// Starts a backend for `schema` with API key (default) and IAM modes. IAM accepts
    /// ``credentials`` and `otherIAMCredentials` (such as an identity pool's). With `cognito`,
    /// a local user pool and identity pool answer on the same port (``cognito``), and the API
    /// trusts their tokens and credentials.
    ///
    /// - Throws: `SchemaError` for a bad schema, or what the backend throws when it cannot start.
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
        cognito cognitoConfiguration: CognitoConfiguration? = nil,
        metrics: MetricsEndpoint? = nil,
        tracing: ServerTracing? = nil
    ) async throws -> LocalBackend {
        let schema = try SchemaParser().parse(source)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stratus-backend-\(UUID().uuidString)"
        )
        let apiKey = "da2-test-\(UUID().uuidString.prefix(8).lowercased())"
        let credentials = AWSCredentials(
            accessKeyId: "AKIDSTRATUSTEST",
            secretAccessKey: "stratus/test/secret",
            sessionToken: "stratus-session"
        )
        let backend = try await Backend.open(
            Backend.Configuration(
                schema: schema,
                store: .dataDirectory(directory),
                server: configuration,
                authorization: ServerAuthorization(
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
                ),
                cognito: cognitoConfiguration,
                restAPIs: restAPIs,
                // Failures the tests provoke (cut connections, failing handlers) stay out of their output.
                httpLog: { _ in },
                metrics: metrics,
                tracing: tracing,
                cognitoLog: { _ in }
            )
        )
        let serving: Backend.Serving
        do {
            serving = try await backend.start(port: 0)
        } catch {
            try? backend.close()
            throw error
        }
        return LocalBackend(
            endpoint: URL(string: "http://127.0.0.1:\(serving.port)/graphql")!,
            apiKey: apiKey,
            credentials: credentials,
            dataDirectory: directory,
            schema: schema,
            configuration: configuration,
            restAPIs: restAPIs,
            backend: backend,
            serving: serving
        )
    }

    /// Stops the endpoint and closes the store, keeping the data directory: clients see the
    /// server go away, as when its process dies.
    public func kill() async {
        let (serving, backend) = running.withLock { running in
            defer { running.serving = nil }
            return (running.serving, running.backend)
        }
        await serving?.stop()
        try? backend.close()
    }

    /// Starts the server again on the same port and data directory, after ``kill()``.
    ///
    /// - Throws: when the store cannot be opened or the port cannot be bound again.
    public func restart() async throws {
        let previous = running.withLock { $0.backend }
        var attempts = 0
        var reopened: Backend?
        while true {
            do {
                // The previous server's last statements may still hold the database for a moment
                // after it closed (SQLite answers "database is locked" to an opening connection).
                let backend: Backend
                if let reopened {
                    backend = reopened
                } else {
                    backend = try await previous.reopened()
                    reopened = backend
                }
                let serving = try await backend.start(port: endpoint.port ?? 0)
                running.withLock { $0 = Running(backend: backend, serving: serving) }
                return
            } catch {
                attempts += 1
                // The port may linger for a moment after the previous listener closed.
                guard attempts < 20 else {
                    try? reopened?.close()
                    throw error
                }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// An API plugin configured for this backend with `authorizationType`; with a `proxy`, its
    /// GraphQL requests and real-time connections go through it; with an `authPlugin`, it takes
    /// user pool tokens from it, as `Amplify.configure()` links them; with a `tracer`, its
    /// requests make client spans and carry their `traceparent`.
    ///
    /// - Throws: `ConfigurationError` when the configuration is refused.
    public func makeAPIPlugin(
        authorizationType: AWSAuthorizationType = .apiKey,
        apiAuthProviderFactory: APIAuthProviderFactory = APIAuthProviderFactory(),
        authPlugin: (any AuthCategoryPlugin)? = nil,
        through proxy: FaultProxy? = nil,
        tracer: (any Tracer)? = nil
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
            credentialsProvider: StaticCredentialsProvider(credentials),
            tracer: tracer
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
