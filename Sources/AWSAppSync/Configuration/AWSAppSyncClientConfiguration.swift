import AWSCore
import AWSPluginsCore
import AWSWire
import Amplify
import Foundation
import Metrics
import Tracing

/// Everything an ``AWSAppSyncClient`` needs: the API, how to authorize its requests, and where
/// to keep its cache.
///
/// The authorization mode comes from the service configuration; give the provider that mode
/// needs (`credentialsProvider:` for `AWS_IAM`, or else the identity pool of the file's
/// `CredentialsProvider` section; `userPoolsAuthProvider:` for
/// `AMAZON_COGNITO_USER_POOLS`, `oidcAuthProvider:` for `OPENID_CONNECT`,
/// `awsLambdaAuthProvider:` for `AWS_LAMBDA`; `API_KEY` uses `ApiKey` unless an
/// `apiKeyAuthProvider:` is given).
///
/// Queued mutations are tried again when the server cannot be reached (after
/// `2^n·100 ms + jitter`, capped at 5 minutes, or at once when the API answers again), when it
/// answers a status `RetryRule` retries (408, 409 for their `Idempotency-Key`, 429, 5xx other
/// than 501 and 505; after its `Retry-After`), when no token or credentials can be had,
/// and once at once after an HTTP 401, with the token or credentials fetched again. Other
/// refusals end the mutation with an error.
///
/// ```swift
/// let appSyncConfig = try AWSAppSyncClientConfiguration(
///     appSyncServiceConfig: AWSAppSyncServiceConfig(),
///     cacheConfiguration: AWSAppSyncCacheConfiguration()
/// )
/// let appSyncClient = try AWSAppSyncClient(appSyncConfig: appSyncConfig)
/// ```
public struct AWSAppSyncClientConfiguration: Sendable {
    /// The API.
    public let appSyncServiceConfig: AWSAppSyncServiceConfig
    /// Where the caches are; in memory when `nil`, the offline mutation queue included: give a
    /// cache configuration (or a `databaseURL`) for mutations to outlive the process.
    public let cacheConfiguration: AWSAppSyncCacheConfiguration?
    /// Hears of the mutations replayed from the offline queue after a restart.
    public let offlineMutationDelegate: (any AWSAppSyncOfflineMutationDelegate)?
    /// How the offline queue orders mutations: ``MutationOrdering/serial`` (the default) sends
    /// one at a time; ``MutationOrdering/perRecord(maxConcurrent:)`` sends mutations of
    /// different records at once, each record's in order.
    public var mutationOrdering: MutationOrdering = .serial
    /// The cache keys of response objects, set before the client starts; the same as setting
    /// `apolloClient?.cacheKeyForObject` after, except that mutations replayed from the queue
    /// as the client starts are written to the cache with it too.
    ///
    /// ```swift
    /// var appSyncConfig = try AWSAppSyncClientConfiguration(appSyncServiceConfig: serviceConfig)
    /// appSyncConfig.cacheKeyForObject = { $0["id"] }
    /// ```
    public var cacheKeyForObject: CacheKeyForObject?
    /// What makes a client span per query and mutation sent, whose `traceparent` the request
    /// carries; `nil` uses swift-distributed-tracing's `InstrumentationSystem.tracer`, read at
    /// each request: no span until the application bootstraps a tracer.
    ///
    /// ```swift
    /// var appSyncConfig = try AWSAppSyncClientConfiguration(appSyncServiceConfig: serviceConfig)
    /// appSyncConfig.tracer = tracer
    /// ```
    public var tracer: (any Tracer)?
    /// Where the client reports the device's health (the offline mutation queue's depth and the
    /// age of its oldest mutation, delta sync lag, reconnections, mutations sent and refused; see
    /// <doc:DeviceHealth>); `nil` uses swift-metrics' `MetricsSystem.factory` as it is when the
    /// client is made. Until the application bootstraps a metrics backend that is the no-op
    /// factory, and the client measures nothing.
    ///
    /// ```swift
    /// var appSyncConfig = try AWSAppSyncClientConfiguration(appSyncServiceConfig: serviceConfig)
    /// appSyncConfig.metricsFactory = prometheus  // or MetricsSystem.bootstrap(prometheus)
    /// ```
    public var metricsFactory: (any MetricsFactory)?
    /// The device's clock; `Date()` by default. A delta sync records the time it started as the
    /// server's, which the `Date` header of its answer tells, so a clock that is off changes only
    /// whether a sync runs the base or the delta query before the client's first answer.
    public var clock: @Sendable () -> Date = { Date() }
    let authorization: AppSyncAuthorization
    /// When queued mutations are tried again.
    var retryPolicy = MutationRetryPolicy()
    /// What sends the client's HTTP requests; `defaultHTTPTransport()` (AsyncHTTPClient on Linux,
    /// `URLSession` on Apple platforms) when `nil`.
    var transport: (any HTTPTransport)?
    /// How the real-time connection reconnects and how long it waits for the server.
    var realTimeConfiguration = AppSyncRealTimeConfiguration()

