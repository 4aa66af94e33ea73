import AWSWire
import Amplify

/// The user pool tokens of a session, as the API plugin sends them.
public protocol AuthCognitoTokens: Sendable {
    /// The ID token.
    var idToken: String { get }
    /// The access token, sent for `AMAZON_COGNITO_USER_POOLS`.
    var accessToken: String { get }
    /// The refresh token.
    var refreshToken: String { get }
}

/// A session that holds user pool tokens: the API plugin takes them from the Auth category's
/// session without depending on the Auth plugin.
public protocol AuthCognitoTokensProvider {
    /// The tokens, or why there are none.
    func getCognitoTokens() -> Result<any AuthCognitoTokens, AuthError>
}

/// A session that holds AWS credentials: the API plugin signs `AWS_IAM` requests with them.
public protocol AuthAWSCredentialsProvider {
    /// The credentials, or why there are none.
    func getAWSCredentials() -> Result<AWSCredentials, AuthError>
}

extension AuthCategory {
    /// The AWS credentials of the current session: an identity pool's guest credentials while
    /// nobody is signed in, the signed-in user's after.
    ///
    /// - Throws: ``Amplify/AuthError/configuration(_:_:_:)`` with `fix` when the session holds
    ///   none; the session's own error when it cannot give them.
    package func sessionCredentials(fix: String) async throws -> AWSCredentials {
        let session = try await fetchAuthSession(options: nil)
        guard let provider = session as? any AuthAWSCredentialsProvider else {
            throw AuthError.configuration("The Auth plugin's session holds no AWS credentials.", fix)
        }
        return try provider.getAWSCredentials().get()
    }

    /// The signed-in user's access token, refreshed when it was about to expire.
    ///
    /// - Throws: ``Amplify/AuthError/configuration(_:_:_:)`` with `fix` when the session holds
    ///   no user pool tokens; `signedOut` when nobody is signed in.
    package func sessionAccessToken(fix: String) async throws -> String {
        let session = try await fetchAuthSession(options: nil)
        guard let provider = session as? any AuthCognitoTokensProvider else {
            throw AuthError.configuration("The Auth plugin's session holds no user pool tokens.", fix)
        }
        return try provider.getCognitoTokens().get().accessToken
    }
}
