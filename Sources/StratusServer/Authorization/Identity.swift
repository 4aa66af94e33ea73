import AWSWire

/// Who sent a request, once the transport has authenticated it.
///
/// The HTTP and WebSocket layers build it from the request's credentials; resolvers, auth rules
/// and conflict handlers read it. An in-process caller passes one explicitly:
///
/// ```swift
/// let response = await server.execute(query: "{ listPosts { items { id } } }", identity: .apiKey)
/// ```
public struct Identity: Sendable, Hashable {
    /// The authorization modes of AppSync, which the clients use too.
    public typealias AuthorizationMode = AWSAuthorizationType

    /// The mode the request was authorized with.
    public var authorizationMode: AuthorizationMode
    /// The verified claims of a JWT (user pools, OIDC), the `resolverContext` of a Lambda
    /// authorizer, or the caller's IAM identity; empty for API keys.
    public var claims: JSONObject

    /// Whether the request used the API's default authorization mode. Types and fields without
    /// `@aws_*` directives, and models without `@auth` rules, admit only that mode, as AppSync's
    /// do: a request in an additional mode is refused there. `true` for an identity made in
    /// process, which has no endpoint to compare with.
    public var isDefaultMode: Bool

    /// Creates an identity.
    public init(authorizationMode: AuthorizationMode, claims: JSONObject = [:], isDefaultMode: Bool = true) {
        self.authorizationMode = authorizationMode
        self.claims = claims
        self.isDefaultMode = isDefaultMode
    }

    /// A request authorized by an API key.
    public static let apiKey = Identity(authorizationMode: .apiKey)

    /// A request without authorization, for APIs whose mode is `NONE`.
    public static let anonymous = Identity(authorizationMode: .none)
}
