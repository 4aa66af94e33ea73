import Foundation

/// A JWT a real-time connection or subscription was authorized with, which must keep holding
/// while it lives: a token that expires, or that sign-out revokes, ends what it authorized.
///
/// Checked when it is used again (a `start` on the connection's credentials) and by the
/// connection's credential watch (``RealtimeEndpoint/watchCredentials(of:connectionToken:fanout:)``):
/// at the token's `exp`, and every ``RealtimeLimits/credentialCheckInterval`` for revocation,
/// never per event.
struct RealtimeToken: Sendable, Hashable {
    /// The token as the client sent it, in `authorization`.
    let token: String
    /// Its `exp`.
    let expiresAt: Date?

    /// The token of a request authorized as `identity` with `headers`; `nil` unless the
    /// identity is a user pool's or an OIDC provider's, whose tokens expire and can be revoked.
    init?(headers: JSONObject, identity: Identity) {
        guard identity.authorizationMode == .amazonCognitoUserPools || identity.authorizationMode == .openIDConnect,
            let token = headers.first(where: { $0.key.lowercased() == "authorization" })?.value.stringValue
        else { return nil }
        self.token = token
        expiresAt = identity.claims["exp"]?.doubleValue.map { Date(timeIntervalSince1970: $0) }
    }

    /// The parts of a request carrying the token, for the authenticator to check it again.
    var signedParts: RequestAuthenticator.SignedParts {
        RequestAuthenticator.SignedParts(path: "/graphql", headers: ["authorization": .string(token)], body: Data())
    }
}
