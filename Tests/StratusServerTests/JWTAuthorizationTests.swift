import Foundation
import JWTKit
import StratusServer
import StratusTesting
import Testing

/// `AMAZON_COGNITO_USER_POOLS` and `OPENID_CONNECT`: tokens verified by signature against a JWKS
/// document, `exp`, `iss`, the client (`aud`/`client_id`) and `token_use`.
@Suite struct JWTAuthorizationTests {
    static let listQuery = #"{"query":"{ listPosts { items { id } } }"}"#
    static let accepted = #"{"data":{"listPosts":{"items":[]}}}"#
    static let notAuthorized =
        #"{"errors":[{"errorType":"UnauthorizedException","message":"You are not authorized to make this call."}]}"#
    static let expired = #"{"errors":[{"errorType":"UnauthorizedException","message":"Token has expired."}]}"#
    static let malformed = #"{"errors":[{"errorType":"UnauthorizedException","message":"Unable to parse JWT token."}]}"#

    /// The claims a test token carries.
    struct Claims: JWTPayload {
        var iss: String
        var sub = "7d8ca528-4931-4254-9273-ea5ee853f271"
        var aud: String?
        var clientId: String?
        var tokenUse: String?
        var exp: Int
        var iat: Int?
        var authTime: Int?
        var username: String? = "alice"

        enum CodingKeys: String, CodingKey {
            case iss, sub, aud, exp, iat
            case clientId = "client_id"
            case tokenUse = "token_use"
            case authTime = "auth_time"
            case username = "cognito:username"
        }

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// A P-256 key pair with its public JWKS document.
    struct SigningKey {
        let keys: JWTKeyCollection
        let jwks: String

        init(kid: String) async {
            let key = ES256PrivateKey()
            let parameters = key.publicKey.parameters!
            keys = await JWTKeyCollection().add(ecdsa: key, kid: JWKIdentifier(string: kid))
            jwks = """
                {"keys":[{"kty":"EC","crv":"P-256","alg":"ES256","use":"sig","kid":"\(kid)",\
                "x":"\(parameters.x)","y":"\(parameters.y)"}]}
                """
        }

        func sign(_ claims: Claims, kid: String = "local-1") async throws -> String {
            try await keys.sign(claims, kid: JWKIdentifier(string: kid))
        }
    }

    static let poolIssuer = "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Local"
    static var now: Int { Int(Date().timeIntervalSince1970) }

    static func send(_ url: URL, token: String) async throws -> (status: Int, body: String) {
        try await HTTPEndpointTests.send(url, body: listQuery, headers: ["Authorization": token])
    }

    @Test func userPoolTokensAreVerified() async throws {
        let key = await SigningKey(kid: "local-1")
        let stranger = await SigningKey(kid: "local-1")
        let otherKid = await SigningKey(kid: "local-2")
        let authorization = ServerAuthorization(
            defaultMode: .amazonCognitoUserPools,
            userPool: UserPoolAuthorization(
                userPoolId: "us-east-1_Local",
                region: "us-east-1",
                appIdClientRegex: "app-[0-9]+",
                jwks: .json(key.jwks)
            )
        )
        let idToken = Claims(iss: Self.poolIssuer, aud: "app-1", tokenUse: "id", exp: Self.now + 600)
        var accessToken = Claims(iss: Self.poolIssuer, clientId: "app-2", tokenUse: "access", exp: Self.now + 600)
        accessToken.username = nil
        try await HTTPEndpointTests.withEndpoint(authorization: authorization) { url in
            let valid = try await Self.send(url, token: try await key.sign(idToken))
            #expect(valid.status == 200)
            #expect(valid.body == Self.accepted)
            let access = try await Self.send(url, token: try await key.sign(accessToken))
            #expect(access.body == Self.accepted)

            var expired = idToken
            expired.exp = Self.now - 5
            let late = try await Self.send(url, token: try await key.sign(expired))
            #expect(late.status == 401)
            #expect(late.body == Self.expired)

            var refused: [(String, Claims)] = []
            var foreignIssuer = idToken
            foreignIssuer.iss = "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Other"
            refused.append(("another pool", foreignIssuer))
            var foreignClient = idToken
            foreignClient.aud = "web-1"
            refused.append(("a client the regex refuses", foreignClient))
            var partialClient = idToken
            partialClient.aud = "app-1x"
            refused.append(("a client matching only part of the regex", partialClient))
            var refresh = idToken
            refresh.tokenUse = "refresh"
            refused.append(("token_use refresh", refresh))
            var noUse = idToken
            noUse.tokenUse = nil
            refused.append(("no token_use", noUse))
            for (reason, claims) in refused {
                let response = try await Self.send(url, token: try await key.sign(claims))
                #expect(response.status == 401, "\(reason)")
                #expect(response.body == Self.notAuthorized, "\(reason)")
            }

            let strangerToken = try await Self.send(url, token: try await stranger.sign(idToken))
            #expect(strangerToken.body == Self.notAuthorized, "signed by a key the JWKS lacks, same kid")
            let unknownKid = try await Self.send(url, token: try await otherKid.sign(idToken, kid: "local-2"))
            #expect(unknownKid.body == Self.notAuthorized)

            let token = try await key.sign(idToken)
            let parts = token.split(separator: ".").map(String.init)
            let forged = Data(
                #"{"iss":"\#(Self.poolIssuer)","sub":"someone-else","aud":"app-1","token_use":"id","exp":\#(Self.now + 600)}"#
                    .utf8
            ).base64EncodedString().replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_")
            let tampered = try await Self.send(url, token: [parts[0], forged, parts[2]].joined(separator: "."))
            #expect(tampered.body == Self.notAuthorized, "payload changed, signature kept")
            let unsigned = try await Self.send(url, token: [parts[0], parts[1], ""].joined(separator: "."))
            #expect(unsigned.body == Self.notAuthorized)

            for garbage in ["not-a-jwt", "a.b", "Bearer " + token, "x.y.z"] {
                let response = try await Self.send(url, token: garbage)
                #expect(response.status == 401, "\(garbage)")
                #expect(response.body == Self.malformed, "\(garbage)")
            }
        }
    }

