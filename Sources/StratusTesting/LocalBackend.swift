import AWSAPIPlugin
import AWSPluginsCore
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
    /// The server behind the endpoint.
    public let server: StratusServer
    /// The temporary data directory, removed by ``stop()``.
    public let dataDirectory: URL

    private let task: Mutex<Task<Void, any Error>?>

    private init(
        endpoint: URL,
        apiKey: String,
        credentials: AWSCredentials,
        server: StratusServer,
        dataDirectory: URL,
        task: Task<Void, any Error>
    ) {
        self.endpoint = endpoint
        self.apiKey = apiKey
        self.credentials = credentials
        self.server = server
        self.dataDirectory = dataDirectory
        self.task = Mutex(task)
    }

    /// Starts a backend for `schema` with API key (default) and IAM modes.
    ///
    /// - Throws: ``SchemaError`` for a bad schema, or what the server throws when it cannot start.
    public static func start(
        schema source: String,
        configuration: ServerConfiguration = ServerConfiguration(),
        defaultMode: Identity.AuthorizationMode = .apiKey,
        additionalModes: [Identity.AuthorizationMode] = [.awsIAM],
        lambdaAuthorizer: (@Sendable (String) async throws -> LambdaAuthorization)? = nil,
        userPool: UserPoolAuthorization? = nil,
        openIDConnect: OIDCAuthorization? = nil
    ) async throws -> LocalBackend {
        let schema = try SchemaParser().parse(source)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stratus-backend-\(UUID().uuidString)"
        )
        let server = try StratusServer(schema: schema, configuration: configuration, dataDirectory: directory)
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
            iamCredentials: [
                IAMCredential(
                    accessKeyId: credentials.accessKeyId,
                    secretAccessKey: credentials.secretAccessKey,
                    sessionToken: credentials.sessionToken
                )
            ],
            lambdaAuthorizer: lambdaAuthorizer,
            userPool: userPool,
            openIDConnect: openIDConnect
        )
        let http = StratusHTTPServer(server: server, authorization: authorization, log: { _ in })
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task {
            defer { continuation.finish() }
            try await http.run(port: 0) { continuation.yield($0) }
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            _ = await task.result
            try? server.close()
            throw LocalBackendError(message: "The local backend stopped before it listened.")
        }
        return LocalBackend(
            endpoint: URL(string: "http://127.0.0.1:\(port)/graphql")!,
            apiKey: apiKey,
            credentials: credentials,
            server: server,
            dataDirectory: directory,
            task: task
        )
    }

    /// An API plugin configured for this backend with `authorizationType`.
    ///
    /// - Throws: `ConfigurationError` when the configuration is refused.
    public func makeAPIPlugin(
        authorizationType: AWSAuthorizationType = .apiKey,
        apiAuthProviderFactory: APIAuthProviderFactory = APIAuthProviderFactory()
    ) throws -> AWSAPIPlugin {
        let configuration = AWSAPIPluginConfiguration(endpoints: [
            .init(
                name: "stratus",
                endpointType: .graphQL,
                endpoint: endpoint,
                region: "us-east-1",
                authorizationType: authorizationType,
                apiKey: apiKey,
                additionalAuthorizationTypes: AWSAuthorizationType.allCases
            )
        ])
        let plugin = AWSAPIPlugin(
            apiAuthProviderFactory: apiAuthProviderFactory,
            credentialsProvider: StaticCredentialsProvider(credentials)
        )
        try plugin.configure(configuration)
        return plugin
    }

    /// Stops the endpoint, closes the store and removes the data directory.
    public func stop() async {
        let running = task.withLock { task in
            defer { task = nil }
            return task
        }
        running?.cancel()
        _ = await running?.result
        try? server.close()
        try? FileManager.default.removeItem(at: dataDirectory)
    }
}

/// The local backend could not start.
public struct LocalBackendError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
