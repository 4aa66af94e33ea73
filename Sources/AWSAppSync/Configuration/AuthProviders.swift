import Foundation

// The auth providers are not `Sendable`, so that the classes the AppSync guide declares
// compile unchanged; the client calls them from its own tasks, so an implementation must be
// safe to call from any thread.

/// Supplies the API key of `API_KEY` requests, instead of `ApiKey` in `awsconfiguration.json`.
public protocol AWSAPIKeyAuthProvider {
    /// The key sent in `x-api-key`.
    func getAPIKey() -> String
}

/// Supplies the token of `OPENID_CONNECT` requests, sent as is in `authorization`.
///
/// ```swift
/// class MyOidcProvider: AWSOIDCAuthProvider {
///     func getLatestAuthToken() -> String { "token" }
/// }
/// ```
public protocol AWSOIDCAuthProvider {
    /// The token of the signed-in user.
    func getLatestAuthToken() -> String
}

/// Supplies the token of `OPENID_CONNECT` requests through a callback.
public protocol AWSOIDCAuthProviderAsync: AWSOIDCAuthProvider {
    /// Calls `callback` with the token, or with the error that prevented getting one.
    func getLatestAuthToken(_ callback: @escaping (String?, (any Error)?) -> Void)
}

extension AWSOIDCAuthProviderAsync {
    /// Not called: the client uses the callback form.
    public func getLatestAuthToken() -> String {
        preconditionFailure("The AppSync client calls getLatestAuthToken(_:) of an AWSOIDCAuthProviderAsync.")
    }
}

/// Supplies the user pool token of `AMAZON_COGNITO_USER_POOLS` requests (usually the ID token).
///
/// `AWSCognitoAuthPlugin` has a struct of the same name, Amplify's token provider; a file that
/// imports both modules names this one `AWSAppSync.AWSCognitoUserPoolsAuthProvider`.
public protocol AWSCognitoUserPoolsAuthProvider: AWSOIDCAuthProvider {}

/// Supplies the user pool token of `AMAZON_COGNITO_USER_POOLS` requests through a callback.
///
/// ```swift
/// class MyCognitoUserPoolsAuthProvider: AWSCognitoUserPoolsAuthProviderAsync {
///     func getLatestAuthToken(_ callback: @escaping (String?, Error?) -> Void) {
///         session.getTokens { tokens, error in callback(tokens?.idToken, error) }
///     }
/// }
/// ```
public protocol AWSCognitoUserPoolsAuthProviderAsync: AWSCognitoUserPoolsAuthProvider {
    /// Calls `callback` with the token, or with the error that prevented getting one.
    func getLatestAuthToken(_ callback: @escaping (String?, (any Error)?) -> Void)
}

extension AWSCognitoUserPoolsAuthProviderAsync {
    /// Not called: the client uses the callback form.
    public func getLatestAuthToken() -> String {
        preconditionFailure(
            "The AppSync client calls getLatestAuthToken(_:) of an AWSCognitoUserPoolsAuthProviderAsync."
        )
    }
}

/// Supplies the token of `AWS_LAMBDA` requests, which the API's authorizer function checks.
public protocol AWSLambdaAuthProvider {
    /// The token sent in `authorization`.
    func getLatestAuthToken() -> String
}

/// Supplies the token of `AWS_LAMBDA` requests through a callback.
public protocol AWSLambdaAuthProviderAsync: AWSLambdaAuthProvider {
    /// Calls `callback` with the token, or with the error that prevented getting one.
    func getLatestAuthToken(_ callback: @escaping (String?, (any Error)?) -> Void)
}

extension AWSLambdaAuthProviderAsync {
    /// Not called: the client uses the callback form.
    public func getLatestAuthToken() -> String {
        preconditionFailure("The AppSync client calls getLatestAuthToken(_:) of an AWSLambdaAuthProviderAsync.")
    }
}
