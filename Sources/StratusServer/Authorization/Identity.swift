/// Who sent a request, once the transport has authenticated it.
///
/// The HTTP and WebSocket layers build it from the request's credentials; resolvers, auth rules
/// and conflict handlers read it. An in-process caller passes one explicitly:
///
/// ```swift
/// let response = await server.execute(query: "{ listPosts { items { id } } }", identity: .apiKey)
/// ```
public struct Identity: Sendable, Hashable {
    /// The authorization modes of AppSync.
    public enum AuthorizationMode: String, Sendable, Hashable, CaseIterable {
        /// An API key in `x-api-key`.
        case apiKey = "API_KEY"
        /// A SigV4 signature of the `appsync` service.
        case awsIAM = "AWS_IAM"
        /// A Cognito user pools JWT.
        case userPools = "AMAZON_COGNITO_USER_POOLS"
        /// An OpenID Connect JWT.
        case openIDConnect = "OPENID_CONNECT"
        /// A token a Lambda authorizer accepted.
        case lambda = "AWS_LAMBDA"
        /// No authorization.
        case none = "NONE"
    }

    /// The mode the request was authorized with.
    public var authorizationMode: AuthorizationMode
    /// The verified claims of a JWT (user pools, OIDC), the `resolverContext` of a Lambda
    /// authorizer, or the caller's IAM identity; empty for API keys.
    public var claims: JSONObject

    /// Creates an identity.
    public init(authorizationMode: AuthorizationMode, claims: JSONObject = [:]) {
        self.authorizationMode = authorizationMode
        self.claims = claims
    }

    /// A request authorized by an API key.
    public static let apiKey = Identity(authorizationMode: .apiKey)

    /// A request without authorization, for APIs whose mode is `NONE`.
    public static let anonymous = Identity(authorizationMode: .none)
}
