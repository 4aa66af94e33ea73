import AWSWire
import Amplify
import Foundation

/// The JWTs of a signed-in user pool user.
public struct AWSCognitoUserPoolTokens: Sendable, Hashable, Codable {
    /// The ID token: the user's identity and attributes, for APIs that authorize on claims.
    public let idToken: String
    /// The access token: what the API plugin sends for `AMAZON_COGNITO_USER_POOLS`.
    public let accessToken: String
    /// The refresh token, which gets new ID and access tokens.
    public let refreshToken: String
    /// When the ID and access tokens expire.
    public let expiration: Date

    public init(idToken: String, accessToken: String, refreshToken: String, expiration: Date) {
        self.idToken = idToken
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiration = expiration
    }
}

/// The claims of a JWT's payload, read without verifying its signature (the service that
/// issued it verifies it on every use).
enum JWTClaims {
    /// The payload of `token` as a JSON object; `nil` when it is not a JWT.
    static func of(_ token: String) -> JSONValue? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        guard let data = Base64URL.decode(parts[1]),
            let json = try? JSONValue(parsing: data), case .object = json
        else { return nil }
        return json
    }
}