    /// A configuration for the API of `appSyncServiceConfig`, with its databases where
    /// `cacheConfiguration` puts them: without one, the query cache, the offline mutation queue
    /// and the subscription metadata are in memory, and queued mutations end with the process.
    ///
    /// - Throws: ``AWSAppSyncClientError`` (``AWSAppSyncClientError/Code/configuration``)
    ///   when the auth mode lacks what it needs: an API key, or its provider.
    public init(
        appSyncServiceConfig: AWSAppSyncServiceConfig,
        apiKeyAuthProvider: (any AWSAPIKeyAuthProvider)? = nil,
        credentialsProvider: (any AWSCredentialsProvider)? = nil,
        userPoolsAuthProvider: (any AWSCognitoUserPoolsAuthProvider)? = nil,
        oidcAuthProvider: (any AWSOIDCAuthProvider)? = nil,
        awsLambdaAuthProvider: (any AWSLambdaAuthProvider)? = nil,
        cacheConfiguration: AWSAppSyncCacheConfiguration? = nil,
        offlineMutationDelegate: (any AWSAppSyncOfflineMutationDelegate)? = nil
    ) throws {
        self.appSyncServiceConfig = appSyncServiceConfig
        self.cacheConfiguration = cacheConfiguration
        self.offlineMutationDelegate = offlineMutationDelegate
        self.authorization = try AppSyncAuthorization(
            config: appSyncServiceConfig,
            apiKeyAuthProvider: apiKeyAuthProvider,
            credentialsProvider: credentialsProvider,
            userPoolsAuthProvider: userPoolsAuthProvider,
            oidcAuthProvider: oidcAuthProvider,
            awsLambdaAuthProvider: awsLambdaAuthProvider
        )
    }

    /// A configuration for the API of `appSyncClientInfo`, with the client's three databases in
    /// the one SQLite file at `databaseURL`: the query cache, the offline mutation queue and the
    /// subscription metadata, as the AppSync SDK kept them. Mutations queued while offline are
    /// on disk when `perform` returns, and a client opened on the same file later sends them.
    /// With `databaseURL` `nil`, all three are in memory and the queue ends with the process.
    ///
    /// ```swift
    /// let databaseURL = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("database_name")
    /// let appSyncConfig = try AWSAppSyncClientConfiguration(appSyncClientInfo: AWSAppSyncClientInfo(), databaseURL: databaseURL)
    /// ```
    ///
    /// - Throws: ``AWSAppSyncClientError`` when the auth mode lacks what it needs.
    public init(
        appSyncClientInfo: AWSAppSyncClientInfo,
        apiKeyAuthProvider: (any AWSAPIKeyAuthProvider)? = nil,
        credentialsProvider: (any AWSCredentialsProvider)? = nil,
        userPoolsAuthProvider: (any AWSCognitoUserPoolsAuthProvider)? = nil,
        oidcAuthProvider: (any AWSOIDCAuthProvider)? = nil,
        awsLambdaAuthProvider: (any AWSLambdaAuthProvider)? = nil,
        databaseURL: URL? = nil,
        offlineMutationDelegate: (any AWSAppSyncOfflineMutationDelegate)? = nil
    ) throws {
        try self.init(
            appSyncServiceConfig: appSyncClientInfo,
            apiKeyAuthProvider: apiKeyAuthProvider,
            credentialsProvider: credentialsProvider,
            userPoolsAuthProvider: userPoolsAuthProvider,
            oidcAuthProvider: oidcAuthProvider,
            awsLambdaAuthProvider: awsLambdaAuthProvider,
            cacheConfiguration: databaseURL.map {
                AWSAppSyncCacheConfiguration(offlineMutations: $0, queries: $0, subscriptionMetadataCache: $0)
            },
            offlineMutationDelegate: offlineMutationDelegate
        )
    }
}

/// How requests to one API are authorized: the mode, and what it sends.
struct AppSyncAuthorization: @unchecked Sendable {
    // @unchecked: the providers are not `Sendable` (see AuthProviders.swift); their
    // documentation asks implementations to be safe to call from any thread.
    enum Source {
        case none
        case apiKey(String)
        case apiKeyProvider(any AWSAPIKeyAuthProvider)
        case iam(any AWSCredentialsProvider)
        case token(any AWSOIDCAuthProvider, providerName: String)
        case lambdaToken(any AWSLambdaAuthProvider)
    }

    let mode: AWSAuthorizationType
    let region: String
    let source: Source

