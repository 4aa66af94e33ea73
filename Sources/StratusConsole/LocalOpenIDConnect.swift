import Foundation
import StratusCognito
import StratusServer

/// An OpenID Connect provider of the backend's own: the server accepts the tokens its key signs
/// (``authorization``, whose keys are that key's), and the console's Explorer runs requests as
/// any claims by signing a token of them.
public struct LocalOpenIDConnect: Sendable {
    /// The provider as the server checks its tokens.
    public let authorization: OIDCAuthorization
    private let key: CognitoSigningKey

    /// How long a token the console signs stays valid.
    static let lifetime: TimeInterval = 3600

    public init(authorization: OIDCAuthorization, key: CognitoSigningKey) {
        self.authorization = authorization
        self.key = key
    }

    /// A token of `claims`, signed: `iss` is the provider's; `aud` is the configured client
    /// when `claims` has none; `iat`, `auth_time` and `exp` (an hour on) are `now` unless
    /// `claims` sets them, so an expired or early token can be tried too.
    ///
    /// - Throws: ``ConsoleEndpoint/IdentityProblem`` when `claims` has no `sub`, or sets `iss`.
    func token(of claims: JSONObject, now: Date) throws(ConsoleEndpoint.IdentityProblem) -> String {
        guard case .string(let subject)? = claims["sub"], !subject.isEmpty else {
            throw ConsoleEndpoint.IdentityProblem(
                message: #"OIDC claims name their subject: "sub": "alice" (the owner of @auth owner rules)."#
            )
        }
        if let issuer = claims["iss"], issuer != .string(authorization.issuer) {
            throw ConsoleEndpoint.IdentityProblem(
                message:
                    "OIDC claims of the local provider have its issuer '\(authorization.issuer)', not \(issuer.text): "
                    + "leave iss out."
            )
        }
        var signed = claims
        let seconds = Int(now.timeIntervalSince1970)
        signed["iss"] = .string(authorization.issuer)
        if signed["aud"] == nil, let client = authorization.clientId { signed["aud"] = .string(client) }
        if signed["iat"] == nil { signed["iat"] = .int(seconds) }
        if signed["auth_time"] == nil { signed["auth_time"] = .int(seconds) }
        if signed["exp"] == nil { signed["exp"] = .int(seconds + Int(Self.lifetime)) }
        do {
            return try key.sign(signed)
        } catch {
            throw ConsoleEndpoint.IdentityProblem(
                message: "The local OpenID Connect provider could not sign the token: \(error)"
            )
        }
    }
}
