import AWSPluginsCore
import AWSWire
import Amplify
import Foundation

/// The session `fetchAuthSession()` returns: whether a user is signed in, and each of the
/// tokens and credentials, or why it is not available.
///
/// ```swift
/// let session = try await Amplify.Auth.fetchAuthSession() as! AWSAuthCognitoSession
/// let tokens = try session.getUserPoolTokens().get()
/// let credentials = try session.getAWSCredentials().get()
/// ```
///
/// A user whose tokens could not be refreshed is still signed in (`isSignedIn` is `true`), and
/// the tokens' result is `AuthError.sessionExpired(_:_:_:)`: sign in again.
public struct AWSAuthCognitoSession: AuthSession {
    /// Whether a user is signed in.
    public let isSignedIn: Bool
    /// The signed-in user's `sub`, or why there is none.
    public let userSubResult: Result<String, AuthError>
    /// The identity pool's identity id, or why there is none.
    public let identityIdResult: Result<String, AuthError>
    /// The identity pool's AWS credentials, or why there are none.
    public let awsCredentialsResult: Result<AWSCredentials, AuthError>
    /// The user pool tokens, or why there are none.
    public let userPoolTokensResult: Result<AWSCognitoUserPoolTokens, AuthError>

    /// A session from its parts.
    public init(
        isSignedIn: Bool,
        userSubResult: Result<String, AuthError>,
        identityIdResult: Result<String, AuthError>,
        awsCredentialsResult: Result<AWSCredentials, AuthError>,
        userPoolTokensResult: Result<AWSCognitoUserPoolTokens, AuthError>
    ) {
        self.isSignedIn = isSignedIn
        self.userSubResult = userSubResult
        self.identityIdResult = identityIdResult
        self.awsCredentialsResult = awsCredentialsResult
        self.userPoolTokensResult = userPoolTokensResult
    }

    /// The user pool tokens, refreshed if they were about to expire.
    public func getUserPoolTokens() -> Result<AWSCognitoUserPoolTokens, AuthError> { userPoolTokensResult }

    /// The identity pool's identity id: a guest's when signed out, the user's when signed in.
    public func getIdentityId() -> Result<String, AuthError> { identityIdResult }

    /// The identity pool's temporary AWS credentials: the unauthenticated role's when signed
    /// out, the authenticated role's when signed in.
    public func getAWSCredentials() -> Result<AWSCredentials, AuthError> { awsCredentialsResult }

    /// The signed-in user's `sub`.
    public func getUserSub() -> Result<String, AuthError> { userSubResult }
}

/// The signed-in user.
public struct AWSAuthUser: AuthUser, Hashable {
    /// The name the user signs in with, as the user pool knows it.
    public let username: String
    /// The user's `sub`.
    public let userId: String

    public init(username: String, userId: String) {
        self.username = username
        self.userId = userId
    }
}

/// What `signOut` did.
public enum AWSCognitoSignOutResult: AuthSignOutResult {
    /// Signed out everywhere it was asked to.
    case complete
    /// Signed out on this device, but the service could not invalidate the tokens: they stay
    /// valid until they expire.
    case partial(revokeTokenError: AuthError?, globalSignOutError: AuthError?)
    /// Nothing was signed out.
    case failed(AuthError)
}

extension AWSCognitoUserPoolTokens: AuthCognitoTokens {}

extension AWSAuthCognitoSession: AuthCognitoTokensProvider, AuthAWSCredentialsProvider {
    /// The user pool tokens, as the API plugin reads them.
    public func getCognitoTokens() -> Result<any AuthCognitoTokens, AuthError> {
        userPoolTokensResult.map { $0 }
    }
}