    init(
        config: AWSAppSyncServiceConfig,
        apiKeyAuthProvider: (any AWSAPIKeyAuthProvider)?,
        credentialsProvider: (any AWSCredentialsProvider)?,
        userPoolsAuthProvider: (any AWSCognitoUserPoolsAuthProvider)?,
        oidcAuthProvider: (any AWSOIDCAuthProvider)?,
        awsLambdaAuthProvider: (any AWSLambdaAuthProvider)?
    ) throws {
        mode = config.authType
        region = config.region
        func missing(_ provider: String, example: String) -> AWSAppSyncClientError {
            AWSAppSyncClientError(
                .configuration,
                "AppSync.\(config.key).AuthMode is \(config.authType.rawValue), but no \(provider) was given. "
                    + "Pass AWSAppSyncClientConfiguration(appSyncServiceConfig:, \(provider): \(example), …), "
                    + "or change AuthMode."
            )
        }
        switch config.authType {
        case .none:
            source = .none
        case .apiKey:
            if let apiKeyAuthProvider {
                source = .apiKeyProvider(apiKeyAuthProvider)
            } else if let key = config.apiKey {
                source = .apiKey(key)
            } else {
                throw AWSAppSyncClientError(
                    .configuration,
                    "AppSync.\(config.key).AuthMode is API_KEY, but AppSync.\(config.key).ApiKey is missing from "
                        + "awsconfiguration.json. Add the API key, or pass an apiKeyAuthProvider."
                )
            }
        case .awsIAM:
            if let credentialsProvider {
                source = .iam(credentialsProvider)
            } else if let pool = config.cognitoIdentity {
                // As the AppSync SDK does: the identity pool of the file's CredentialsProvider.
                source = .iam(
                    AWSCognitoCredentialsProvider(
                        regionType: pool.region.aws_regionTypeValue(),
                        identityPoolId: pool.poolId,
                        endpoint: pool.endpoint
                    )
                )
            } else {
                throw AWSAppSyncClientError(
                    .configuration,
                    "AppSync.\(config.key).AuthMode is AWS_IAM, but no credentialsProvider was given and "
                        + "awsconfiguration.json has no CredentialsProvider section to take the identity pool from. "
                        + "Add {\"CredentialsProvider\": {\"CognitoIdentity\": {\"Default\": "
                        + "{\"PoolId\": \"us-east-1:<id>\", \"Region\": \"us-east-1\"}}}}, or pass "
                        + "AWSAppSyncClientConfiguration(appSyncServiceConfig:, credentialsProvider: "
                        + "AWSMobileClient.default(), …)."
                )
            }
        case .amazonCognitoUserPools:
            guard let userPoolsAuthProvider else {
                throw missing("userPoolsAuthProvider", example: "an AWSCognitoUserPoolsAuthProvider")
            }
            source = .token(userPoolsAuthProvider, providerName: "userPoolsAuthProvider")
        case .openIDConnect:
            guard let oidcAuthProvider else {
                throw missing("oidcAuthProvider", example: "an AWSOIDCAuthProvider")
            }
            source = .token(oidcAuthProvider, providerName: "oidcAuthProvider")
        case .function:
            guard let awsLambdaAuthProvider else {
                throw missing("awsLambdaAuthProvider", example: "an AWSLambdaAuthProvider")
            }
            source = .lambdaToken(awsLambdaAuthProvider)
        }
    }
}

/// How the offline mutation queue orders the mutations it sends.
///
/// ```swift
/// appSyncConfig.mutationOrdering = .perRecord(maxConcurrent: 4)
/// ```
public struct MutationOrdering: Sendable, Hashable {
    /// How many mutations may be in flight at once.
    public let maxConcurrent: Int
    /// Whether only mutations of one record keep their order.
    public let isPerRecord: Bool

    /// One mutation in flight per client, in the order they were performed, as the AppSync SDK
    /// sends them.
    public static let serial = MutationOrdering(maxConcurrent: 1, isPerRecord: false)

    /// Up to `maxConcurrent` mutations in flight, of different records: the mutations of one
    /// record (the `input.id` or `id` variable) are sent in the order they were performed, one
    /// at a time. A mutation whose variables name no record is sent alone, after every mutation
    /// performed before it and before every one performed after it.
    ///
    /// - Precondition: `maxConcurrent` is 1 or more.
    public static func perRecord(maxConcurrent: Int = 4) -> MutationOrdering {
        precondition(maxConcurrent >= 1, "perRecord(maxConcurrent:) needs 1 or more, not \(maxConcurrent).")
        return MutationOrdering(maxConcurrent: maxConcurrent, isPerRecord: true)
    }

    /// The record a mutation with `variables` writes: its `input.id`, or its `id`.
    static func recordKey(of variables: GraphQLMap?) -> String? {
        let id = variables?["input"]?.objectValue?["id"] ?? variables?["id"]
        return id.flatMap(CacheNormalizer.keyText)
    }
}
