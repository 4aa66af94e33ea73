import AWSWire
import Foundation
import Hummingbird

/// Decides who sent a request, from its headers, as AppSync does.
///
/// An `Authorization` header that starts with `AWS4-HMAC-SHA256` is IAM; another `Authorization`
/// header is a token: a JWT of the configured user pool or OIDC provider (by its `iss`), else a
/// Lambda authorizer's token; `x-api-key` is an API key; no header at all is allowed only when
/// the API accepts `NONE`.
package struct RequestAuthenticator: Sendable {
    let configuration: ServerAuthorization
    let clock: @Sendable () -> Date
    let tokens: TokenVerifier
    /// The server's names, which the `host` a request is signed for must give.
    let hosts: AllowedHosts
    /// The server whose functions ``ServerAuthorization/lambdaAuthorizerFunction`` names.
    let current: CurrentServer?

    init(
        configuration: ServerAuthorization,
        clock: @escaping @Sendable () -> Date,
        hosts: AllowedHosts = .any,
        current: CurrentServer? = nil
    ) {
        self.configuration = configuration
        self.hosts = hosts
        self.clock = clock
        self.current = current
        self.tokens = TokenVerifier(
            userPool: configuration.userPool,
            openIDConnect: configuration.openIDConnect,
            localPool: configuration.localUserPool,
            clock: clock
        )
    }

    /// The parts of the request a signature covers.
    package struct SignedParts: Sendable {
        package var method: String
        package var path: String
        package var query: String?
        package var headers: SigV4Request.Headers
        package var body: Data

        init(method: String, path: String, query: String?, headers: SigV4Request.Headers, body: Data) {
            self.method = method
            self.path = path
            self.query = query
            self.headers = headers
            self.body = body
        }

        /// A request as it arrived: its headers, with `host` from its authority, and `body`.
        package init(request: Request, body: Data) {
            var headers = SigV4Request.Headers()
            if let authority = request.head.authority { headers.add(name: "host", value: authority) }
            for field in request.headers { headers.add(name: field.name.canonicalName, value: field.value) }
            self.init(
                method: request.method.rawValue,
                path: request.uri.path,
                query: request.uri.query,
                headers: headers,
                body: body
            )
        }

        /// A request described by a header object, as the real-time protocol sends one:
        /// `{"host": …, "x-api-key": …}` or the headers of a SigV4 signature, which then covers
        /// `method`, `path` and `body`. Members that are not strings are ignored.
        init(method: String = "POST", path: String, headers object: JSONObject, body: Data) {
            var headers = SigV4Request.Headers()
            for (name, value) in object {
                if let text = value.stringValue { headers.add(name: name, value: text) }
            }
            self.init(method: method, path: path, query: nil, headers: headers, body: body)
        }
    }

    /// The identity of a request, marked with whether it used the API's default mode.
    func identity(for parts: SignedParts) async throws(HTTPRejection) -> Identity {
        var identity = try await authenticatedIdentity(for: parts)
        identity.isDefaultMode = identity.authorizationMode == configuration.defaultMode
        return identity
    }

    private func authenticatedIdentity(for parts: SignedParts) async throws(HTTPRejection) -> Identity {
        let modes = configuration.modes
        let authorization = parts.headers["authorization"]
        if let authorization, authorization.hasPrefix("AWS4-HMAC-SHA256") {
            guard modes.contains(.awsIAM) else { throw .notAuthorized }
            return try await verifySignature(parts)
        }
        if let token = authorization, !token.isEmpty {
            let jwtModes = modes.filter { $0 == .amazonCognitoUserPools || $0 == .openIDConnect }
            let claims = TokenVerifier.unverifiedClaims(of: token)
            let issuer = claims?["iss"]?.stringValue
            let isOurIssuer =
                issuer != nil
                && (issuer == configuration.userPool?.issuer || issuer == configuration.openIDConnect?.issuer
                    || issuer == configuration.localUserPool?.issuer)
            if !jwtModes.isEmpty, isOurIssuer || !configuration.hasLambdaAuthorizer || !modes.contains(.function) {
                do {
                    return try await tokens.identity(for: token, modes: jwtModes)
                } catch {
                    throw error.httpRejection
                }
            }
            if modes.contains(.function), configuration.hasLambdaAuthorizer {
                let decision: LambdaAuthorization
                do {
                    decision = try await lambdaDecision(on: token, parts)
                } catch {
                    throw .notAuthorized
                }
                guard decision.isAuthorized else { throw .notAuthorized }
                return Identity(authorizationMode: .function, claims: decision.resolverContext)
            }
            throw .notAuthorized
        }
        if let key = parts.headers["x-api-key"] {
            guard modes.contains(.apiKey), isValidAPIKey(key) else { throw .notAuthorized }
            return .apiKey
        }
        if modes.contains(.none) { return .anonymous }
        throw .noAuthorization
    }

    /// Whether `key` is one of the configured API keys and has not expired.
    func isValidAPIKey(_ key: String) -> Bool {
        guard let match = configuration.apiKeys.first(where: { $0.value == key }) else { return false }
        return match.expires.map { $0 > clock() } ?? true
    }

    /// Checks a SigV4 signature of `service` (`appsync` for GraphQL, `execute-api` for REST)
    /// against the configured credentials.
    ///
    /// The signature must be made for one of the server's names (``hosts``): a request signed
    /// for another server, an AppSync API or another Stratus, and replayed to this one is
    /// refused, even when the credentials are the same. Over HTTP the signed `host` is the
    /// `Host` header the request arrived with; a real-time message names it in its header object.
    func verifySignature(_ parts: SignedParts, service: String = "appsync") async throws(HTTPRejection) -> Identity {
        if let host = parts.headers["host"], !hosts.allows(host) {
            throw HTTPRejection(
                status: 403,
                errorType: .invalidSignature,
                message: "The request is signed for the host '\(host)', which is not this server. "
                    + "Sign it for the host the server is reached by."
            )
        }
        let credentials = configuration.iamCredentials
        // Credentials the identity pool issued are read from its store before verifying, which
        // looks its keys up synchronously.
        var issued: (accessKeyId: String, secret: String, sessionToken: String, claims: JSONObject)?
        if let issuer = configuration.credentialIssuer, let accessKeyId = Self.accessKeyId(signing: parts),
            !credentials.contains(where: { $0.accessKeyId == accessKeyId }),
            let found = await issuer.issuedCredentials(for: accessKeyId)
        {
            issued = (accessKeyId, found.secretAccessKey, found.sessionToken, found.claims)
        }
        let issuedKey = issued
        let verifier = SigV4Verifier(
            service: service,
            region: configuration.region,
            clockSkew: configuration.clockSkew
        ) { accessKeyId in
            if let configured = credentials.first(where: { $0.accessKeyId == accessKeyId }) {
                return (configured.secretAccessKey, configured.sessionToken)
            }
            guard let issuedKey, issuedKey.accessKeyId == accessKeyId else { return nil }
            return (issuedKey.secret, issuedKey.sessionToken)
        }
        do {
            let identity = try verifier.verify(
                method: parts.method,
                path: parts.path,
                query: parts.query,
                headers: parts.headers,
                body: parts.body,
                now: clock()
            )
            // Credentials of the identity pool say whose they are and which role they stand for.
            if !credentials.contains(where: { $0.accessKeyId == identity.accessKeyId }),
                let issued, issued.accessKeyId == identity.accessKeyId
            {
                return Identity(authorizationMode: .awsIAM, claims: issued.claims)
            }
            return Identity(
                authorizationMode: .awsIAM,
                claims: ["accessKeyId": .string(identity.accessKeyId)]
            )
        } catch let error as SigV4VerificationError {
            guard let errorType = AppSyncErrorType(rawValue: error.errorType) else {
                preconditionFailure("AppSyncErrorType lacks the SigV4 error type '\(error.errorType)'.")
            }
            var rejection = HTTPRejection(status: 403, errorType: errorType, message: error.description)
            if let canonicalRequest = error.expectedCanonicalRequest, let stringToSign = error.expectedStringToSign {
                rejection.expectedSigning = (canonicalRequest, stringToSign)
            }
            throw rejection
        } catch {
            throw HTTPRejection(status: 403, errorType: .invalidSignature, message: "\(error)")
        }
    }

    /// Whether credentials the identity pool issued still hold: not expired, and their user
    /// neither deleted nor disabled.
    func issuedCredentialsHold(_ accessKeyId: String) async -> Bool {
        guard let issuer = configuration.credentialIssuer else { return false }
        return await issuer.issuedCredentials(for: accessKeyId) != nil
    }

    /// The access key id of a SigV4 `Authorization` header (`… Credential=AKID/date/…, …`).
    static func accessKeyId(signing parts: SignedParts) -> String? {
        guard let header = parts.headers["authorization"], let start = header.range(of: "Credential=") else {
            return nil
        }
        let credential = header[start.upperBound...].prefix { $0 != "," && $0 != " " }
        guard let slash = credential.firstIndex(of: "/") else { return nil }
        return String(credential[..<slash])
    }
}
