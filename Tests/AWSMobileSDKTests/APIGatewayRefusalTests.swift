import AWSAPIGateway
import AWSCore
import AWSPluginsCore
import Amplify
import Foundation
import RESTClient
import StratusServer
import StratusTesting
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Calls API Gateway refuses reach `AWSTask.error` with its status and message: no signature,
/// an unknown key, a wrong secret, a body changed after signing.
@Suite struct APIGatewayRefusalTests {
    static let request = AWSAPIGatewayRequest(
        httpMethod: "POST",
        urlString: "/items",
        queryParameters: ["key1": "{value1}"],
        headerParameters: ["Content-Type": "application/json"],
        httpBody: #"{"key1":"value1"}"#
    )

    /// Runs `body` with a backend serving `/rest/items/items` with IAM.
    static func withBackend(_ body: (LocalBackend) async throws -> Void) async throws {
        let backend = try await LocalBackend.start(
            schema: "type Note @model { id: ID! }",
            restAPIs: [
                RESTAPI(name: "items", routes: [RESTRoute(path: "/items", authorization: .awsIAM, handler: .echo)])
            ]
        )
        do {
            try await body(backend)
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    static func client(
        _ backend: LocalBackend,
        credentials: AWSCredentials?,
        transport: any HTTPTransport = URLSessionTransport()
    ) -> AWSAPIGatewayClient {
        AWSAPIGatewayClient(
            configuration: AWSServiceConfiguration(
                region: .USEast1,
                endpoint: nil,
                credentialsProvider: credentials.map { StaticCredentialsProvider($0) }
            ),
            url: backend.restEndpoint(of: "items"),
            transport: transport
        )
    }

    /// The refusal the task failed with.
    static func refusal(_ task: AWSTask<AWSAPIGatewayResponse>) async throws -> AWSAPIGatewayError {
        do {
            let response = try await task.value
            Issue.record("The call succeeded: \(response)")
            throw CancellationError()
        } catch let error as AWSAPIGatewayError {
            #expect(task.error is AWSAPIGatewayError)
            #expect(task.result == nil)
            return error
        }
    }

    /// The seed's `client(forKey:)` with a key nothing was registered under: its calls fail
    /// through `AWSTask.error`, naming the key and the registration, and nothing is sent.
    @Test func aClientOfAnUnregisteredKeyFailsItsCallsNamingTheFix() async throws {
        let client = xyz123useamplifyabcdClient.client(forKey: "NeverRegistered")
        let refusal = try await Self.refusal(client.invoke(Self.request))
        #expect(refusal.code == .notRegistered)
        #expect(
            refusal.message
                == "No xyz123useamplifyabcdClient is registered for the key 'NeverRegistered'. Call "
                + "xyz123useamplifyabcdClient.registerClient(withConfiguration:forKey:) with that key first."
        )
    }

    @Test func signedCallsSucceed() async throws {
        try await Self.withBackend { backend in
            let response = try await Self.client(backend, credentials: backend.credentials).invoke(Self.request).value
            #expect(response.statusCode == 200)
            #expect(
                response.responseData.map { String(decoding: $0, as: UTF8.self) }
                    == #"{"success":"post call succeed!","url":"/items?key1=%7Bvalue1%7D","body":{"key1":"value1"}}"#
            )
            #expect(response.headers["content-type"] == "application/json; charset=utf-8")
        }
    }

