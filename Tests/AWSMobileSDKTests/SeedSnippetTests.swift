import AWSAPIGateway
import AWSAppSync
import AWSCognitoAuthPlugin
import AWSCore
import AWSMobileClient
import AWSPluginsCore
import Amplify
import Foundation
import StratusCognito
import StratusServer
import StratusTesting
import Synchronization
import Testing
import TodoAPI

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The seeds' snippets written for the AWS Mobile SDK, run against the local backend with
/// Cognito served by moto. They use `AWSMobileClient.sharedInstance()`, so they run one at a time.
@Suite(.serialized, .timeLimit(.minutes(2))) struct SeedSnippetTests {
    static let apiName = "xyz123useamplifyabcd"
    static let password = "Secret-pass1!"

    static func configuration(_ moto: MotoUserPool, identityPool: Bool) -> AWSCognitoAuthConfiguration {
        let endpoint = URL(string: moto.endpoint)!
        return AWSCognitoAuthConfiguration(
            userPool: .init(
                poolId: moto.poolId,
                appClientId: moto.authClientId,
                region: "us-east-1",
                endpoint: endpoint
            ),
            identityPool: identityPool
                ? .init(poolId: moto.identityPoolId, region: "us-east-1", endpoint: endpoint) : nil,
            // SRP's big-integer math is slow in debug builds; the Auth plugin's tests cover it.
            authenticationFlowType: .userPassword
        )
    }

    static func newUser(_ moto: MotoUserPool) async throws -> String {
        let username = "seed-\(UUID().uuidString.prefix(8).lowercased())"
        try await moto.createUser(username, password: password)
        return username
    }

    /// The REST API guide's `doInvokeAPI()`: a guest call with the identity pool's
    /// unauthenticated credentials, then, once signed in, a call with the user's.
    @Test func doInvokeAPICallsAsAGuestThenAsTheSignedInUser() async throws {
        let moto = try await MotoUserPool.shared()
        let username = try await Self.newUser(moto)
        let backend = try await LocalBackend.start(
            schema: "type Note @model { id: ID! }",
            restAPIs: [
                RESTAPI(name: Self.apiName, routes: [RESTRoute(path: "/items", authorization: .awsIAM, handler: .echo)])
            ],
            otherIAMCredentials: [MotoUserPool.identityPoolCredentials]
        )
        do {
            let identity = IdentityPoolCalls()
            let client = AWSMobileClient.sharedInstance()
            let state = try await client.initialize(
                configuration: Self.configuration(moto, identityPool: true),
                sessionStore: InMemoryAuthSessionStore(),
                transport: identity
            )
            #expect(state == .guest)
            #expect(!client.isSignedIn)

            let app = SeedApp()
            let endpoint = AWSEndpoint(url: backend.restEndpoint(of: Self.apiName))
            AWSAPIGatewayClient.$endpointOverride.withValue(endpoint) { app.doInvokeAPI() }
            let echoed =
                #"{"success":"post call succeed!","url":"/items?key1=%7Bvalue1%7D","body":{"key1":"value1","key2":"value2","key3":"value3"}}"#
            let guestLines = try await app.output.first(2)
            // What Swift's `print` writes for an optional string: its debug description.
            #expect(guestLines == ["Optional(\(echoed.debugDescription))", "200"])
            #expect(identity.logins == [nil], "a guest asks for credentials without Logins")

            let signIn = try await client.signIn(username: username, password: Self.password)
            #expect(signIn.signInState == .signedIn)
            #expect(client.isSignedIn)
            #expect(client.username == username)

            AWSAPIGatewayClient.$endpointOverride.withValue(endpoint) { app.doInvokeAPI() }
            let signedInLines = try await app.output.first(4).suffix(2)
            #expect(Array(signedInLines) == ["Optional(\(echoed.debugDescription))", "200"])
            let idToken = try #require(try await client.getTokens().idToken?.tokenString)
            #expect(identity.logins.count == 2)
            #expect(
                identity.logins.last == ["cognito-idp.us-east-1.amazonaws.com/\(moto.poolId)": idToken],
                "the signed-in call's credentials come from the user's ID token"
            )
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    /// The same snippet against the local Cognito of `serve`, whose identity pool gives guests
    /// and signed-in users the credentials of different roles: the REST handler sees the guest's
    /// call as `unauthenticated` and the signed-in user's as `authenticated`, as API Gateway's
    /// `cognitoAuthenticationType` says.
    @Test func theServerSeesTheGuestThenTheAuthenticatedRole() async throws {
        let backend = try await LocalBackend.start(
            schema: "type Note @model { id: ID! }",
            restAPIs: [
                RESTAPI(
                    name: Self.apiName,
                    routes: [
                        RESTRoute(
                            path: "/items",
                            authorization: .awsIAM,
                            handler: .function { event in
                                let role = event["requestContext"]?["identity"]?["cognitoAuthenticationType"]
                                return ["statusCode": 200, "body": .string(role?.stringValue ?? "none")]
                            }
                        )
                    ]
                )
            ],
            cognito: CognitoConfiguration(
                userPoolId: "us-east-1_Seed",
                clients: [.init(clientId: "seedclient")],
                users: [.init(username: "seed-user", password: Self.password)]
            )
        )
        do {
            let pool = try #require(backend.cognito)
            let client = AWSMobileClient.sharedInstance()
            let state = try await client.initialize(
                configuration: AWSCognitoAuthConfiguration(
                    userPool: .init(
                        poolId: "us-east-1_Seed",
                        appClientId: "seedclient",
                        region: "us-east-1",
                        endpoint: backend.origin
                    ),
                    identityPool: .init(
                        poolId: try #require(pool.configuration.identityPoolId),
                        region: "us-east-1",
                        endpoint: backend.origin
                    ),
                    authenticationFlowType: .userPassword
                ),
                sessionStore: InMemoryAuthSessionStore()
            )
            #expect(state == .guest)

            let app = SeedApp()
            let endpoint = AWSEndpoint(url: backend.restEndpoint(of: Self.apiName))
            AWSAPIGatewayClient.$endpointOverride.withValue(endpoint) { app.doInvokeAPI() }
            #expect(try await app.output.first(2) == ["Optional(\"unauthenticated\")", "200"])

            _ = try await client.signIn(username: "seed-user", password: Self.password)
            AWSAPIGatewayClient.$endpointOverride.withValue(endpoint) { app.doInvokeAPI() }
            #expect(Array(try await app.output.first(4).suffix(2)) == ["Optional(\"authenticated\")", "200"])
            try await client.signOut()
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    /// The AppSync guide's user pool snippet: `MyCognitoUserPoolsAuthProvider` takes the ID
    /// token from `AWSMobileClient.getTokens`; signed out, the call fails with the Auth error.
    @Test func userPoolsProviderOfTheGuideGetsTokensFromTheMobileClient() async throws {
        let moto = try await MotoUserPool.shared()
        let username = try await Self.newUser(moto)
        let backend = try await LocalBackend.start(
            schema: "type Todo @model { id: ID! name: String! description: String }",
            defaultMode: .amazonCognitoUserPools,
            userPool: moto.authorization()
        )
        do {
            let client = AWSMobileClient.sharedInstance()
            #expect(
                try await client.initialize(
                    configuration: Self.configuration(moto, identityPool: false),
                    sessionStore: InMemoryAuthSessionStore()
                ) == .signedOut
            )
            let app = SeedAppSyncApp(
                awsConfiguration: [
                    "AppSync": [
                        "Default": [
                            "ApiUrl": .string(backend.endpoint.absoluteString), "Region": "us-east-1",
                            "AuthMode": "AMAZON_COGNITO_USER_POOLS",
                        ]
                    ]
                ]
            )
            app.initializeAppSync()
            let appSyncClient = try #require(app.appSyncClient, "initializeAppSync printed \(app.printed)")

            let mutation = CreateTodoMutation(input: CreateTodoInput(name: "Use AppSync", description: "Signed in"))
            await #expect {
                try await appSyncClient.perform(mutation: mutation)
            } throws: { error in
                "\(error)"
                    == "The auth provider of AMAZON_COGNITO_USER_POOLS failed to return a token: There is no user "
                    + "signed in. Call Amplify.Auth.signIn(username:password:) first. Check that the user is signed in."
            }

            _ = try await client.signIn(username: username, password: Self.password)
            let created = try await appSyncClient.perform(mutation: mutation)
            #expect(created.errors == nil)
            #expect(created.data?.createTodo?.name == "Use AppSync")

            // The ready-made provider over the same Auth plugin does what the guide's class does.
            let provider = AWSAuthUserPoolsAuthProvider(auth: try client.authPlugin())
            #expect(try await provider.latestToken() == client.getTokens().idToken?.tokenString)

            try await client.signOut()
            #expect(client.currentUserState == .signedOut)
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    /// The AppSync guide's IAM snippet: `credentialsProvider: AWSMobileClient.default()` signs
    /// with the identity pool's credentials, the guest's and then the signed-in user's; the
    /// server sees the role of each.
    @Test func iamSnippetSignsWithTheMobileClientsIdentityPoolCredentials() async throws {
        let backend = try await LocalBackend.start(
            schema: "type Todo @model { id: ID! name: String! description: String }",
            defaultMode: .awsIAM,
            additionalModes: [],
            cognito: CognitoConfiguration(
                userPoolId: "us-east-1_SeedIAM",
                clients: [.init(clientId: "seedclient")],
                users: [.init(username: "seed-user", password: Self.password)]
            )
        )
        let directory = FileManager.default.temporaryDirectory.appending(path: "seed-iam-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let pool = try #require(backend.cognito)
            let client = AWSMobileClient.default()
            let state = try await client.initialize(
                configuration: AWSCognitoAuthConfiguration(
                    userPool: .init(
                        poolId: "us-east-1_SeedIAM",
                        appClientId: "seedclient",
                        region: "us-east-1",
                        endpoint: backend.origin
                    ),
                    identityPool: .init(
                        poolId: try #require(pool.configuration.identityPoolId),
                        region: "us-east-1",
                        endpoint: backend.origin
                    ),
                    authenticationFlowType: .userPassword
                ),
                sessionStore: InMemoryAuthSessionStore()
            )
            #expect(state == .guest)
            let app = SeedAppSyncApp(
                awsConfiguration: [
                    "AppSync": [
                        "Default": [
                            "ApiUrl": .string(backend.endpoint.absoluteString), "Region": "us-east-1",
                            "AuthMode": "AWS_IAM",
                        ]
                    ]
                ],
                cacheDirectory: directory
            )
            app.initializeAppSyncWithIAM()
            let appSyncClient = try #require(app.appSyncClient, "the IAM snippet printed \(app.printed)")

            let guest = try await appSyncClient.perform(
                mutation: CreateTodoMutation(input: CreateTodoInput(name: "As a guest"))
            )
            #expect(guest.errors == nil)
            #expect(guest.data?.createTodo?.name == "As a guest")

            _ = try await client.signIn(username: "seed-user", password: Self.password)
            let signedIn = try await appSyncClient.perform(
                mutation: CreateTodoMutation(input: CreateTodoInput(name: "Signed in"))
            )
            #expect(signedIn.errors == nil)
            #expect(signedIn.data?.createTodo?.name == "Signed in")
            try await client.signOut()

            // A client that was never initialized says so.
            await #expect {
                _ = try await AWSMobileClient().fetchCredentials()
            } throws: { error in
                (error as? AuthError)?.errorDescription == "AWSMobileClient is not initialized."
            }
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }
}

/// The AppSync guide's app with its user pool `initializeAppSync()`, with two changes: the
/// API is read from `awsConfiguration` (not `awsconfiguration.json` in the working directory,
/// which tests running at once cannot share) and the cache is a database of its own.
final class SeedAppSyncApp: @unchecked Sendable {
    var appSyncClient: AWSAppSyncClient?
    var printed: [String] = []
    let awsConfiguration: JSONValue
    let cacheDirectory: URL?

    init(awsConfiguration: JSONValue, cacheDirectory: URL? = nil) {
        self.awsConfiguration = awsConfiguration
        self.cacheDirectory = cacheDirectory
    }

    /// The guide's IAM snippet, with the API read from `awsConfiguration` and the caches in
    /// `cacheDirectory` rather than the user's cache directory.
    func initializeAppSyncWithIAM() {
        do {
            // Initialize the AWS AppSync configuration
            let appSyncConfig = try AWSAppSyncClientConfiguration(
                appSyncServiceConfig: AWSAppSyncServiceConfig(awsConfiguration: awsConfiguration),
                credentialsProvider: AWSMobileClient.default(),
                cacheConfiguration: AWSAppSyncCacheConfiguration(withRootDirectory: cacheDirectory)
            )

            // Initialize the AWS AppSync client
            appSyncClient = try AWSAppSyncClient(appSyncConfig: appSyncConfig)
        } catch {
            print("Error initializing appsync client. \(error)")
        }
    }

    func print(_ text: String) {
        printed.append(text)
    }

    func initializeAppSync() {
        // You can choose your database location, accessible by the SDK
        let databaseURL = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "todos_db-\(UUID().uuidString)"
        )

        do {
            // Initialize the AWS AppSync configuration
            let appSyncConfig = try AWSAppSyncClientConfiguration(
                appSyncClientInfo: AWSAppSyncClientInfo(awsConfiguration: awsConfiguration),
                userPoolsAuthProvider: {
                    class MyCognitoUserPoolsAuthProvider: AWSCognitoUserPoolsAuthProviderAsync {
                        func getLatestAuthToken(_ callback: @escaping (String?, Error?) -> Void) {
                            AWSMobileClient.sharedInstance().getTokens { (tokens, error) in
                                if error != nil {
                                    callback(nil, error)
                                } else {
                                    callback(tokens?.idToken?.tokenString, nil)
                                }
                            }
                        }
                    }
                    return MyCognitoUserPoolsAuthProvider()
                }(),
                databaseURL: databaseURL
            )

            // Initialize the AWS AppSync client
            appSyncClient = try AWSAppSyncClient(appSyncConfig: appSyncConfig)
        } catch {
            print("Error initializing appsync client. \(error)")
        }
    }
}

/// Sends requests over `URLSession`, recording the `Logins` of each `GetCredentialsForIdentity`.
final class IdentityPoolCalls: HTTPTransport {
    private let recorded = Mutex<[[String: String]?]>([])
    private let base = URLSessionTransport()

    var logins: [[String: String]?] { recorded.withLock { $0 } }

    func send(_ request: URLRequest) async throws -> APIResponse {
        if request.value(forHTTPHeaderField: "X-Amz-Target")?.hasSuffix(".GetCredentialsForIdentity") == true {
            let body = try JSONSerialization.jsonObject(with: request.httpBody ?? Data()) as? [String: Any]
            let logins = body?["Logins"] as? [String: String]
            recorded.withLock { $0.append(logins) }
        }
        return try await base.send(request)
    }
}
