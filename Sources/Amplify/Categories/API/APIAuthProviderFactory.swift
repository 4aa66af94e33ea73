/// Supplies the token providers of the authorization modes that send a token.
///
/// `AMAZON_COGNITO_USER_POOLS`, `OPENID_CONNECT` and `AWS_LAMBDA` send the provider's token, as
/// it is (no `Bearer` prefix), in the `authorization` header. Subclass the factory and override
/// the provider of each mode the configured APIs use, then pass it to the plugin:
///
/// ```swift
/// class MyAPIAuthProviderFactory: APIAuthProviderFactory {
///     let myAuthProvider = MyOIDCAuthProvider()
///     override func oidcAuthProvider() -> AmplifyOIDCAuthProvider? {
///         return myAuthProvider
///     }
/// }
/// try Amplify.add(plugin: AWSAPIPlugin(apiAuthProviderFactory: MyAPIAuthProviderFactory()))
/// ```
///
/// The plugin asks the factory for a provider on every request, so a factory may hand out a
/// different provider once the user signs in. The plugin calls it from any task: a subclass must
/// be safe to call concurrently, as one that only returns providers it stores is. The class is not
/// `Sendable`, so that subclasses such as the one above compile as they are written.
open class APIAuthProviderFactory {
    /// A factory that provides no token provider: for APIs using `API_KEY`, `AWS_IAM` or `NONE`.
    public init() {}

    /// The token provider of `OPENID_CONNECT` APIs; `nil` by default.
    open func oidcAuthProvider() -> AmplifyOIDCAuthProvider? {
        nil
    }

    /// The token provider of `AWS_LAMBDA` APIs; `nil` by default.
    open func functionAuthProvider() -> AmplifyFunctionAuthProvider? {
        nil
    }

    /// The token provider of `AMAZON_COGNITO_USER_POOLS` APIs; `nil` by default.
    ///
    /// Return the user's access token, or the ID token when the API authorizes on its claims.
    open func userPoolsAuthProvider() -> AmplifyUserPoolsAuthProvider? {
        nil
    }
}

/// A source of the token that authorizes a request, sent in the `authorization` header.
///
/// Implement either form of `getLatestAuthToken()`: the `async` one, or the `Result` one of
/// Amplify iOS v1, which the `async` one calls by default. The `Result` form runs on the caller's
/// task, so a blocking implementation holds a thread until it returns.
///
/// ```swift
/// final class MyOIDCAuthProvider: AmplifyOIDCAuthProvider {
///     func getLatestAuthToken() async throws -> String {
///         try await identityProvider.currentIDToken()
///     }
/// }
/// ```
public protocol AmplifyAuthTokenProvider {
    /// A token, as sent in the `authorization` header.
    typealias AuthToken = String

    /// The current token, refreshed if it has expired.
    ///
    /// - Throws: Whatever prevents getting a token; the request then fails with
    ///   ``APIError/operationError(_:_:)`` quoting it.
    func getLatestAuthToken() async throws -> AuthToken

    /// The current token, or why there is none: the synchronous form of Amplify iOS v1.
    func getLatestAuthToken() -> Result<AuthToken, any Error>
}

extension AmplifyAuthTokenProvider {
    /// Calls the `Result` form.
    public func getLatestAuthToken() async throws -> AuthToken {
        let result: Result<AuthToken, any Error> = getLatestAuthToken()
        return try result.get()
    }

    /// Fails with ``AuthTokenProviderError``: a provider must implement one of the two forms.
    public func getLatestAuthToken() -> Result<AuthToken, any Error> {
        .failure(AuthTokenProviderError(providerType: "\(type(of: self))"))
    }
}

/// The error of a token provider that implements neither form of `getLatestAuthToken()`: the
/// request it was asked for fails with it, naming the provider and the fix.
public struct AuthTokenProviderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The provider's type, as Swift prints it.
    public let providerType: String

    public var description: String {
        "\(providerType) implements neither getLatestAuthToken() async throws -> String nor "
            + "getLatestAuthToken() -> Result<String, Error>. Implement one of them."
    }
}

/// The token provider of `OPENID_CONNECT` APIs: a JWT from your OpenID Connect provider.
public protocol AmplifyOIDCAuthProvider: AmplifyAuthTokenProvider {}

/// The token provider of `AWS_LAMBDA` APIs: a token your authorizer function accepts.
public protocol AmplifyFunctionAuthProvider: AmplifyAuthTokenProvider {}

/// The token provider of `AMAZON_COGNITO_USER_POOLS` APIs: a Cognito user pool JWT.
public protocol AmplifyUserPoolsAuthProvider: AmplifyAuthTokenProvider {}