    @Test func apiKeyRoutesTakeTheClientsKey() async throws {
        let backend = try await LocalBackend.start(
            schema: "type Note @model { id: ID! }",
            restAPIs: [
                RESTAPI(name: "keyed", routes: [RESTRoute(path: "/items", authorization: .apiKey, handler: .echo)])
            ]
        )
        do {
            let client = AWSAPIGatewayClient(
                configuration: AWSServiceConfiguration(region: .USEast1, credentialsProvider: nil),
                url: backend.restEndpoint(of: "keyed")
            )
            let refused = try await Self.refusal(client.invoke(Self.request))
            #expect(refused.statusCode == 403)
            #expect(refused.response?.responseData == Data(#"{"message":"Forbidden"}"#.utf8))

            client.apiKey = backend.apiKey
            #expect(try await client.invoke(Self.request).value.statusCode == 200)
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    @Test func anUnsignedCallGetsMissingAuthenticationToken() async throws {
        try await Self.withBackend { backend in
            let error = try await Self.refusal(Self.client(backend, credentials: nil).invoke(Self.request))
            #expect(error.code == .httpError)
            #expect(error.statusCode == 403)
            #expect(error.message == "Missing Authentication Token")
            #expect(error.response?.responseData == Data(#"{"message":"Missing Authentication Token"}"#.utf8))
            #expect("\(error)" == "HTTP 403: Missing Authentication Token")
        }
    }

    @Test func anUnknownAccessKeyGetsAnInvalidSecurityToken() async throws {
        try await Self.withBackend { backend in
            let stranger = AWSCredentials(accessKeyId: "AKIDSTRANGER", secretAccessKey: "secret")
            let error = try await Self.refusal(Self.client(backend, credentials: stranger).invoke(Self.request))
            #expect(error.statusCode == 403)
            #expect(
                error.response?.responseData
                    == Data(#"{"message":"The security token included in the request is invalid."}"#.utf8)
            )
        }
    }

    /// A wrong secret and a body changed after signing get API Gateway's message, which quotes
    /// the canonical request and string to sign it computed from what it received.
    @Test(arguments: [false, true]) func aBadSignatureGetsAPIGatewaysSignatureMessage(tamper: Bool) async throws {
        try await Self.withBackend { backend in
            var credentials = backend.credentials
            if !tamper { credentials.secretAccessKey = "not the secret" }
            let recorder = SentRequests(tamper: tamper)
            let error = try await Self.refusal(
                Self.client(backend, credentials: credentials, transport: recorder).invoke(Self.request)
            )
            let sent = try #require(recorder.last)
            #expect(sent.httpBody == Data((tamper ? #"{"key1":"value2"}"# : #"{"key1":"value1"}"#).utf8))
            let (canonicalRequest, stringToSign) = try Self.expectedSigning(of: sent, credentials: credentials)
            let message =
                "The request signature we calculated does not match the signature you provided. Check your AWS "
                + "Secret Access Key and signing method. Consult the service documentation for details.\n\n"
                + "The Canonical String for this request should have been\n'\(canonicalRequest)'\n\n"
                + "The String-to-Sign should have been\n'\(stringToSign)'\n"
            #expect(error.statusCode == 403)
            #expect(error.message == message)
            let body =
                try JSONSerialization.jsonObject(with: error.response?.responseData ?? Data()) as? [String: String]
            #expect(body == ["message": message])
            #expect(canonicalRequest.hasPrefix("POST\n/rest/items/items\nkey1=%7Bvalue1%7D\n"))
        }
    }

    /// The canonical request and string to sign of `request` as sent, computed by the signer.
    static func expectedSigning(
        of request: URLRequest,
        credentials: AWSCredentials
    ) throws -> (String, String) {
        let headers = (request.allHTTPHeaderFields ?? [:]).filter { $0.key.lowercased() != "authorization" }
        let signed = SigV4Request(
            method: request.httpMethod ?? "GET",
            url: try #require(request.url),
            headers: SigV4Request.Headers(headers.keys.sorted().map { .init(name: $0, value: headers[$0]!) }),
            body: request.httpBody ?? Data()
        )
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let timestamp = try #require(request.value(forHTTPHeaderField: "X-Amz-Date"))
        let date = try #require(formatter.date(from: timestamp))
        let signer = SigV4Signer(service: "execute-api", region: "us-east-1")
        return (
            signer.canonicalRequest(for: signed, credentials: credentials, date: date),
            signer.stringToSign(for: signed, credentials: credentials, date: date)
        )
    }
}

/// Sends requests over `URLSession` and keeps the last one sent; with `tamper`, changes the
/// body's value after the request was signed, as a proxy might.
final class SentRequests: HTTPTransport {
    private let tamper: Bool
    private let sent = Mutex<URLRequest?>(nil)
    private let base = URLSessionTransport()

    init(tamper: Bool) {
        self.tamper = tamper
    }

    var last: URLRequest? { sent.withLock { $0 } }

    func send(_ request: URLRequest) async throws -> APIResponse {
        var request = request
        if tamper {
            request.httpBody = Data(#"{"key1":"value2"}"#.utf8)
        }
        let sending = request
        sent.withLock { $0 = sending }
        return try await base.send(request)
    }
}
