import Foundation

/// The credentials a real-time connection or subscription was authorized with, which must keep
/// holding while it lives: a JWT that expires, or that sign-out revokes, and identity-pool
/// credentials that expire or whose user is deleted or disabled, end what they authorized.
///
/// Checked when they are used again (a `start` on the connection's credentials) and by the
/// connection's credential watch (``RealtimeEndpoint/watchCredentials(of:connectionToken:fanout:handWritten:)``):
/// at a token's `exp`, and every ``RealtimeLimits/credentialCheckInterval``, never per event.
struct RealtimeToken: Sendable, Hashable {
    /// What the credentials are.
    enum Kind: Sendable, Hashable {
        /// A user pool's or an OIDC provider's JWT, as the client sent it in `authorization`.
        case jwt(String)
        /// Credentials the local identity pool issued, by their access key id.
        case issuedCredentials(accessKeyId: String)
    }

    let kind: Kind
    /// A JWT's `exp`.
    let expiresAt: Date?

    /// The credentials of a request authorized as `identity` with `headers`; `nil` unless they
    /// can stop holding: a user pool's or an OIDC provider's token, or identity-pool credentials.
    init?(headers: JSONObject, identity: Identity) {
        switch identity.authorizationMode {
        case .amazonCognitoUserPools, .openIDConnect:
            guard let token = headers.first(where: { $0.key.lowercased() == "authorization" })?.value.stringValue
            else { return nil }
            kind = .jwt(token)
            expiresAt = identity.claims["exp"]?.doubleValue.map { Date(timeIntervalSince1970: $0) }
        case .awsIAM:
            guard identity.claims["cognitoIdentityId"] != nil,
                let accessKeyId = identity.claims["accessKeyId"]?.stringValue
            else { return nil }
            kind = .issuedCredentials(accessKeyId: accessKeyId)
            expiresAt = nil
        default:
            return nil
        }
    }
}
