import AWSPluginsCore
import AWSWire
import Amplify

/// AWS credentials from the Auth category's identity pool: the unauthenticated role's while
/// nobody is signed in, the authenticated role's after sign-in, refreshed before they expire.
///
/// ```swift
/// let signer = AWSAPIPlugin(credentialsProvider: AWSCognitoAuthCredentialsProvider())
/// ```
public struct AWSCognitoAuthCredentialsProvider: AWSCredentialsProvider {
    private let auth: @Sendable () -> any AuthCategory

    /// A provider over `Amplify.Auth`.
    public init() {
        self.auth = { Amplify.Auth }
    }

    /// A provider over `auth`, such as a plugin built without `Amplify`.
    public init(auth: any AuthCategory) {
        self.auth = { auth }
    }

    /// The session's credentials.
    ///
    /// - Throws: ``Amplify/AuthError`` when the session has none (no identity pool, an expired
    ///   session, a service error).
    public func fetchCredentials() async throws -> AWSCredentials {
        try await auth().sessionCredentials(fix: "Use AWSCognitoAuthPlugin with an identity pool.")
    }
}

/// The signed-in user's access token, for APIs that use `AMAZON_COGNITO_USER_POOLS`.
///
/// `AWSAppSync` has a protocol of the same name, the AppSync SDK's. A file that imports both
/// modules adds `import struct AWSCognitoAuthPlugin.AWSCognitoUserPoolsAuthProvider` to mean this
/// one: the module name cannot qualify it, as the plugin class shares it.
///
/// ```swift
/// final class Factory: APIAuthProviderFactory {
///     override func userPoolsAuthProvider() -> AmplifyUserPoolsAuthProvider? {
///         AWSCognitoUserPoolsAuthProvider()
///     }
/// }
/// ```
public struct AWSCognitoUserPoolsAuthProvider: AmplifyUserPoolsAuthProvider, Sendable {
    private let auth: @Sendable () -> any AuthCategory

    /// A provider over `Amplify.Auth`.
    public init() {
        self.auth = { Amplify.Auth }
    }

    /// A provider over `auth`.
    public init(auth: any AuthCategory) {
        self.auth = { auth }
    }

    /// The access token, refreshed if it was about to expire.
    ///
    /// - Throws: ``Amplify/AuthError``: `signedOut` when nobody is signed in.
    public func getLatestAuthToken() async throws -> String {
        try await auth().sessionAccessToken(fix: "Use AWSCognitoAuthPlugin with a user pool.")
    }
}
