import Amplify
import Foundation

/// Supplies the authorization objects of AppSync's real-time protocol.
///
/// The connection carries one in its `header` query parameter; each `start` message carries one
/// in `payload.extensions.authorization`. Both name the GraphQL `host`. For `AWS_IAM` the
/// connection's object is a SigV4 signature of `POST <graphql url>/connect` with body `{}`, and
/// a start's of `POST <graphql url>` with the start's `data` as body.
public protocol AppSyncRealTimeAuthorizer: Sendable {
    /// The authorization object of a new connection.
    func connectionAuthorization(graphQLURL: URL) async throws -> [String: String]
    /// The authorization object of a `start` whose `payload.data` is `data`.
    func startAuthorization(graphQLURL: URL, data: String) async throws -> [String: String]
}

/// How the real-time client reconnects and how long it waits for the server.
public struct AppSyncRealTimeConfiguration: Sendable {
    /// The first wait after a drop; each further failure doubles it, up to ``maximumDelay``.
    public var initialDelay: Duration
    /// The longest wait between two attempts.
    public var maximumDelay: Duration
    /// How long a connection may wait for `connection_ack`.
    public var acknowledgementTimeout: Duration
    /// The keep-alive timeout when `connection_ack` does not give `connectionTimeoutMs`.
    public var defaultConnectionTimeout: Duration
    /// Called each time the server acknowledges a connection that replaces one it acknowledged
    /// before (a reconnection after a drop), on the client's actor: it must return quickly. A
    /// connection opened again after the last subscription stopped is not a reconnection.
    public var reconnected: (@Sendable () -> Void)?

    public init(
        initialDelay: Duration = .milliseconds(250),
        maximumDelay: Duration = .seconds(30),
        acknowledgementTimeout: Duration = .seconds(15),
        defaultConnectionTimeout: Duration = .seconds(300)
    ) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.acknowledgementTimeout = acknowledgementTimeout
        self.defaultConnectionTimeout = defaultConnectionTimeout
    }

    /// The wait before attempt `attempt` (1 for the first retry): exponential, with full jitter
    /// over its upper half so that clients dropped together do not return together.
    public func delay(beforeAttempt attempt: Int, random: Double) -> Duration {
        let base = Backoff.exponential(attempt: attempt, base: initialDelay, cap: maximumDelay)
        return base * (0.5 + 0.5 * min(max(random, 0), 1))
    }
}

/// What a real-time subscription delivers: connection states and event payloads.
public enum AppSyncRealTimeEvent: Sendable, Hashable {
    case connection(SubscriptionConnectionState)
    /// The `payload` of a `data` message: `{"data": {...}}`, with `errors` when some.
    case data(JSONValue)
}

/// A failure that ends a real-time subscription: retrying would not fix it.
public struct AppSyncRealTimeError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The server refused the connection (`connection_error`), for example its authorization.
        case connectionRefused
        /// The server refused the subscription (`error` for its id), for example an invalid
        /// document, a refused authorization or the subscription limit.
        case subscriptionRefused
        /// The authorizer could not produce an authorization object.
        case authorization
    }

    public var kind: Kind
    /// The `errors` of the server's message, or the authorizer's failure.
    public var errors: [GraphQLError]

    public init(kind: Kind, errors: [GraphQLError]) {
        self.kind = kind
        self.errors = errors
    }

    /// The first error's type: `UnauthorizedException`, `MaxSubscriptionsReachedError`, ….
    public var errorType: String? { errors.first?.errorType }

    public var description: String {
        let what =
            switch kind {
            case .connectionRefused: "The real-time endpoint refused the connection"
            case .subscriptionRefused: "The real-time endpoint refused the subscription"
            case .authorization: "The subscription could not be authorized"
            }
        return "\(what): " + errors.map(\.description).joined(separator: "; ")
    }
}

extension URL {
    /// The real-time endpoint of an AppSync GraphQL URL: on AWS hosts `appsync-api` becomes
    /// `appsync-realtime-api`; elsewhere `/realtime` is appended; the scheme becomes `ws`/`wss`.
    public var appSyncRealTimeURL: URL {
        var components = URLComponents(url: self, resolvingAgainstBaseURL: false) ?? URLComponents()
        components.scheme = components.scheme == "http" ? "ws" : "wss"
        if let host = components.host, host.contains("appsync-api") {
            components.host = host.replacingOccurrences(of: "appsync-api", with: "appsync-realtime-api")
        } else {
            components.path =
                components.path.hasSuffix("/") ? components.path + "realtime" : components.path + "/realtime"
        }
        return components.url ?? self
    }
}