    @Test func openIDConnectTokensAreVerified() async throws {
        let key = await SigningKey(kid: "local-1")
        let issuer = "https://idp.example.com/"
        let authorization = ServerAuthorization(
            defaultMode: .apiKey,
            additionalModes: [.openIDConnect],
            apiKeys: [APIKey(value: "da2-valid")],
            openIDConnect: OIDCAuthorization(
                issuer: issuer,
                clientId: "stratus-web",
                issuedAtTTL: 3600,
                authTTL: 7200,
                jwks: .json(key.jwks)
            )
        )
        let now = Self.now
        let good = Claims(iss: issuer, aud: "stratus-web", exp: now + 600, iat: now - 10, authTime: now - 100)
        try await HTTPEndpointTests.withEndpoint(authorization: authorization) { url in
            #expect(try await Self.send(url, token: try await key.sign(good)).body == Self.accepted)
            var otherAudience = good
            otherAudience.aud = "stratus-mobile"
            #expect(try await Self.send(url, token: try await key.sign(otherAudience)).body == Self.notAuthorized)
            var oldIssue = good
            oldIssue.iat = now - 3700
            #expect(try await Self.send(url, token: try await key.sign(oldIssue)).body == Self.expired)
            var oldAuth = good
            oldAuth.authTime = now - 7300
            #expect(try await Self.send(url, token: try await key.sign(oldAuth)).body == Self.expired)
            var poolToken = good
            poolToken.iss = Self.poolIssuer
            #expect(
                try await Self.send(url, token: try await key.sign(poolToken)).body == Self.notAuthorized,
                "the API has no user pool mode"
            )
            let apiKey = try await HTTPEndpointTests.send(
                url,
                body: Self.listQuery,
                headers: ["x-api-key": "da2-valid"]
            )
            #expect(apiKey.body == Self.accepted, "the default mode still works")
        }
    }

    @Test func modeNotEnabledRefusesTokens() async throws {
        let key = await SigningKey(kid: "local-1")
        let token = try await key.sign(Claims(iss: Self.poolIssuer, aud: "app-1", tokenUse: "id", exp: Self.now + 60))
        try await HTTPEndpointTests.withEndpoint { url in
            let response = try await Self.send(url, token: token)
            #expect(response.status == 401)
            #expect(response.body == Self.notAuthorized)
        }
    }

    // MARK: - Tokens issued by moto, a Cognito implementation nobody here wrote

    static func motoAuthorization(_ pool: MotoUserPool, clientRegex: String? = nil) -> ServerAuthorization {
        ServerAuthorization(
            defaultMode: .amazonCognitoUserPools,
            userPool: pool.authorization(clientRegex: clientRegex)
        )
    }

    @Test func motoTokensAreAcceptedThroughTheJWKSURL() async throws {
        let pool = try await MotoUserPool.shared()
        try await HTTPEndpointTests.withEndpoint(
            authorization: Self.motoAuthorization(pool, clientRegex: pool.clientId)
        ) {
            url in
            for token in [pool.aliceId, pool.aliceAccess, pool.bobId] {
                let response = try await Self.send(url, token: token)
                #expect(response.status == 200)
                #expect(response.body == Self.accepted)
            }
            let otherClient = try await Self.send(url, token: pool.otherClientId)
            #expect(otherClient.body == Self.notAuthorized, "a client appIdClientRegex does not match")
            let foreign = try await Self.send(url, token: pool.foreignPoolId)
            #expect(foreign.body == Self.notAuthorized, "signed by moto's key, issued by another pool")

            var parts = pool.aliceId.split(separator: ".").map(String.init)
            let payload = try #require(Data(base64URL: parts[1]))
            let altered = String(decoding: payload, as: UTF8.self).replacingOccurrences(
                of: "\"cognito:username\":\"alice\"",
                with: "\"cognito:username\":\"admin\""
            )
            #expect(altered != String(decoding: payload, as: UTF8.self))
            parts[1] = Data(altered.utf8).base64URLString
            let tampered = try await Self.send(url, token: parts.joined(separator: "."))
            #expect(tampered.status == 401)
            #expect(tampered.body == Self.notAuthorized)
        }
        try await HTTPEndpointTests.withEndpoint(authorization: Self.motoAuthorization(pool)) { url in
            let otherClient = try await Self.send(url, token: pool.otherClientId)
            #expect(otherClient.body == Self.accepted, "without appIdClientRegex every client of the pool is accepted")
        }
    }

    @Test func expiredMotoTokensAreRefused() async throws {
        let pool = try await MotoUserPool.shared()
        let later: @Sendable () -> Date = { Date().addingTimeInterval(2 * 3600) }
        try await HTTPEndpointTests.withEndpoint(authorization: Self.motoAuthorization(pool), clock: later) { url in
            let response = try await Self.send(url, token: pool.aliceId)
            #expect(response.status == 401)
            #expect(response.body == Self.expired)
        }
    }
}

extension Data {
    init?(base64URL text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        self.init(base64Encoded: base64)
    }

    var base64URLString: String {
        base64EncodedString().replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
    }
}
