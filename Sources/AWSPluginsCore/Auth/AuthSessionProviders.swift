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
