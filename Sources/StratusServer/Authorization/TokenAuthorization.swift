import Foundation

/// Where the keys that sign a pool's or a provider's tokens come from.
public enum JWKSSource: Sendable, Hashable {
    /// A JWKS document fetched over HTTP(S), cached, and fetched again when a token names a key
    /// the cached document lacks (at most once every 30 seconds).
    case url(URL)
    /// A JWKS document in a file, read once.
    case file(URL)
    /// A JWKS document given inline.
    case json(String)
}

/// How `AMAZON_COGNITO_USER_POOLS` tokens are verified, as AppSync's `userPoolConfig` does.
///
/// A token is accepted when its signature verifies against the pool's keys, `exp` is in the
/// future, `iss` is the pool's issuer, `token_use` is `id` or `access`, and the client (`aud` of
/// an ID token, `client_id` of an access token) matches ``appIdClientRegex`` when one is set.
///
/// ```swift
/// var authorization = ServerAuthorization(defaultMode: .amazonCognitoUserPools)
/// authorization.userPool = UserPoolAuthorization(userPoolId: "us-east-1_Abc", region: "us-east-1")
/// ```
public struct UserPoolAuthorization: Sendable, Hashable {
    public var userPoolId: String
    public var region: String
    /// A regular expression the whole client identifier must match; `nil` accepts every client.
    public var appIdClientRegex: String?
    /// The expected `iss`; by default `https://cognito-idp.<region>.amazonaws.com/<userPoolId>`.
    public var issuer: String
    /// The pool's keys; by default `<issuer>/.well-known/jwks.json`.
    public var jwks: JWKSSource

    public init(
        userPoolId: String,
        region: String,
        appIdClientRegex: String? = nil,
        issuer: String? = nil,
        jwks: JWKSSource? = nil
    ) {
        self.userPoolId = userPoolId
        self.region = region
        self.appIdClientRegex = appIdClientRegex
        let issuer = issuer ?? "https://cognito-idp.\(region).amazonaws.com/\(userPoolId)"
        self.issuer = issuer
        self.jwks = jwks ?? .url(Self.keys(of: issuer))
    }
}

extension UserPoolAuthorization {
    /// The address of an issuer's keys, `<issuer>/.well-known/jwks.json`; an issuer that is not
    /// an http(s) URL cannot have one, so it needs explicit keys (checked before calling).
    static func keys(of issuer: String) -> URL {
        guard let url = keysURL(of: issuer) else {
            preconditionFailure(
                "The issuer '\(issuer)' is not an http(s) URL, so its keys cannot be looked up at "
                    + "<issuer>/.well-known/jwks.json. Pass jwks: explicitly, or an http(s) issuer."
            )
        }
        return url
    }

    /// Whether `issuer` is an http(s) URL under which its keys can be looked up.
    public static func canLookUpKeys(of issuer: String) -> Bool {
        keysURL(of: issuer) != nil
    }

    private static func keysURL(of issuer: String) -> URL? {
        guard let url = URL(string: issuer + "/.well-known/jwks.json"), url.scheme == "http" || url.scheme == "https"
        else { return nil }
        return url
    }
}

/// How `OPENID_CONNECT` tokens are verified, as AppSync's `openIDConnectConfig` does.
///
/// A token is accepted when its signature verifies against the provider's keys, `exp` is in the
/// future, `iss` is ``issuer``, `aud` matches ``clientId`` when one is set, and `iat` and
/// `auth_time` are within ``issuedAtTTL`` and ``authTTL`` when those are set.
public struct OIDCAuthorization: Sendable, Hashable {
    /// The expected `iss`.
    public var issuer: String
    /// A regular expression the whole `aud` must match; `nil` accepts every audience.
    public var clientId: String?
    /// How long after `iat` a token stays valid; `nil` for no limit beyond `exp`.
    public var issuedAtTTL: TimeInterval?
    /// How long after `auth_time` a token stays valid; `nil` for no limit beyond `exp`.
    public var authTTL: TimeInterval?
    /// The provider's keys; by default `<issuer>/.well-known/jwks.json`.
    public var jwks: JWKSSource

    public init(
        issuer: String,
        clientId: String? = nil,
        issuedAtTTL: TimeInterval? = nil,
        authTTL: TimeInterval? = nil,
        jwks: JWKSSource? = nil
    ) {
        self.issuer = issuer
        self.clientId = clientId
        self.issuedAtTTL = issuedAtTTL
        self.authTTL = authTTL
        let trimmed = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        self.jwks = jwks ?? .url(UserPoolAuthorization.keys(of: trimmed))
    }
}
