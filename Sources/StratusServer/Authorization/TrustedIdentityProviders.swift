/// A user pool served beside the API, whose tokens `AMAZON_COGNITO_USER_POOLS` requests may carry
/// besides those of ``ServerAuthorization/userPool``: the local Cognito, as the server knows it.
///
/// The server checks such a token against the pool's public facts alone: the issuer, the keys
/// that sign its tokens, its app clients, and whether the pool revoked the token.
public protocol TrustedUserPool: Sendable {
    /// The pool's id, such as `us-east-1_Local`.
    var userPoolId: String { get }
    /// The pool's region.
    var region: String { get }
    /// The `iss` of the pool's tokens; it follows the origin the pool is served at.
    var issuer: String { get }
    /// The JWKS document of the keys that sign the pool's tokens.
    var jwks: String { get }
    /// The ids of the pool's app clients: a token issued to another client is refused.
    var appClientIds: [String] { get }
    /// Whether the pool revoked `token`, whose signature verified: by a sign-out or
    /// `RevokeToken`, or by deleting or disabling its user.
    func isRevoked(token: String) async -> Bool
}

/// An identity pool whose temporary credentials (`ASIA…`) SigV4 signatures may be made with
/// besides ``ServerAuthorization/iamCredentials``: the local Cognito's, as the server knows it.
public protocol TrustedCredentialIssuer: Sendable {
    /// The credentials the pool issued under `accessKeyId`, while they are valid; `nil` for
    /// credentials it did not issue, that expired, or whose user is gone or disabled.
    func issuedCredentials(for accessKeyId: String) async -> TemporaryCredential?
}

/// Temporary credentials an identity pool issued, and whose they are.
public struct TemporaryCredential: Sendable, Hashable {
    public var secretAccessKey: String
    public var sessionToken: String
    /// What resolvers see as the caller's claims: the identity, its pool, whether it is
    /// authenticated and, for a user's, the user.
    public var claims: JSONObject

    public init(secretAccessKey: String, sessionToken: String, claims: JSONObject) {
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.claims = claims
    }
}
