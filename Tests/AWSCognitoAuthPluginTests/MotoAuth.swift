import AWSCognitoAuthPlugin
import AWSPluginsCore
import Amplify
import Foundation
import StratusTesting
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Cognito as moto serves it, with plugins configured for it and the admin calls tests need.
struct MotoAuth {
    let pool: MotoUserPool

    static func start() async throws -> MotoAuth {
        MotoAuth(pool: try await MotoUserPool.shared())
    }

    var endpoint: URL { URL(string: pool.endpoint)! }

    /// The configuration of the SRP client (or of the client with a secret), with or without
    /// the identity pool.
    func configuration(
        secret: Bool = false,
        identityPool: Bool = false,
        flow: AWSCognitoAuthConfiguration.AuthenticationFlowType = .userSRP
    ) -> AWSCognitoAuthConfiguration {
        AWSCognitoAuthConfiguration(
            userPool: .init(
                poolId: pool.poolId,
                appClientId: secret ? pool.secretClientId : pool.authClientId,
                appClientSecret: secret ? pool.clientSecret : nil,
                region: "us-east-1",
                endpoint: endpoint
            ),
            identityPool: identityPool
                ? .init(poolId: pool.identityPoolId, region: "us-east-1", endpoint: endpoint) : nil,
            authenticationFlowType: flow
        )
    }

    /// A configured plugin with its own hub, transport recorder and clock.
    func plugin(
        _ configuration: AWSCognitoAuthConfiguration,
        store: any AuthSessionStore = InMemoryAuthSessionStore(),
        recorder: RecordingTransport = RecordingTransport(),
        clock: TestClock = TestClock(),
        hub: HubCategory = HubCategory()
    ) throws -> AWSCognitoAuthPlugin {
        let plugin = AWSCognitoAuthPlugin(
            sessionStore: store,
            transport: recorder,
            hub: hub,
            now: { clock.now },
            configuration: configuration
        )
        try plugin.configure(using: nil)
        return plugin
    }

    /// A new username, so that tests running at once never share a user.
    static func newUsername(_ prefix: String = "user") -> String {
        "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// Calls the administrator's operation `operation` of the user pool service on moto,
    /// signed with moto's placeholder keys; returns the answer.
    @discardableResult
    func admin(_ operation: String, _ input: [String: JSONValue]) async throws -> JSONValue {
        var request = URLRequest(url: endpoint)
        request.httpMethod = "POST"
        request.setValue("application/x-amz-json-1.1", forHTTPHeaderField: "Content-Type")
        request.setValue("AWSCognitoIdentityProviderService.\(operation)", forHTTPHeaderField: "X-Amz-Target")
        var body = input
        body["UserPoolId"] = .string(pool.poolId)
        request.httpBody = try JSONEncoder().encode(JSONValue.object(body))
        let signed = SigV4Signer(service: "cognito-idp", region: "us-east-1")
            .sign(request, credentials: AWSCredentials(accessKeyId: "moto", secretAccessKey: "moto"))
        let response = try await URLSessionTransport().send(signed)
        try #require(
            response.statusCode == 200,
            "\(operation): HTTP \(response.statusCode) \(String(decoding: response.body, as: UTF8.self))"
        )
        return try JSONDecoder().decode(JSONValue.self, from: response.body)
    }

    /// Creates a user as an administrator would, with a temporary password: the first sign-in
    /// asks for a new one.
    func createUser(_ username: String, temporaryPassword: String, email: String? = nil) async throws {
        var input: [String: JSONValue] = [
            "Username": .string(username), "TemporaryPassword": .string(temporaryPassword),
        ]
        if let email { input["UserAttributes"] = [["Name": "email", "Value": .string(email)]] }
        try await admin("AdminCreateUser", input)
    }

    /// Creates a confirmed user with a permanent password.
    func createUser(_ username: String, password: String = "Secret-pass1!", email: String? = nil) async throws {
        try await createUser(username, temporaryPassword: "Temp-pass1!", email: email)
        try await admin(
            "AdminSetUserPassword",
            ["Username": .string(username), "Password": .string(password), "Permanent": true]
        )
    }
}

/// A clock that tests move forward.
final class TestClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)

    var now: Date { Date().addingTimeInterval(offset.withLock { $0 }) }

    func advance(by interval: TimeInterval) {
        offset.withLock { $0 += interval }
    }
}

/// Sends requests over `URLSession` and records each operation, its input and the response headers.
final class RecordingTransport: HTTPTransport {
    struct Call: Sendable {
        var target: String
        var input: JSONValue
        var status: Int
        var headers: [String: String]
    }

    private let base: any HTTPTransport
    private let recorded = Mutex<[Call]>([])

    init(base: any HTTPTransport = URLSessionTransport()) {
        self.base = base
    }

    var calls: [Call] { recorded.withLock { $0 } }

    /// The operations called, such as `InitiateAuth`.
    var operations: [String] { calls.map { String($0.target.split(separator: ".").last ?? "") } }

    func send(_ request: URLRequest) async throws -> APIResponse {
        let response = try await base.send(request)
        let input = try JSONDecoder().decode(JSONValue.self, from: request.httpBody ?? Data("{}".utf8))
        let call = Call(
            target: request.value(forHTTPHeaderField: "X-Amz-Target") ?? "",
            input: input,
            status: response.statusCode,
            headers: response.headers
        )
        recorded.withLock { $0.append(call) }
        return response
    }
}

/// The events a hub sent on `.auth`.
final class HubRecorder: Sendable {
    private let payloads = Mutex<[HubPayload]>([])

    init(_ hub: HubCategory) {
        hub.listen(to: .auth) { [self] payload in payloads.withLock { $0.append(payload) } }
    }

    var eventNames: [String] { payloads.withLock { $0.map(\.eventName) } }
    var lastPayload: HubPayload? { payloads.withLock { $0.last } }
}
