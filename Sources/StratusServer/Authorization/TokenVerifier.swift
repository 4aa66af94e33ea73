import AWSWire
import Foundation
import JWTKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Verifies the JWTs of `AMAZON_COGNITO_USER_POOLS` and `OPENID_CONNECT` requests.
///
/// The token's `iss` picks the configuration (the user pool's or the OIDC provider's); its
/// signature is checked against that issuer's keys with jwt-kit, then its claims as AppSync checks
/// them. A token that is not three base64url JSON segments is ``TokenRejection/malformed``.
struct TokenVerifier: Sendable {
    let userPool: UserPoolAuthorization?
    let openIDConnect: OIDCAuthorization?
    let userPoolKeys: TokenKeys?
    let openIDConnectKeys: TokenKeys?
    /// The pool served beside the API, trusted besides ``userPool``, and its keys.
    let localPool: (any TrustedUserPool)?
    let localPoolKeys: TokenKeys?
    let clock: @Sendable () -> Date

    init(
        userPool: UserPoolAuthorization?,
        openIDConnect: OIDCAuthorization?,
        localPool: (any TrustedUserPool)? = nil,
        clock: @escaping @Sendable () -> Date
    ) {
        self.userPool = userPool
        self.openIDConnect = openIDConnect
        self.userPoolKeys = userPool.map { TokenKeys(source: $0.jwks) }
        self.openIDConnectKeys = openIDConnect.map { TokenKeys(source: $0.jwks) }
        self.localPool = localPool
        self.localPoolKeys = localPool.map { TokenKeys(source: .json($0.jwks)) }
        self.clock = clock
    }

    /// The unverified claims of a token, or `nil` when it is not a JWT at all.
    static func unverifiedClaims(of token: String) -> JSONObject? {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        // Segments that are not base64url JSON objects make the token no JWT (`nil`).
        guard segments.count == 3,
            let header = Base64URL.decode(segments[0]),
            (try? JSON(parsing: header))?.objectValue != nil,
            let payload = Base64URL.decode(segments[1]),
            let claims = (try? JSON(parsing: payload))?.objectValue
        else { return nil }
        return claims
    }

    /// The identity a token proves, for the modes the API accepts.
    func identity(for token: String, modes: [Identity.AuthorizationMode]) async throws(TokenRejection) -> Identity {
        guard let claims = Self.unverifiedClaims(of: token) else { throw .malformed }
        let issuer = claims["iss"]?.stringValue
        if modes.contains(.amazonCognitoUserPools), let userPool, let userPoolKeys, issuer == userPool.issuer {
            try await userPoolKeys.verifySignature(of: token)
            try checkUserPoolClaims(claims, userPool)
            return Identity(authorizationMode: .amazonCognitoUserPools, claims: claims)
        }
        if modes.contains(.amazonCognitoUserPools), let localPool, let localPoolKeys, issuer == localPool.issuer {
            try await localPoolKeys.verifySignature(of: token)
            try checkUserPoolClaims(
                claims,
                UserPoolAuthorization(
                    userPoolId: localPool.userPoolId,
                    region: localPool.region,
                    issuer: localPool.issuer,
                    jwks: .json(localPool.jwks)
                )
            )
            // Only the pool's own clients, and tokens not revoked by sign-out or RevokeToken.
            let client = claims["token_use"]?.stringValue == "id" ? claims["aud"] : claims["client_id"]
            guard let client = client?.stringValue,
                localPool.appClientIds.contains(client),
                await !localPool.isRevoked(token: token)
            else { throw .notAuthorized }
            return Identity(authorizationMode: .amazonCognitoUserPools, claims: claims)
        }
        if modes.contains(.openIDConnect), let openIDConnect, let openIDConnectKeys,
            issuer == openIDConnect.issuer
        {
            try await openIDConnectKeys.verifySignature(of: token)
            try checkOIDCClaims(claims, openIDConnect)
            return Identity(authorizationMode: .openIDConnect, claims: claims)
        }
        throw .notAuthorized
    }

    private func checkExpiry(_ claims: JSONObject) throws(TokenRejection) {
        let now = clock().timeIntervalSince1970
        guard let expiry = claims["exp"]?.doubleValue else { throw .notAuthorized }
        guard expiry > now else { throw .expired }
        if let notBefore = claims["nbf"]?.doubleValue, notBefore > now + 1 { throw .notAuthorized }
    }

