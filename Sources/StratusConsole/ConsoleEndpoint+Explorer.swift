import AWSWire
import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import StratusCognito
import StratusServer

/// The Explorer's identities beyond the API key and the local Cognito's users: IAM (the
/// configured credentials, and the identity pool's guest and users, whose requests the console
/// signs with SigV4), an OpenID Connect token and a Lambda authorizer's token the user types;
/// and `POST /console/api/credentials`, the headers a request as an identity carries, which
/// the page opens real-time connections with.
///
/// An identity is a JSON object:
///
/// | `type` | members | credentials |
/// |---|---|---|
/// | `API_KEY` | | `x-api-key` |
/// | `AMAZON_COGNITO_USER_POOLS` | `username` | an ID token the local pool issues |
/// | `AWS_IAM` | `accessKeyId` | a SigV4 signature with that configured credential |
/// | `AWS_IAM` | `identityPool`: `guest` | a signature with the identity pool's guest credentials |
/// | `AWS_IAM` | `identityPool`: `user`, `username` | a signature with the user's identity-pool credentials |
/// | `OPENID_CONNECT` | `token` | the token, as `authorization` |
/// | `OPENID_CONNECT` | `claims` | a token of those claims the local provider signs (``LocalOpenIDConnect``) |
/// | `AWS_LAMBDA` | `token` | the token, as `authorization` |
extension ConsoleEndpoint {
    /// The identities of the modes beyond the API key and user pools, and those of the API's
    /// modes the console cannot run as, each with `unavailable`: why, and the fix.
    func moreIdentities(_ authorization: ServerAuthorization, users: [CognitoUserPool.UserSummary]) async -> [JSON] {
        let modes = authorization.modes
        var identities: [JSON] = []
        if modes.contains(.awsIAM) {
            for credential in authorization.iamCredentials {
                identities.append([
                    "type": "AWS_IAM", "accessKeyId": .string(credential.accessKeyId),
                    "label": .string("IAM credential \(credential.accessKeyId)"),
                ])
            }
            if let cognito, cognito.configuration.identityPoolId != nil {
                if cognito.configuration.allowsGuests {
                    identities.append(["type": "AWS_IAM", "identityPool": "guest", "label": "IAM: identity-pool guest"])
                }
                for user in users where user.status == "CONFIRMED" && user.enabled {
                    identities.append([
                        "type": "AWS_IAM", "identityPool": "user", "username": .string(user.username),
                        "label": .string("IAM: identity-pool user \(user.username)"),
                    ])
                }
            }
            if identities.isEmpty {
                identities.append([
                    "type": "AWS_IAM", "label": "IAM (unavailable)",
                    "unavailable": .string(Self.noIAMCredentials),
                ])
            }
        }
        if modes.contains(.openIDConnect), let local = openIDConnect {
            identities.append([
                "type": "OPENID_CONNECT", "needsClaims": true,
                "label": .string("OIDC claims (local provider \(local.authorization.issuer))"),
                "claimsHint": .string(Self.claimsHint),
            ])
        } else if modes.contains(.openIDConnect) {
            let issuer = authorization.openIDConnect?.issuer ?? "the configured provider"
            identities.append([
                "type": "OPENID_CONNECT", "needsToken": true,
                "label": .string("OIDC token of \(issuer)"),
                "tokenHint": .string(Self.oidcHint(issuer)),
            ])
        }
        if modes.contains(.function) {
            if !authorization.hasLambdaAuthorizer {
                identities.append([
                    "type": "AWS_LAMBDA", "label": "Lambda authorizer (unavailable)",
                    "unavailable": .string(Self.noLambdaAuthorizer),
                ])
            } else {
                identities.append([
                    "type": "AWS_LAMBDA", "needsToken": true, "label": "Lambda authorizer token",
                    "tokenHint": "The token the authorizer decides on, sent as the authorization header.",
                ])
            }
        }
        return identities
    }

