import AWSPluginsCore
import AWSWire
import Amplify
import Foundation
import Synchronization
import Tracing

/// The API category on AWS: GraphQL (AppSync) and REST (API Gateway) APIs with every AWS
/// authorization mode.
///
/// ```swift
/// try Amplify.add(plugin: AWSAPIPlugin(apiAuthProviderFactory: MyAPIAuthProviderFactory()))
/// try Amplify.configure()
/// let response = try await Amplify.API.query(request: .list(Post.self))
/// ```
///
/// Each request goes through the same stages, for every attempt: the authorization prelude
/// (`content-type`, then `x-api-key` or the provider's token in `authorization`), the request's
/// own headers, the interceptors added for its API in the order they were added, and last,
/// for `AWS_IAM`, the SigV4 signature (service `appsync` for GraphQL, `execute-api` for REST)
/// over everything before it.
///
/// Every dependency can be passed in, which is how tests and tools build the plugin: the
/// credentials of `AWS_IAM`, the HTTP transport, the retry policy and the clock.
public final class AWSAPIPlugin: APICategoryPlugin, AuthCategoryPluginUser {
    /// `awsAPIPlugin`, the plugin's key in `amplifyconfiguration.json`.
    public let key = "awsAPIPlugin"

    /// The token providers of `AMAZON_COGNITO_USER_POOLS`, `OPENID_CONNECT` and `AWS_LAMBDA`.
    public var apiAuthProviderFactory: APIAuthProviderFactory { factory.value }
    /// The credentials `AWS_IAM` signs with when no Auth plugin provides them: the ones the
    /// plugin was created with, or the environment's.
    public let credentialsProvider: any AWSCredentialsProvider
    /// What sends the requests.
    public let transport: any HTTPTransport
    /// How often requests answered with a status `RetryRule` retries are sent again.
    public let retryPolicy: RetryPolicy
    /// The time signatures are dated with, and the waits between retries.
    public let clock: APIClock
    /// How subscriptions reconnect after a drop.
    public let realTimeConfiguration: AppSyncRealTimeConfiguration
    /// What makes a client span per GraphQL and REST request, sending its `traceparent`; `nil`
    /// uses swift-distributed-tracing's `InstrumentationSystem.tracer`, read at each request: no
    /// span until the application bootstraps a tracer.
    public let tracer: (any Tracer)?

    private let factory: SharedAuthProviderFactory
    /// Whether the plugin was created with a credentials provider, which then wins over the Auth plugin's.
    private let hasOwnCredentialsProvider: Bool
    private let initialConfiguration: AWSAPIPluginConfiguration?

    private struct State {
        var configuration: AWSAPIPluginConfiguration?
        var interceptors: [String: [any URLRequestInterceptor]] = [:]
        /// The Auth plugin added to Amplify next to this one, which provides user pool tokens and
        /// AWS credentials.
        var authPlugin: (any AuthCategoryPlugin)?
        /// One real-time connection per API and auth mode.
        var realTimeClients: [String: AppSyncRealTimeClient] = [:]
    }

    private let state = Mutex(State())

    /// Creates the plugin.
    ///
    /// - Parameters:
    ///   - apiAuthProviderFactory: The token providers of the modes that send a token.
    ///   - credentialsProvider: The credentials of `AWS_IAM`; by default those of the Auth plugin
    ///     added to Amplify (an identity pool's guest or signed-in credentials), or without one
    ///     the environment's `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`.
    ///   - transport: What sends the requests; by default `defaultHTTPTransport()` (AsyncHTTPClient on
    ///     Linux, `URLSession` on Apple platforms).
    ///   - retryPolicy: How often requests answered with a status `RetryRule` retries are sent again.
    ///   - clock: The date of signatures and the waits between retries.
    ///   - realTimeConfiguration: The backoff of subscriptions that reconnect after a drop.
    ///   - configuration: The APIs, for a plugin configured without a file. `Amplify.configure()`
    ///     then fails if the file configures the plugin too.
    ///   - tracer: What makes the requests' client spans; by default the one bootstrapped in
    ///     `InstrumentationSystem`, if any.
    public init(
        apiAuthProviderFactory: APIAuthProviderFactory = APIAuthProviderFactory(),
        credentialsProvider: (any AWSCredentialsProvider)? = nil,
        transport: any HTTPTransport = defaultHTTPTransport(),
        retryPolicy: RetryPolicy = .standard,
        clock: APIClock = .system,
        realTimeConfiguration: AppSyncRealTimeConfiguration = AppSyncRealTimeConfiguration(),
        configuration: AWSAPIPluginConfiguration? = nil,
        tracer: (any Tracer)? = nil
    ) {
        self.factory = SharedAuthProviderFactory(value: apiAuthProviderFactory)
        self.tracer = tracer
        self.credentialsProvider = credentialsProvider ?? EnvironmentCredentialsProvider()
        self.hasOwnCredentialsProvider = credentialsProvider != nil
        self.transport = transport
        self.retryPolicy = retryPolicy
        self.clock = clock
        self.realTimeConfiguration = realTimeConfiguration
        self.initialConfiguration = configuration
    }

