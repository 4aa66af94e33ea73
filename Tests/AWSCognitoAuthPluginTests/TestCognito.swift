import AWSCognitoAuthPlugin
import AWSPluginsCore
import Amplify
import Foundation
import StratusCognito
import StratusServer
import StratusTesting
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Which Cognito a test runs against: moto's (Python), or the one `stratus serve` runs on the
/// API's port (``LocalBackend`` with a ``CognitoUserPool``).
enum CognitoService: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case moto, serve

    var testDescription: String { rawValue }
}

/// A Cognito user pool and identity pool for tests, with plugins configured for it and the
/// admin calls tests need.
struct TestCognito {
    let service: CognitoService
    let poolId: String
    /// An app client allowing SRP, password and refresh-token sign-ins.
    let authClientId: String
    /// An app client with a secret.
    let secretClientId: String
    let clientSecret: String
    let identityPoolId: String
    /// Where both services answer.
    let endpoint: URL
    /// The credentials the administrator's calls are signed with.
    let adminCredentials: AWSCredentials
    /// The local pool, for ``CognitoService/serve``.
    let localPool: CognitoUserPool?
    /// moto's pool, for ``CognitoService/moto``.
    let motoPool: MotoUserPool?

    static func start(_ service: CognitoService = .moto) async throws -> TestCognito {
        switch service {
        case .moto:
            let pool = try await MotoUserPool.shared()
            return TestCognito(
                service: .moto,
                poolId: pool.poolId,
                authClientId: pool.authClientId,
                secretClientId: pool.secretClientId,
                clientSecret: pool.clientSecret,
                identityPoolId: pool.identityPoolId,
                endpoint: URL(string: pool.endpoint)!,
                adminCredentials: AWSCredentials(accessKeyId: "moto", secretAccessKey: "moto"),
                localPool: nil,
                motoPool: pool
            )
        case .serve:
            let backend = try await servedBackend()
            let configuration = try #require(backend.cognito?.configuration)
            return TestCognito(
                service: .serve,
                poolId: configuration.userPoolId,
                authClientId: configuration.clients[0].clientId,
                secretClientId: configuration.clients[1].clientId,
                clientSecret: try #require(configuration.clients[1].clientSecret),
                identityPoolId: try #require(configuration.identityPoolId),
                endpoint: backend.origin,
                adminCredentials: backend.credentials,
                localPool: backend.cognito,
                motoPool: nil
            )
        }
    }

    /// The local backend with a Cognito, started once per test process, as moto is.
    private static let served = Mutex<Task<LocalBackend, any Error>?>(nil)

    private static func servedBackend() async throws -> LocalBackend {
        let task = served.withLock { task in
            if let task { return task }
            let new = Task {
                try await LocalBackend.start(
                    schema: "type Todo @model { id: ID! name: String }",
                    additionalModes: [.awsIAM, .amazonCognitoUserPools],
                    cognito: CognitoConfiguration(
                        userPoolId: "us-east-1_StratusAuth",
                        clients: [
                            .init(clientId: "stratusauthclient"),
                            .init(clientId: "stratussecretclient", clientSecret: "stratus-client-secret"),
                        ]
                    )
                )
            }
            task = new
            return new
        }
        return try await task.value
    }

    /// The key of the pool's ID tokens in an identity pool's `Logins`.
    var providerName: String {
        switch service {
        case .moto: "cognito-idp.us-east-1.amazonaws.com/\(poolId)"
        case .serve: "\(endpoint.host!):\(endpoint.port!)/\(poolId)"
        }
    }

    /// The code that confirms `username`'s sign-up: moto accepts any, the local pool printed
    /// (and kept) its own.
    func confirmationCode(for username: String) async throws -> String {
        switch service {
        case .moto: "123456"
        case .serve: try #require(try await localPool?.pendingCode(for: username))
        }
    }

    /// The configuration of the SRP client (or of the client with a secret), with or without
    /// the identity pool.
    func configuration(
        secret: Bool = false,
        identityPool: Bool = false,
        flow: AWSCognitoAuthConfiguration.AuthenticationFlowType = .userSRP
    ) -> AWSCognitoAuthConfiguration {
        AWSCognitoAuthConfiguration(
            userPool: .init(
                poolId: poolId,
                appClientId: secret ? secretClientId : authClientId,
                appClientSecret: secret ? clientSecret : nil,
                region: "us-east-1",
                endpoint: endpoint
            ),
            identityPool: identityPool
                ? .init(poolId: identityPoolId, region: "us-east-1", endpoint: endpoint) : nil,
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

    /// Calls the administrator's operation `operation` of the user pool service, signed with
    /// ``adminCredentials``; returns the answer.
    @discardableResult
    func admin(_ operation: String, _ input: [String: JSONValue]) async throws -> JSONValue {
        var request = URLRequest(url: endpoint.appending(path: "/"))
        request.httpMethod = "POST"
        request.setValue("application/x-amz-json-1.1", forHTTPHeaderField: "Content-Type")
        request.setValue("AWSCognitoIdentityProviderService.\(operation)", forHTTPHeaderField: "X-Amz-Target")
        var body = input
        body["UserPoolId"] = .string(poolId)
        request.httpBody = try JSONEncoder().encode(JSONValue.object(body))
        let signed = SigV4Signer(service: "cognito-idp", region: "us-east-1")
            .sign(request, credentials: adminCredentials)
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
