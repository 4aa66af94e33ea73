import AWSWire
import Amplify
import Foundation

/// Where the app's user stands, as `AWSMobileClient` reports it to its listeners.
public enum UserState: String, Sendable, Hashable {
    /// A user pool user is signed in.
    case signedIn = "SIGNED_IN"
    /// Nobody is signed in, and there is no identity pool to give guest credentials.
    case signedOut = "SIGNED_OUT"
    /// The user was signed in, but the tokens could not be refreshed: sign in again.
    case signedOutUserPoolsTokenInvalid = "SIGNED_OUT_USER_POOLS_TOKENS_INVALID"
    /// Nobody is signed in; the identity pool gives guest credentials.
    case guest = "GUEST"
    /// Not known yet: the client is not initialized.
    case unknown = "UNKNOWN"
}

/// What a sign-in step gave.
public enum SignInState: String, Sendable, Hashable {
    /// Signed in.
    case signedIn = "SIGNED_IN"
    /// The user must choose a new password: call `confirmSignIn(challengeResponse:)`.
    case newPasswordRequired = "NEW_PASSWORD_REQUIRED"
    /// Enter the code sent by SMS with `confirmSignIn(challengeResponse:)`.
    case smsMFA = "SMS_MFA"
    /// Answer the custom challenge with `confirmSignIn(challengeResponse:)`.
    case customChallenge = "CUSTOM_CHALLENGE"
    /// Any other step, such as an unconfirmed account or a required password reset.
    case unknown = "UNKNOWN"
}

/// The outcome of `signIn` or `confirmSignIn`.
public struct SignInResult: Sendable, Hashable {
    /// Where the sign-in stands.
    public let signInState: SignInState
    /// The challenge's parameters, such as the attributes a new password step requires.
    public let parameters: [String: String]

    init(_ result: AuthSignInResult) {
        switch result.nextStep {
        case .done:
            signInState = .signedIn
            parameters = [:]
        case .confirmSignInWithNewPassword(let info):
            signInState = .newPasswordRequired
            parameters = info ?? [:]
        case .confirmSignInWithSMSMFACode(_, let info):
            signInState = .smsMFA
            parameters = info ?? [:]
        case .confirmSignInWithCustomChallenge(let info):
            signInState = .customChallenge
            parameters = info ?? [:]
        case .resetPassword(let info), .confirmSignUp(let info):
            signInState = .unknown
            parameters = info ?? [:]
        }
    }
}

/// A JWT of the signed-in user, with its claims.
public struct SessionToken: Sendable, Hashable {
    /// The token as sent to services.
    public let tokenString: String?
    /// The claims of its payload, read without verifying the signature.
    public let claims: [String: JSONValue]?

    /// A token and the claims of its payload.
    public init(tokenString: String?) {
        self.tokenString = tokenString
        self.claims = tokenString.flatMap(Self.claims(of:))
    }

    private static func claims(of token: String) -> [String: JSONValue]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        guard let data = Base64URL.decode(parts[1]), case .object(let claims)? = try? JSONValue(parsing: data) else {
            return nil
        }
        return claims
    }
}

/// The user pool tokens of the signed-in user, as `getTokens` gives them.
public struct Tokens: Sendable, Hashable {
    /// The ID token, which user pool authorization of AppSync APIs takes.
    public let idToken: SessionToken?
    /// The access token.
    public let accessToken: SessionToken?
    /// The refresh token.
    public let refreshToken: SessionToken?
    /// When the ID and access tokens expire.
    public let expiration: Date?

    /// Tokens from their parts.
    public init(idToken: SessionToken?, accessToken: SessionToken?, refreshToken: SessionToken?, expiration: Date?) {
        self.idToken = idToken
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiration = expiration
    }
}
