import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport that records each request and answers from a script, without a network.
final class InMemoryTransport: HTTPTransport {
    /// What a request received: its method, URL, headers (names in lower case) and body.
    struct Recorded: Sendable, Hashable {
        var method: String
        var url: String
        var headers: [String: String]
        var body: Data

        var bodyText: String { String(decoding: body, as: UTF8.self) }
        var json: JSONValue? { try? JSONDecoder().decode(JSONValue.self, from: body) }
    }

    typealias Responder = @Sendable (_ request: URLRequest, _ index: Int) throws -> APIResponse

    private let responder: Responder
    private let recorded = Mutex<[Recorded]>([])

    /// A transport that answers the `index`-th request (from 0) with `responder`.
    init(_ responder: @escaping Responder) {
        self.responder = responder
    }

    /// A transport that answers with `responses` in turn, repeating the last one.
    convenience init(_ responses: [APIResponse]) {
        self.init { _, index in responses[min(index, responses.count - 1)] }
    }

    /// A transport that answers every request with `status` and `body`.
    convenience init(status: Int = 200, headers: [String: String] = [:], body: String) {
        self.init([APIResponse(statusCode: status, headers: headers, body: Data(body.utf8))])
    }

    var requests: [Recorded] { recorded.withLock { $0 } }

    func send(_ request: URLRequest) async throws -> APIResponse {
        let index = recorded.withLock { requests in
            requests.append(Recorded(request))
            return requests.count - 1
        }
        return try responder(request, index)
    }
}

extension InMemoryTransport.Recorded {
    init(_ request: URLRequest) {
        method = request.httpMethod ?? "GET"
        url = request.url?.absoluteString ?? ""
        headers = Dictionary(
            (request.allHTTPHeaderFields ?? [:]).map { ($0.key.lowercased(), $0.value) },
            uniquingKeysWith: { first, _ in first }
        )
        body = request.httpBody ?? Data()
    }
}

extension APIResponse {
    /// A response with a JSON body.
    static func json(_ body: String, status: Int = 200, headers: [String: String] = [:]) -> APIResponse {
        APIResponse(
            statusCode: status,
            headers: headers.merging(["content-type": "application/json"]) { a, _ in a },
            body: Data(body.utf8)
        )
    }
}

/// A clock at a fixed date that records the waits instead of taking them.
final class TestClock: Sendable {
    static let date = Date(timeIntervalSince1970: 1_700_000_000)  // 2023-11-14T22:13:20Z

    private let waits = Mutex<[Duration]>([])

    var recordedWaits: [Duration] { waits.withLock { $0 } }

    var clock: APIClock {
        APIClock(now: { TestClock.date }, sleep: { [self] duration in waits.withLock { $0.append(duration) } })
    }
}

/// Test credentials, with a session token.
let testCredentials = StaticCredentialsProvider(
    accessKeyId: "AKIDEXAMPLE",
    secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
    sessionToken: "session-token"
)

/// A token provider of every kind that returns a fixed token.
struct FixedTokenProvider: AmplifyOIDCAuthProvider, AmplifyFunctionAuthProvider, AmplifyUserPoolsAuthProvider {
    let token: String

    func getLatestAuthToken() async throws -> String { token }
}

/// A factory that provides a token provider for each token mode.
final class TestAuthProviderFactory: APIAuthProviderFactory {
    override func oidcAuthProvider() -> AmplifyOIDCAuthProvider? { FixedTokenProvider(token: "oidc-token") }
    override func functionAuthProvider() -> AmplifyFunctionAuthProvider? { FixedTokenProvider(token: "lambda-token") }
    override func userPoolsAuthProvider() -> AmplifyUserPoolsAuthProvider? {
        FixedTokenProvider(token: "user-pools-token")
    }
}

/// The GraphQL endpoint of the tests.
let graphQLURL = URL(string: "https://abc.appsync-api.us-east-1.amazonaws.com/graphql")!
/// The REST endpoint of the tests.
let restURL = URL(string: "https://xyz.execute-api.us-east-1.amazonaws.com/dev")!

extension AWSAPIPluginConfiguration.Endpoint {
    static func graphQL(
        name: String = "blog",
        url: URL = graphQLURL,
        authorizationType: AWSAuthorizationType = .apiKey,
        apiKey: String? = "da2-test-key"
    ) -> Self {
        .init(
            name: name,
            endpointType: .graphQL,
            endpoint: url,
            region: "us-east-1",
            authorizationType: authorizationType,
            apiKey: apiKey
        )
    }

    static func rest(
        name: String = "items",
        url: URL = restURL,
        authorizationType: AWSAuthorizationType = .awsIAM,
        apiKey: String? = nil
    ) -> Self {
        .init(
            name: name,
            endpointType: .rest,
            endpoint: url,
            region: "us-east-1",
            authorizationType: authorizationType,
            apiKey: apiKey
        )
    }
}

/// A configured plugin on `transport`, its clock fixed.
func makePlugin(
    _ endpoints: [AWSAPIPluginConfiguration.Endpoint],
    transport: InMemoryTransport,
    factory: APIAuthProviderFactory = TestAuthProviderFactory(),
    retryPolicy: RetryPolicy = .never,
    clock: TestClock = TestClock()
) throws -> AWSAPIPlugin {
    let plugin = AWSAPIPlugin(
        apiAuthProviderFactory: factory,
        credentialsProvider: testCredentials,
        transport: transport,
        retryPolicy: retryPolicy,
        clock: clock.clock
    )
    try plugin.configure(AWSAPIPluginConfiguration(endpoints: endpoints))
    return plugin
}

/// The message of an error thrown by `body`, or `nil` when it throws none.
func thrownMessage(_ body: () async throws -> Void) async -> String? {
    do {
        try await body()
        return nil
    } catch {
        return "\(error)"
    }
}