    static let noIAMCredentials =
        "The API accepts AWS_IAM, but the console has no credentials to sign with: add authorization.iamCredentials "
        + "to the configuration file, or start stratus serve with --auth for the local identity pool."
    static let noLambdaAuthorizer =
        "The API accepts AWS_LAMBDA, but no Lambda authorizer is configured, so every token is refused: "
        + "configure one (authorization.lambdaAuthorizer in the configuration file) to run as a Lambda token."

    static let claimsHint =
        #"The token's claims as JSON, such as {"sub": "alice", "groups": ["admin"]}: the local provider signs "#
        + "them, with its issuer, the configured client as aud, and an expiry an hour on unless given."

    static func oidcHint(_ issuer: String) -> String {
        "The server checks OPENID_CONNECT tokens against the keys of \(issuer), which the console does not hold, so "
            + "it cannot make one: paste a token that provider issued."
    }

    /// The headers that carry `identity`'s credentials for a `POST` of `body` to `url`: a SigV4
    /// signature of exactly that request for IAM, the same headers whatever the body otherwise.
    func requestHeaders(
        for identity: JSON?,
        url: String,
        body: Data,
        authorization: ServerAuthorization
    ) async -> Result<[(String, String)], IdentityProblem> {
        let type = identity?["type"]?.stringValue ?? "API_KEY"
        let modes = authorization.modes
        if let mode = Identity.AuthorizationMode(rawValue: type), mode != .none, !modes.contains(mode) {
            return .failure(
                IdentityProblem(
                    message: "The API does not accept \(type) (its modes: "
                        + modes.map(\.rawValue).joined(separator: ", ") + "). Add \(type) to "
                        + "authorization.additionalModes in the configuration file, or choose another identity."
                )
            )
        }
        switch type {
        case "API_KEY":
            guard let key = authorization.apiKeys.first else {
                return .failure(IdentityProblem(message: "The API has no API key to run the request with."))
            }
            return .success([("x-api-key", key.value)])
        case "AMAZON_COGNITO_USER_POOLS":
            guard let cognito else {
                return .failure(
                    IdentityProblem(message: "The server has no local Cognito: start stratus serve with --auth.")
                )
            }
            guard let username = identity?["username"]?.stringValue else {
                return .failure(IdentityProblem(message: #"A Cognito identity names its user: "username": "alice"."#))
            }
            do {
                return .success([("authorization", try await cognito.issueTokens(for: username).idToken)])
            } catch {
                return .failure(IdentityProblem(message: "Cannot run as Cognito user '\(username)': \(error)"))
            }
        case "AWS_IAM":
            let credential: AWSCredentials
            switch await iamCredential(for: identity, authorization: authorization) {
            case .success(let found): credential = found
            case .failure(let problem): return .failure(problem)
            }
            guard let target = URL(string: url) else {
                return .failure(IdentityProblem(message: "The URL '\(url)' to sign is not a URL."))
            }
            let request = SigV4Request(
                method: "POST",
                url: target,
                headers: ["content-type": "application/json"],
                body: body
            )
            let signed = SigV4Signer(service: "appsync", region: authorization.region).sign(
                request,
                credentials: credential
            )
            return .success(signed.headers.filter { $0.name.lowercased() != "host" }.map { ($0.name, $0.value) })
        case "OPENID_CONNECT" where identity?["claims"] != nil:
            guard let local = openIDConnect else {
                return .failure(
                    IdentityProblem(
                        message: "The console signs OIDC claims only for the backend's own provider "
                            + #"(authorization.openIDConnect with "local": true); the configured provider's keys are "#
                            + #"elsewhere: run as its token, "token": "…"."#
                    )
                )
            }
            guard case .object(let claims)? = identity?["claims"] else {
                return .failure(
                    IdentityProblem(message: #"OIDC claims are a JSON object: "claims": {"sub": "alice"}."#)
                )
            }
            do {
                return .success([("authorization", try local.token(of: claims, now: Date()))])
            } catch {
                return .failure(error)
            }
        case "OPENID_CONNECT", "AWS_LAMBDA":
            guard let token = identity?["token"]?.stringValue, !token.isEmpty else {
                let what =
                    type == "AWS_LAMBDA" ? "the token the Lambda authorizer decides on" : "a token of the provider"
                return .failure(
                    IdentityProblem(
                        message: "An \(type) identity carries \(what): \"token\": \"…\". Type it beside Run as."
                    )
                )
            }
            if type == "AWS_LAMBDA", !authorization.hasLambdaAuthorizer {
                return .failure(IdentityProblem(message: Self.noLambdaAuthorizer))
            }
            return .success([("authorization", token)])
        default:
            return .failure(
                IdentityProblem(
                    message: "Unknown identity type '\(type)'. Use API_KEY, AMAZON_COGNITO_USER_POOLS with a username, "
                        + "AWS_IAM with an accessKeyId or identityPool (guest, or user with a username), or "
                        + "OPENID_CONNECT or AWS_LAMBDA with a token."
                )
            )
        }
    }

    /// The IAM credential `identity` signs with: a configured one, or the identity pool's for a
    /// guest or a user, fetched as a client fetches them (`GetId`, `GetCredentialsForIdentity`)
    /// and kept until a minute before they expire.
    func iamCredential(
        for identity: JSON?,
        authorization: ServerAuthorization
    ) async -> Result<AWSCredentials, IdentityProblem> {
        if let accessKeyId = identity?["accessKeyId"]?.stringValue {
            guard let credential = authorization.iamCredentials.first(where: { $0.accessKeyId == accessKeyId }) else {
                return .failure(
                    IdentityProblem(
                        message: "The API has no IAM credential '\(accessKeyId)': name one of "
                            + "authorization.iamCredentials (GET /console/api/identities lists them)."
                    )
                )
            }
            return .success(credential)
        }
        let source = identity?["identityPool"]?.stringValue
        guard source == "guest" || source == "user" else {
            return .failure(
                IdentityProblem(
                    message: #"An AWS_IAM identity names a configured credential ("accessKeyId": "AKID…") or the "#
                        + #"identity pool ("identityPool": "guest", or "user" with a "username")."#
                )
            )
        }
        guard let cognito, let poolId = cognito.configuration.identityPoolId else {
            return .failure(
                IdentityProblem(
                    message: "The server has no local identity pool: start stratus serve with --auth (and an "
                        + "identityPoolId in the auth settings)."
                )
            )
        }
        var logins: JSONObject = [:]
        var key = "guest"
        if source == "user" {
            guard let username = identity?["username"]?.stringValue else {
                return .failure(
                    IdentityProblem(message: #"An identity-pool user is named: "username": "alice"."#)
                )
            }
            do {
                logins[cognito.loginKey] = .string(try await cognito.issueTokens(for: username).idToken)
            } catch {
                return .failure(IdentityProblem(message: "Cannot run as identity-pool user '\(username)': \(error)"))
            }
            key = "user:\(username)"
        }
        if let kept = identityPoolCredentials.withLock({ $0[key] }),
            kept.expiration.map({ $0.timeIntervalSinceNow > 60 }) ?? false,
            await cognito.issuedCredentials(for: kept.accessKeyId) != nil
        {
            return .success(kept)
        }
        do {
            let id = try await identityService("GetId", ["IdentityPoolId": .string(poolId), "Logins": .object(logins)])
            guard let identityId = id["IdentityId"]?.stringValue else {
                return .failure(
                    IdentityProblem(message: "The identity pool's GetId answered no IdentityId: \(id.text)")
                )
            }
            let answer = try await identityService(
                "GetCredentialsForIdentity",
                ["IdentityId": .string(identityId), "Logins": .object(logins)]
            )
            guard let issued = answer["Credentials"], let accessKeyId = issued["AccessKeyId"]?.stringValue,
                let secret = issued["SecretKey"]?.stringValue
            else {
                return .failure(IdentityProblem(message: "The identity pool answered no credentials: \(answer.text)"))
            }
            let expiration = issued["Expiration"]?.doubleValue.map { Date(timeIntervalSince1970: $0) }
            let credential = AWSCredentials(
                accessKeyId: accessKeyId,
                secretAccessKey: secret,
                sessionToken: issued["SessionToken"]?.stringValue,
                expiration: expiration
            )
            identityPoolCredentials.withLock { $0[key] = credential }
            return .success(credential)
        } catch {
            let who = source == "guest" ? "an identity-pool guest" : "identity-pool user"
            return .failure(IdentityProblem(message: "Cannot run as \(who): \(error.message)"))
        }
    }

    /// A refusal of the identity pool: its type and message.
    struct IdentityPoolRefusal: Error {
        let message: String
    }

    /// Calls `operation` of the identity pool served on the console's own port.
    func identityService(_ operation: String, _ input: JSONObject) async throws(IdentityPoolRefusal) -> JSON {
        guard let (origin, _) = serving else { throw IdentityPoolRefusal(message: "The server is not listening yet.") }
        var request = HTTPClientRequest(url: "\(origin)/")
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/x-amz-json-1.1")
        request.headers.add(name: "x-amz-target", value: "AWSCognitoIdentityService.\(operation)")
        request.body = .bytes(ByteBuffer(string: JSON.object(input).text))
        let status: UInt
        let text: String
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
            status = response.status.code
            text = String(buffer: try await response.body.collect(upTo: 1 << 20))
        } catch {
            throw IdentityPoolRefusal(message: "\(operation) failed: \(error)")
        }
        guard let answer = try? JSON(parsing: text) else {
            throw IdentityPoolRefusal(message: "\(operation) answered \(status) with no JSON: \(text)")
        }
        guard status == 200 else {
            let type = answer["__type"]?.stringValue ?? "HTTP \(status)"
            throw IdentityPoolRefusal(message: "\(type): \(answer["message"]?.stringValue ?? text)")
        }
        return answer
    }

    // MARK: - Credentials

    /// `POST /console/api/credentials` with `{"identity", "path", "body"}`: the headers a `POST`
    /// of `body` to `path` (`/graphql`, or `/graphql/connect` for a real-time connection) carries
    /// as `identity`, with `host`: the header object of AppSync's real-time protocol. Answers
    /// `{"headers": {…}}`.
    func credentialsRoute(_ request: Request, origin: String, authorization: ServerAuthorization) async -> Response {
        let body: JSONObject
        let example = #"{"identity": {"type": "API_KEY"}, "path": "/graphql/connect", "body": "{}"}"#
        switch await Self.objectBody(of: request, example: example) {
        case .success(let object): body = object
        case .failure(let refusal): return refusal.response
        }
        let path = body["path"]?.stringValue ?? "/graphql"
        guard path == "/graphql" || path == "/graphql/connect" else {
            return Self.refusal(
                .badRequest,
                "The path '\(path)' is not one the console signs for: use /graphql (a subscription's start) or "
                    + "/graphql/connect (a real-time connection).",
                json: true
            )
        }
        guard body["body"] == nil || body["body"]?.stringValue != nil else {
            return Self.refusal(.badRequest, #"The "body" is the request's text, a string: "{}"."#, json: true)
        }
        let signedBody = body["body"]?.stringValue ?? "{}"
        // Signed for the host the page reached the server by, which the real-time endpoint checks.
        let host = request.head.authority ?? String(origin.dropFirst("http://".count))
        switch await requestHeaders(
            for: body["identity"],
            url: "http://\(host)\(path)",
            body: Data(signedBody.utf8),
            authorization: authorization
        ) {
        case .success(let headers):
            var object = JSONObject([("host", .string(host))])
            for (name, value) in headers { object[name.lowercased()] = .string(value) }
            return Self.jsonResponse(["headers": .object(object)])
        case .failure(let problem):
            return Self.refusal(.badRequest, problem.message, json: true)
        }
    }
}