    /// Creates the plugin and registers the models of `modelRegistration` (the `AmplifyModels()`
    /// that `stratus codegen models` generates), so that responses and DataStore's sync can
    /// decode them: Amplify's form for an app that uses DataStore.
    ///
    /// ```swift
    /// try Amplify.add(plugin: AWSAPIPlugin(modelRegistration: AmplifyModels()))
    /// try Amplify.add(plugin: AWSDataStorePlugin(modelRegistration: AmplifyModels()))
    /// ```
    public convenience init(
        modelRegistration: some AmplifyModelRegistration,
        apiAuthProviderFactory: APIAuthProviderFactory = APIAuthProviderFactory(),
        credentialsProvider: (any AWSCredentialsProvider)? = nil,
        configuration: AWSAPIPluginConfiguration? = nil
    ) {
        _ = ModelRegistry.modelTypes(registeredBy: modelRegistration)
        self.init(
            apiAuthProviderFactory: apiAuthProviderFactory,
            credentialsProvider: credentialsProvider,
            configuration: configuration
        )
    }

    /// The configuration in use; `nil` before the plugin is configured.
    public var configuration: AWSAPIPluginConfiguration? {
        state.withLock { $0.configuration }
    }

    /// Configures the plugin from whichever API configuration `configuration` holds: the
    /// `api.plugins.awsAPIPlugin` section of `amplifyconfiguration.json`, the `data` section
    /// of a Gen2 `amplify_outputs.json`, or the `AppSync` section of an `awsconfiguration.json`.
    ///
    /// - Throws: `ConfigurationError` naming the key at fault and the fix, including when
    ///   there is no API configuration at all, or when the plugin was created with one and the
    ///   file has one too.
    public func configure(with configuration: AmplifyConfiguration?) throws {
        let json = configuration?.json
        let section: (name: String, parse: () throws -> AWSAPIPluginConfiguration)? =
            if let section = configuration?.pluginConfiguration(category: "api", key: key) {
                ("api.plugins.awsAPIPlugin", { try AWSAPIPluginConfiguration(amplifyConfigurationSection: section) })
            } else if let json, json["data"] != nil || json.value(at: "custom.API") != nil {
                ("amplify_outputs.json", { try AWSAPIPluginConfiguration(amplifyOutputs: json) })
            } else if let json, json["AppSync"] != nil {
                ("AppSync", { try AWSAPIPluginConfiguration(awsConfiguration: json) })
            } else {
                nil
            }
        if let section, initialConfiguration != nil {
            throw ConfigurationError(
                "AWSAPIPlugin was created with a configuration, and the configuration file has one too (\(section.name)). "
                    + "Remove one of them."
            )
        }
        guard let resolved = try section?.parse() ?? initialConfiguration else {
            if let json, json["version"] != nil {
                // A Gen2 amplify_outputs.json without an API: say what it lacks.
                _ = try AWSAPIPluginConfiguration(amplifyOutputs: json)
            }
            throw Self.missingConfiguration
        }
        try configure(resolved)
    }

    /// Configures the plugin from the `api.plugins.awsAPIPlugin` section of
    /// `amplifyconfiguration.json`.
    ///
    /// - Throws: `ConfigurationError` naming the key at fault and the fix.
    public func configure(using configuration: JSONValue?) throws {
        try configure(
            with: configuration.map { AmplifyConfiguration(json: ["api": ["plugins": ["awsAPIPlugin": $0]]]) }
        )
    }