    private func checkUserPoolClaims(_ claims: JSONObject, _ pool: UserPoolAuthorization) throws(TokenRejection) {
        try checkExpiry(claims)
        let client: String?
        switch claims["token_use"]?.stringValue {
        case "id": client = claims["aud"]?.stringValue
        case "access": client = claims["client_id"]?.stringValue
        default: throw .notAuthorized
        }
        if let pattern = pool.appIdClientRegex {
            guard let client, Self.matchesWhole(client, pattern) else { throw .notAuthorized }
        }
    }

    private func checkOIDCClaims(_ claims: JSONObject, _ provider: OIDCAuthorization) throws(TokenRejection) {
        try checkExpiry(claims)
        let now = clock().timeIntervalSince1970
        if let pattern = provider.clientId {
            let audiences =
                claims["aud"]?.arrayValue?.compactMap(\.stringValue) ?? [claims["aud"]?.stringValue].compactMap { $0 }
            guard audiences.contains(where: { Self.matchesWhole($0, pattern) }) else { throw .notAuthorized }
        }
        if let ttl = provider.issuedAtTTL {
            guard let issuedAt = claims["iat"]?.doubleValue, now - issuedAt <= ttl else { throw .expired }
        }
        if let ttl = provider.authTTL {
            guard let authTime = claims["auth_time"]?.doubleValue, now - authTime <= ttl else { throw .expired }
        }
    }

    private static func matchesWhole(_ value: String, _ pattern: String) -> Bool {
        // A pattern that does not compile matches no client, so the token is refused; `stratus serve`
        // refuses such a pattern at start.
        guard let expression = try? NSRegularExpression(pattern: "^(?:\(pattern))$") else { return false }
        let range = NSRange(value.startIndex..., in: value)
        return expression.firstMatch(in: value, range: range) != nil
    }
}

/// Why a token was refused.
enum TokenRejection: Error, Sendable, Hashable {
    /// Not a JWT: `Unable to parse JWT token.`
    case malformed
    /// Past `exp` (or a TTL): `Token has expired.`
    case expired
    /// A bad signature, an unknown issuer, key, client or `token_use`.
    case notAuthorized

    var httpRejection: HTTPRejection {
        switch self {
        case .malformed: .malformedToken
        case .expired: .expiredToken
        case .notAuthorized: .notAuthorized
        }
    }
}

/// The signing keys of one issuer, loaded on first use and reloaded when a token names a key
/// they lack.
actor TokenKeys {
    /// The shortest time between two fetches of a JWKS URL.
    static let refreshInterval: TimeInterval = 30

    let source: JWKSSource
    private var keys: JWTKeyCollection?
    private var loadedAt: Date?

    init(source: JWKSSource) {
        self.source = source
    }

    /// Checks the token's signature; a key the document lacks makes a URL source fetch it again
    /// once.
    func verifySignature(of token: String) async throws(TokenRejection) {
        do {
            let keys = try await current(reload: false)
            do {
                _ = try await keys.verify(token, as: SignatureOnly.self)
            } catch let error as JWTError where error.errorType == .unknownKID || error.errorType == .missingKIDHeader {
                guard case .url = source, let loadedAt, Date().timeIntervalSince(loadedAt) >= Self.refreshInterval
                else { throw error }
                _ = try await current(reload: true).verify(token, as: SignatureOnly.self)
            }
        } catch let error as TokenRejection {
            throw error
        } catch {
            throw .notAuthorized
        }
    }

    private func current(reload: Bool) async throws -> JWTKeyCollection {
        if let keys, !reload { return keys }
        let document: String
        switch source {
        case .json(let text):
            document = text
        case .file(let url):
            document = try String(contentsOf: url, encoding: .utf8)
        case .url(let url):
            let (data, response) = try await URLSession.shared.data(from: url)
            guard let status = (response as? HTTPURLResponse)?.statusCode, (200..<300).contains(status) else {
                throw TokenRejection.notAuthorized
            }
            document = String(decoding: data, as: UTF8.self)
        }
        let collection = JWTKeyCollection()
        try await collection.add(jwksJSON: document)
        keys = collection
        loadedAt = Date()
        return collection
    }

    /// Loads the keys now, so that a bad JWKS source fails at start rather than at the first
    /// request.
    func preload() async throws {
        _ = try await current(reload: false)
    }
}

/// A payload jwt-kit decodes without looking at it: claims are checked by ``TokenVerifier``
/// against the server's clock.
private struct SignatureOnly: JWTPayload {
    init(from decoder: any Decoder) throws {}
    func encode(to encoder: any Encoder) throws {}
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
