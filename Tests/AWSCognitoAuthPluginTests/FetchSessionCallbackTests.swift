import AWSAPIPlugin
import AWSCognitoAuthPlugin
import AWSPluginsCore
import Amplify
import Foundation
import StratusCognito
import StratusServer
import StratusTesting
import Testing

// The ID-token provider of api-rest-authorization.txt ("use the ID Token instead"), as the seed
// writes it: `Amplify.Auth.fetchAuthSession`'s callback form fills a local and signals a
// semaphore. Changes to the snippet's text: indentation, and the enum around it.
enum IDTokenProviderSeed {
    class MyAPIAuthProviderFactory: APIAuthProviderFactory {
        let myAuthProvider = MyOIDCAuthProvider()
        override func oidcAuthProvider() -> AmplifyOIDCAuthProvider? {
            return myAuthProvider
        }
    }

    class MyOIDCAuthProvider: AmplifyOIDCAuthProvider {
        func getLatestAuthToken() -> Result<String, Error> {
            let semaphore = DispatchSemaphore(value: 0)
            var result: Result<String, Error> = .failure(AuthError.unknown("Could not retrieve Cognito token"))
            Amplify.Auth.fetchAuthSession { (event) in
                defer {
                    semaphore.signal()
                }
                switch event {
                case .success(let session):
                    if let cognitoTokenResult = (session as? AuthCognitoTokensProvider)?.getCognitoTokens() {
                        switch cognitoTokenResult {
                        case .success(let tokens):
                            result = .success(tokens.idToken)
                        case .failure(let error):
                            result = .failure(error)
                        }
                    }
                case .failure(let error):
                    result = .failure(error)
                }
            }
            semaphore.wait()
            return result
        }
    }
}

/// `Amplify.Auth.fetchAuthSession`'s callback form, through the seed's ID-token provider: a REST
/// API on the local backend, configured as `OPENID_CONNECT`, gets the local Cognito's ID token.
///
/// The seed's snippet uses the process-wide `Amplify`, so it runs in a child: the test binary
/// run again with a role in its environment.
@Suite struct FetchSessionCallbackTests {
    static let roleVariable = "STRATUS_AUTH_CALLBACK_TEST_ROLE"
    static let configurationVariable = "STRATUS_AUTH_CALLBACK_TEST_CONFIGURATION"
    static let usernameVariable = "STRATUS_AUTH_CALLBACK_TEST_USERNAME"

    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    @Test(.enabled(if: FetchSessionCallbackTests.environment[roleVariable] == nil))
    func theSeedsIDTokenProviderAuthorizesARESTCall() async throws {
        #if os(Linux)
            let backend = try await LocalBackend.start(
                schema: "type Todo @model { id: ID! name: String }",
                additionalModes: [.amazonCognitoUserPools],
                restAPIs: [
                    RESTAPI(
                        name: "seedApi",
                        routes: [
                            RESTRoute(
                                path: "/claims",
                                methods: [.get],
                                authorization: .amazonCognitoUserPools,
                                handler: .function { event in
                                    let claims = event["requestContext"]?["authorizer"]?["claims"]
                                    let body: JSON = [
                                        "token_use": claims?["token_use"] ?? .null,
                                        "cognito:username": claims?["cognito:username"] ?? .null,
                                    ]
                                    return ["statusCode": 200, "body": .string(body.text)]
                                }
                            )
                        ]
                    )
                ],
                cognito: CognitoConfiguration(
                    userPoolId: "us-east-1_IDToken",
                    clients: [.init(clientId: "idtokenclient")]
                )
            )
            let directory = FileManager.default.temporaryDirectory.appending(path: "stratus-idtoken-\(UUID())")
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: directory) }
                let pool = try #require(backend.cognito)
                let username = TestCognito.newUsername("idtoken")
                let auth = AWSCognitoAuthPlugin(
                    sessionStore: InMemoryAuthSessionStore(),
                    hub: HubCategory(),
                    configuration: AWSCognitoAuthConfiguration(
                        userPool: .init(
                            poolId: "us-east-1_IDToken",
                            appClientId: "idtokenclient",
                            region: "us-east-1",
                            endpoint: backend.origin
                        )
                    )
                )
                try auth.configure(using: nil)
                _ = try await auth.signUp(username: username, password: "Secret-pass1!", options: nil)
                let code = try #require(try await pool.pendingCode(for: username))
                _ = try await auth.confirmSignUp(for: username, confirmationCode: code)

                let configuration: JSONValue = [
                    "auth": [
                        "plugins": [
                            "awsCognitoAuthPlugin": [
                                "CognitoUserPool": [
                                    "Default": [
                                        "PoolId": "us-east-1_IDToken", "AppClientId": "idtokenclient",
                                        "Region": "us-east-1", "Endpoint": .string(backend.origin.absoluteString),
                                    ]
                                ],
                                "Auth": ["Default": ["authenticationFlowType": "USER_PASSWORD_AUTH"]],
                            ]
                        ]
                    ],
                    "api": [
                        "plugins": [
                            "awsAPIPlugin": [
                                "seedApi": [
                                    "endpointType": "REST",
                                    "endpoint": .string(backend.restEndpoint(of: "seedApi").absoluteString),
                                    "region": "us-east-1",
                                    "authorizationType": "OPENID_CONNECT",
                                ]
                            ]
                        ]
                    ],
                ]
                let output = directory.appending(path: "child.log")
                let child = try await ChildProcess.start(
                    [
                        URL(fileURLWithPath: CommandLine.arguments[0]).path, "--testing-library", "swift-testing",
                        "--filter", "FetchSessionCallbackTests/seedSnippetInAChild",
                    ],
                    environment: [
                        Self.roleVariable: "seed",
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
                let lines = log.split(separator: "\n").map(String.init)
                #expect(
                    lines.contains("signed out: There is no user signed in."),
                    "\(log)"
                )
                #expect(
                    lines.contains(#"claims: {"token_use":"id","cognito:username":"\#(username)"}"#),
                    "\(log)"
                )
            } catch {
                await backend.stop()
                throw error
            }
            await backend.stop()
        #endif
    }

    /// The child's side: `Amplify` configured with the Auth plugin and the API plugin with the
    /// seed's factory; the REST call before and after signing in.
    @Test(.enabled(if: FetchSessionCallbackTests.environment[roleVariable] == "seed"))
    func seedSnippetInAChild() async throws {
        let configuration = try JSONDecoder().decode(
            JSONValue.self,
            from: Data(try #require(Self.environment[Self.configurationVariable]).utf8)
        )
        let username = try #require(Self.environment[Self.usernameVariable])
        try Amplify.add(plugin: AWSCognitoAuthPlugin())
        try Amplify.add(plugin: AWSAPIPlugin(apiAuthProviderFactory: IDTokenProviderSeed.MyAPIAuthProviderFactory()))
        try Amplify.configure(AmplifyConfiguration(json: configuration))

        // Signed out: the session's tokens are an error, which the provider returns.
        let provider = IDTokenProviderSeed.MyOIDCAuthProvider()
        let signedOut: Result<String, Error> = provider.getLatestAuthToken()
        if case .failure(let error as AuthError) = signedOut {
            print("signed out: \(error.errorDescription)")
        } else {
            print("signed out: \(signedOut)")
        }

        _ = try await Amplify.Auth.signIn(username: username, password: "Secret-pass1!")
        let body = try await Amplify.API.get(request: RESTRequest(path: "/claims"))
        print("claims: \(String(decoding: body, as: UTF8.self))")
        await Amplify.reset()
    }
}