    /// Configures the plugin with `configuration`, replacing any previous one.
    ///
    /// - Throws: `ConfigurationError` when an API's authorization mode lacks what it needs
    ///   (an API key, a region, a token provider) or an interceptor names an unknown API.
    public func configure(_ configuration: AWSAPIPluginConfiguration) throws {
        try configuration.validate(
            apiAuthProviderFactory: apiAuthProviderFactory,
            hasAuthPlugin: state.withLock { $0.authPlugin != nil }
        )
        try state.withLock { state in
            for name in state.interceptors.keys.sorted() where configuration.endpoints[name] == nil {
                throw ConfigurationError(
                    "An interceptor was added for the API '\(name)', which is not configured. "
                        + "Add it for one of: \(configuration.endpoints.keys.sorted().joined(separator: ", "))."
                )
            }
            state.configuration = configuration
            // Connections made for the previous configuration serve the subscriptions already
            // running on them, and end with them; new subscriptions connect anew.
            state.realTimeClients = [:]
        }
    }

    /// Adds an interceptor to the requests to the API `apiName`, after those already added.
    ///
    /// ```swift
    /// try apiPlugin.add(interceptor: CustomInterceptor(), for: "yourApiName")
    /// ```
    ///
    /// - Throws: `ConfigurationError` when the plugin is configured and has no API named
    ///   `apiName`. Before configuration the name is checked by `configure`.
    public func add(interceptor: any URLRequestInterceptor, for apiName: String) throws {
        try state.withLock { state in
            if let configuration = state.configuration, configuration.endpoints[apiName] == nil {
                throw ConfigurationError(
                    "add(interceptor:for:) names the API '\(apiName)', which is not configured. "
                        + "Use one of: \(configuration.endpoints.keys.sorted().joined(separator: ", "))."
                )
            }
            state.interceptors[apiName, default: []].append(interceptor)
        }
    }

    /// The shared real-time connection of the pipeline's API and auth mode.
    func realTimeClient(for pipeline: RequestPipeline) -> AppSyncRealTimeClient {
        let key = "\(pipeline.endpoint.name)|\(pipeline.authorizer.mode.rawValue)"
        return state.withLock { state in
            if let client = state.realTimeClients[key] { return client }
            let client = AppSyncRealTimeClient(
                graphQLURL: pipeline.endpoint.endpoint,
                authorizer: PluginRealTimeAuthorizer(authorizer: pipeline.authorizer),
                configuration: realTimeConfiguration
            )
            state.realTimeClients[key] = client
            return client
        }
    }

    /// Takes user pool tokens (for `AMAZON_COGNITO_USER_POOLS`, when the factory provides none)
    /// and AWS credentials (for `AWS_IAM`, when the plugin was created without a credentials
    /// provider) from `plugin`; `Amplify.configure()` calls it with the Auth plugin added.
    package func useAuthPlugin(_ plugin: (any AuthCategoryPlugin)?) {
        state.withLock { $0.authPlugin = plugin }
    }

    /// Forgets the configuration, the interceptors and the Auth plugin.
    public func reset() async {
        state.withLock { $0 = State() }
    }

    static let missingConfiguration = ConfigurationError(
        "AWSAPIPlugin has no configuration. Add api.plugins.awsAPIPlugin to amplifyconfiguration.json, "
            + "a data section to amplify_outputs.json, or create the plugin with AWSAPIPlugin(configuration:)."
    )

    /// What a request to the API `apiName` of type `type` needs, read once under the lock.
    func pipeline(
        apiName: String?,
        type: AWSAPIPluginConfiguration.EndpointType,
        authMode: AWSAuthorizationType?
    ) throws -> RequestPipeline {
        let (configuration, interceptors, authPlugin) = state.withLock {
            ($0.configuration, $0.interceptors, $0.authPlugin)
        }
        guard let configuration else {
            throw APIError.invalidConfiguration(
                "AWSAPIPlugin is not configured.",
                "Call Amplify.configure() after adding the plugin."
            )
        }
        let endpoint = try configuration.endpoint(named: apiName, type: type)
        return RequestPipeline(
            endpoint: endpoint,
            authorizer: RequestAuthorizer(
                endpoint: endpoint,
                mode: authMode ?? endpoint.authorizationType,
                isOverride: authMode != nil,
                apiAuthProviderFactory: factory,
                authPlugin: authPlugin,
                credentialsProvider: hasOwnCredentialsProvider
                    ? credentialsProvider
                    : authPlugin.map { AuthPluginCredentialsProvider(auth: $0) } ?? credentialsProvider,
                clock: clock
            ),
            interceptors: interceptors[endpoint.name] ?? [],
            transport: transport,
            retryPolicy: retryPolicy,
            clock: clock,
            tracer: tracer ?? InstrumentationSystem.tracer
        )
    }
}
