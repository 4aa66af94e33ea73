import AWSWire
import Foundation
import HTTPTypes
import Hummingbird
import StratusServer

/// `POST /` with an `X-Amz-Target` of `AWSCognitoIdentityProviderService` or
/// `AWSCognitoIdentityService`, and `GET /<poolId>/.well-known/jwks.json`: the local Cognito on
/// the API's port, where boto3 and the Auth plugin reach it by `endpoint_url`.
///
/// Administrator operations must be signed with SigV4 (service `cognito-idp`) by one of the
/// configured IAM credentials, or, when none are configured, by the pool's own
/// ``CognitoUserPool/administratorCredentials``.
public struct CognitoEndpoint: HTTPRouteProvider {
    let pool: CognitoUserPool
    let iamCredentials: [IAMCredential]
    let maxRequestBytes: Int
    let clock: @Sendable () -> Date

    static let targetHeader = HTTPField.Name("X-Amz-Target")!

    /// The endpoint of `pool`: administrator calls are signed by one of `iamCredentials` (or,
    /// when there are none, the pool's own), bodies are at most `maxRequestBytes`, and signatures
    /// are dated against `clock`.
    public init(
        pool: CognitoUserPool,
        iamCredentials: [IAMCredential],
        maxRequestBytes: Int,
        clock: @escaping @Sendable () -> Date
    ) {
        self.pool = pool
        self.iamCredentials = iamCredentials
        self.maxRequestBytes = maxRequestBytes
        self.clock = clock
    }

    /// `POST /` and `GET /<poolId>/.well-known/jwks.json`.
    public func addRoutes(to router: Router<ClientAddressRequestContext>) {
        router.post("/") { request, context in
            await respond(to: request, from: context.remoteAddress?.ipAddress ?? "")
        }
        router.get(RouterPath("\(pool.configuration.userPoolId)/.well-known/jwks.json")) { _, _ in
            keys()
        }
    }

    /// The pool's issuer and identity pool logins follow the origin it is served at.
    public func serverListens(at origin: String) {
        pool.setOrigin(origin)
    }

    /// Answers `request`, which came from the client address `client`.
    func respond(to request: Request, from client: String) async -> Response {
        var request = request
        let body: Data
        do {
            body = Data(buffer: try await request.collectBody(upTo: maxRequestBytes))
        } catch {
            return Self.response(
                400,
                CognitoError("InvalidParameterException", "The request body is larger than \(maxRequestBytes) bytes.")
                    .body
            )
        }
        guard let target = request.headers[Self.targetHeader], !target.isEmpty else {
            return Self.response(400, CognitoError.missingTarget.body)
        }
        let operation = target.split(separator: ".").last.map(String.init) ?? ""
        if target.hasPrefix("AWSCognitoIdentityProviderService."), CognitoUserPool.adminOperations.contains(operation) {
            if let refusal = checkSignature(request, body: body) { return Self.response(400, refusal.body) }
        }
        let (status, answer) = await pool.respond(target: target, body: body, from: client)
        if let metrics = ServerMetrics.current {
            let signsIn = Self.signInOperations.contains(operation)
            let signedIn: Bool? =
                !signsIn ? nil : status == 200 ? (answer["AuthenticationResult"] == nil ? nil : true) : false
            // The target is the caller's text: one the pool does not know is counted as `unknown`, so
            // that a caller cannot grow the metrics with names of its own.
            let known = answer["__type"]?.stringValue != "UnknownOperationException"
            metrics.cognito(operation: known ? operation : "unknown", status: status, signedIn: signedIn)
        }
        return Self.response(status, answer)
    }

    /// The calls that sign a user in, or answer one of their challenges.
    static let signInOperations: Set<String> = [
        "InitiateAuth", "AdminInitiateAuth", "RespondToAuthChallenge", "AdminRespondToAuthChallenge",
    ]

    /// `nil` when the request is signed as an administrator's must be.
    private func checkSignature(_ request: Request, body: Data) -> CognitoError? {
        guard let authorization = request.headers[.authorization], authorization.hasPrefix("AWS4-HMAC-SHA256") else {
            return CognitoError("MissingAuthenticationTokenException", "Missing Authentication Token")
        }
        let credentials = iamCredentials.isEmpty ? [pool.administratorCredentials] : iamCredentials
        let verifier = SigV4Verifier(service: "cognito-idp", region: pool.configuration.region) { accessKeyId in
            credentials.first { $0.accessKeyId == accessKeyId }.map { ($0.secretAccessKey, $0.sessionToken) }
        }
        let parts = RequestAuthenticator.SignedParts(request: request, body: body)
        do {
            _ = try verifier.verify(
                method: parts.method,
                path: parts.path,
                query: parts.query,
                headers: parts.headers,
                body: body,
                now: clock()
            )
            return nil
        } catch let error as SigV4VerificationError {
            return CognitoError(error.errorType, error.description)
        } catch {
            return CognitoError("InvalidSignatureException", "\(error)")
        }
    }

    /// `GET /<poolId>/.well-known/jwks.json`.
    func keys() -> Response {
        var response = Self.response(200, JSON.object([:]))
        response.headers[.contentType] = "application/json"
        response.body = ResponseBody(byteBuffer: ByteBuffer(string: pool.jwks))
        return response
    }

    static func response(_ status: Int, _ body: JSON) -> Response {
        var headers = GraphQLEndpoint.corsHeaders
        headers[.contentType] = "application/x-amz-json-1.1"
        return Response(
            status: HTTPResponse.Status(code: status),
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(data: body.data))
        )
    }
}

extension CognitoError {
    static let missingTarget = CognitoError(
        "UnknownOperationException",
        "The request has no X-Amz-Target header; name the operation, such as AWSCognitoIdentityProviderService.InitiateAuth."
    )
}
