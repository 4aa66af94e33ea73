import AWSCognitoAuthPlugin
import Amplify
import Foundation
import StratusTesting
import Testing

/// A signed-in session read back by a new process: the test signs in, then runs this test
/// binary again as a child that configures `Amplify` with the same configuration and finds the
/// user signed in, through the default session file in the XDG data directory.
@Suite struct SessionRestartTests {
    static let roleVariable = "STRATUS_AUTH_TEST_ROLE"
    static let configurationVariable = "STRATUS_AUTH_TEST_CONFIGURATION"
    static let usernameVariable = "STRATUS_AUTH_TEST_USERNAME"

    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    @Test(.enabled(if: SessionRestartTests.environment[roleVariable] == nil))
    func aSignedInSessionSurvivesANewProcess() async throws {
        #if os(Linux)
            let moto = try await TestCognito.start(.moto)
            let username = TestCognito.newUsername("restart")
            try await moto.createUser(username, email: "\(username)@example.com")
            let directory = try SessionStoreTests.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let section: JSONValue = [
                "CognitoUserPool": [
                    "Default": [
                        "PoolId": .string(moto.poolId), "AppClientId": .string(moto.authClientId),
                        "Region": "us-east-1", "Endpoint": .string(moto.endpoint.absoluteString),
                    ]
                ],
                "Auth": ["Default": ["authenticationFlowType": "USER_PASSWORD_AUTH"]],
            ]
            let configuration: JSONValue = ["auth": ["plugins": ["awsCognitoAuthPlugin": section]]]
            let store = FileAuthSessionStore(name: moto.poolId, environment: ["XDG_DATA_HOME": directory.path])
            let auth = AWSCognitoAuthPlugin(sessionStore: store, hub: HubCategory())
            try auth.configure(with: AmplifyConfiguration(json: configuration))
            _ = try await auth.signIn(username: username, password: "Secret-pass1!", options: nil)

            let output = directory.appending(path: "child.log")
            let child = try await ChildProcess.start(
                [
                    URL(fileURLWithPath: CommandLine.arguments[0]).path, "--testing-library", "swift-testing",
                    "--filter",
                    "SessionRestartTests/restoreInAChild",
                ],
                environment: [
                    Self.roleVariable: "restore",
                    Self.configurationVariable: String(
                        decoding: try JSONEncoder().encode(configuration),
                        as: UTF8.self
                    ),
                    Self.usernameVariable: username,
                    "XDG_DATA_HOME": directory.path,
                ],
                in: directory,
                output: output
            )
            let status = try await child.wait()
            let log = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            #expect(status == .exited(0), "\(log)")
            #expect(log.contains("restored \(username) with 2 attributes"), "\(log)")
        #endif
    }

    /// The child's side: configure `Amplify` from the environment and find the user signed in.
    @Test(.enabled(if: SessionRestartTests.environment[roleVariable] == "restore"))
    func restoreInAChild() async throws {
        let configuration = try JSONDecoder().decode(
            JSONValue.self,
            from: Data(try #require(Self.environment[Self.configurationVariable]).utf8)
        )
        try Amplify.add(plugin: AWSCognitoAuthPlugin())
        try Amplify.configure(AmplifyConfiguration(json: configuration))
        let session = try #require(try await Amplify.Auth.fetchAuthSession() as? AWSAuthCognitoSession)
        #expect(session.isSignedIn)
        let user = try await Amplify.Auth.getCurrentUser()
        #expect(user.username == Self.environment[Self.usernameVariable])
        // The restored access token still works against the user pool.
        let attributes = try await Amplify.Auth.fetchUserAttributes()
        #expect(attributes.contains { $0.key == .email })
        print("restored \(user.username) with \(attributes.count) attributes")
    }
}
