import AWSPluginsCore
import AWSWire
import Foundation
import StratusServer
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A Cognito user pool served by moto (Python) on a loopback port, with real RS256 tokens it
/// issued: started once per test process by `Tests/Interop/moto_cognito.py`, which keeps running
/// (for the JWKS URL) until this process exits and closes its standard input.
///
/// ```swift
/// let pool = try await MotoUserPool.shared()
/// let backend = try await LocalBackend.start(schema: schema, defaultMode: .amazonCognitoUserPools, userPool: pool.authorization())
/// ```
public struct MotoUserPool: Sendable, Decodable {
    public var jwksURL: String
    public var poolId: String
    public var clientId: String
    /// Alice's ID token; she is in the group `Admins`.
    public var aliceId: String
    public var aliceAccess: String
    /// Bob's ID token; he is in no group.
    public var bobId: String
    /// Alice signed in through another client of the same pool.
    public var otherClientId: String
    /// A user of another pool, signed with the same key (moto has one key for every pool).
    public var foreignPoolId: String
    /// moto's URL, which serves the user pool and identity pool services (`http://127.0.0.1:PORT`).
    public var endpoint: String
    /// An app client of the pool that allows SRP, password and refresh-token sign-ins.
    public var authClientId: String
    /// An app client of the pool with a secret, allowing the same sign-ins.
    public var secretClientId: String
    /// The secret of ``secretClientId``.
    public var clientSecret: String
    /// An identity pool that allows guests and trusts the pool through ``authClientId``.
    public var identityPoolId: String

    /// The `iss` of the pool's tokens.
    public var issuer: String { "https://cognito-idp.us-east-1.amazonaws.com/\(poolId)" }

    /// The server configuration that verifies this pool's tokens through moto's JWKS URL.
    public func authorization(clientRegex: String? = nil) -> UserPoolAuthorization {
        UserPoolAuthorization(
            userPoolId: poolId,
            region: "us-east-1",
            appIdClientRegex: clientRegex,
            jwks: .url(URL(string: jwksURL)!)
        )
    }

    /// The credentials moto's identity pool hands out, to guests and users alike.
    public static let identityPoolCredentials = AWSCredentials(
        accessKeyId: "TESTACCESSKEY12345",
        secretAccessKey: "ABCSECRETKEY",
        sessionToken: "ABC12345"
    )

    /// Creates a confirmed user of the pool with a permanent password, as an administrator
    /// would (`AdminCreateUser`, then `AdminSetUserPassword`).
    ///
    /// - Throws: ``MotoUnavailable`` with moto's answer when a call fails.
    public func createUser(_ username: String, password: String) async throws {
        try await admin(
            "AdminCreateUser",
            ["Username": username, "TemporaryPassword": "Temp-pass1!", "MessageAction": "SUPPRESS"]
        )
        try await admin("AdminSetUserPassword", ["Username": username, "Password": password, "Permanent": true])
    }

    /// Calls the administrator's operation `operation` of the user pool service, signed with
    /// placeholder keys (moto accepts any).
    private func admin(_ operation: String, _ input: [String: any Sendable]) async throws {
        var request = URLRequest(url: URL(string: endpoint)!)
        request.httpMethod = "POST"
        request.setValue("application/x-amz-json-1.1", forHTTPHeaderField: "Content-Type")
        request.setValue("AWSCognitoIdentityProviderService.\(operation)", forHTTPHeaderField: "X-Amz-Target")
        var body = input
        body["UserPoolId"] = poolId
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        let signed = SigV4Signer(service: "cognito-idp", region: "us-east-1")
            .sign(request, credentials: AWSCredentials(accessKeyId: "moto", secretAccessKey: "moto"))
        let response = try await URLSessionTransport().send(signed)
        guard response.statusCode == 200 else {
            throw MotoUnavailable(
                message:
                    "moto refused \(operation): HTTP \(response.statusCode) \(String(decoding: response.body, as: UTF8.self))"
            )
        }
    }

    static let script = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "Tests/Interop/moto_cognito.py")

    private static let started = Mutex<Task<MotoUserPool, any Error>?>(nil)

    /// The pool, started on first use.
    public static func shared() async throws -> MotoUserPool {
        let task = started.withLock { task in
            if let task { return task }
            let new = Task { try await start() }
            task = new
            return new
        }
        return try await task.value
    }

    private static func start() async throws -> MotoUserPool {
        let name = "stratus-moto-\(UUID().uuidString)"
        let output = FileManager.default.temporaryDirectory.appending(path: "\(name).out")
        let errors = FileManager.default.temporaryDirectory.appending(path: "\(name).err")
        // Its standard input is the test process's lifeline: moto stops when this process ends.
        let process = try await ChildProcess.start(
            ["python3", script.path(percentEncoded: false)],
            output: output,
            errorOutput: errors,
            tie: .standardInput
        )
        let deadline = ContinuousClock.now + .seconds(120)
        var line: String?
        while line == nil, process.isRunning, ContinuousClock.now < deadline {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            if let newline = text.firstIndex(of: "\n") {
                line = String(text[..<newline])
            } else {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        guard let line else {
            process.kill()
            let detail = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw MotoUnavailable(
                message:
                    "moto did not start (install it with: python3 -m pip install 'moto[server,cognitoidp]' boto3):\n\(detail)"
            )
        }
        return try JSONDecoder().decode(MotoUserPool.self, from: Data(line.utf8))
    }
}

/// moto could not be started: the message says how to install it.
public struct MotoUnavailable: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
