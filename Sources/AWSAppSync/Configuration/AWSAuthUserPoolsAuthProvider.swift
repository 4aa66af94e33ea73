import AWSPluginsCore
import Amplify

/// The signed-in user's user pool token from the Auth category, for APIs that use
/// `AMAZON_COGNITO_USER_POOLS`: what the AppSync guide's `MyCognitoUserPoolsAuthProvider`
/// gets from `AWSMobileClient.getTokens`, without writing the class.
///
/// ```swift
/// let appSyncConfig = try AWSAppSyncClientConfiguration(
///     appSyncClientInfo: AWSAppSyncClientInfo(),
///     userPoolsAuthProvider: AWSAuthUserPoolsAuthProvider(auth: Amplify.Auth),
///     databaseURL: databaseURL
/// )
/// ```
///
/// Tokens are refreshed by the Auth plugin when they are about to expire.
public struct AWSAuthUserPoolsAuthProvider: AWSCognitoUserPoolsAuthProviderAsync, Sendable {
    /// Which of the user's tokens is sent.
    public enum Token: Sendable, Hashable {
        /// The ID token, as the AppSync guide sends it (claims include the user's attributes).
        case idToken
        /// The access token, as Amplify's API category sends it.
        case accessToken
    }

    private let auth: any AuthCategory
    private let token: Token

    /// A provider of `token` from `auth`, such as `Amplify.Auth` or a configured
    /// `AWSCognitoAuthPlugin`.
    public init(auth: any AuthCategory, token: Token = .idToken) {
        self.auth = auth
        self.token = token
    }

    /// Calls `callback` with the token, or with the Auth category's error (`signedOut` when
    /// nobody is signed in).
    public func getLatestAuthToken(_ callback: @escaping (String?, (any Error)?) -> Void) {
        let reply = TokenCallback(callback)
        Task {
            do {
                reply.call(try await latestToken(), nil)
            } catch {
                reply.call(nil, error)
            }
        }
    }

    /// The token, refreshed if it was about to expire.
    ///
    /// - Throws: `AuthError`: `signedOut` when nobody is signed in, `configuration` when the
    ///   session holds no user pool tokens.
    public func latestToken() async throws -> String {
        let session = try await auth.fetchAuthSession(options: nil)
        guard let provider = session as? any AuthCognitoTokensProvider else {
            throw AuthError.configuration(
                "The Auth plugin's session holds no user pool tokens.",
                "Use AWSCognitoAuthPlugin with a user pool."
            )
        }
        let tokens = try provider.getCognitoTokens().get()
        return token == .idToken ? tokens.idToken : tokens.accessToken
    }
}

/// The provider's callback, called from another task: the providers' callbacks are documented
/// to be safe to call from any thread (see AuthProviders.swift).
private struct TokenCallback: @unchecked Sendable {
    let body: (String?, (any Error)?) -> Void

    init(_ body: @escaping (String?, (any Error)?) -> Void) {
        self.body = body
    }

    func call(_ token: String?, _ error: (any Error)?) {
        body(token, error)
    }
}
