import AWSAPIPlugin
import AWSCognitoAuthPlugin
import AWSPluginsCore
import Amplify
import Foundation
import StratusCognito
import StratusServer
import StratusTesting
import Testing

/// The API plugin taking user pool tokens and identity pool credentials from the Cognito plugin
/// (as `Amplify.configure()` links them), against the local backend and moto.
@Suite struct APIWiringTests {
    static let schema = """
        type Todo @model @auth(rules: [{ allow: owner }]) {
          id: ID!
          name: String!
        }
        """

    @Test func userPoolTokensAuthorizeAppSyncWithoutAFactory() async throws {
        let moto = try await TestCognito.start(.moto)
        let username = TestCognito.newUsername("appsync")
        try await moto.createUser(username)
        let backend = try await LocalBackend.start(
            schema: Self.schema,
            defaultMode: .amazonCognitoUserPools,
            userPool: moto.motoPool!.authorization()
        )
        do {
            let auth = try moto.plugin(moto.configuration(flow: .userPassword))
            let configuration = AWSAPIPluginConfiguration(endpoints: [
                .init(
                    name: "stratus",
                    endpointType: .graphQL,
                    endpoint: backend.endpoint,
                    region: "us-east-1",
                    authorizationType: .amazonCognitoUserPools
                )
            ])
            let unlinked = AWSAPIPlugin()
            #expect(throws: ConfigurationError.self) { try unlinked.configure(configuration) }

            let api = AWSAPIPlugin()
            api.useAuthPlugin(auth)
            try api.configure(configuration)
            let request = GraphQLRequest(
                document: "mutation { createTodo(input: {name: \"milk\"}) { name owner } }",
                responseType: JSONValue.self
            )
            await #expect {
                try await api.mutate(request: request)
            } throws: { error in
                "\(error)"
                    == "The Auth plugin 'awsCognitoAuthPlugin' has no user pool token for AMAZON_COGNITO_USER_POOLS: "
                    + "There is no user signed in. Call Amplify.Auth.signIn(username:password:) first. "
                    + "Sign the user in with Amplify.Auth.signIn(username:password:) first."
            }

            _ = try await auth.signIn(username: username, password: "Secret-pass1!", options: nil)
            let created = try await api.mutate(request: request).get()
            #expect(created.value(at: "createTodo.name") == "milk")
            let owner = try #require(created.value(at: "createTodo.owner")?.stringValue)
            #expect(owner.hasSuffix("::\(username)"), "\(owner)")
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    @Test func restIAMCallsUseGuestThenSignedInCredentials() async throws {
        let moto = try await TestCognito.start(.moto)
        let username = TestCognito.newUsername("rest")
        try await moto.createUser(username)
        // moto's identity pool hands out these credentials to guests and users alike.
        let motoCredentials = AWSCredentials(
            accessKeyId: "TESTACCESSKEY12345",
            secretAccessKey: "ABCSECRETKEY",
            sessionToken: "ABC12345"
        )
        let backend = try await LocalBackend.start(
            schema: "type Note @model { id: ID! }",
            restAPIs: [
                RESTAPI(name: "items", routes: [RESTRoute(path: "/items", authorization: .awsIAM, handler: .echo)])
            ],
            otherIAMCredentials: [motoCredentials]
        )
        do {
            let recorder = RecordingTransport()
            let auth = try moto.plugin(moto.configuration(identityPool: true, flow: .userPassword), recorder: recorder)
            let api = AWSAPIPlugin()
            api.useAuthPlugin(auth)
            try api.configure(
                AWSAPIPluginConfiguration(endpoints: [
                    .init(
                        name: "items",
                        endpointType: .rest,
                        endpoint: backend.restEndpoint(of: "items"),
                        region: "us-east-1",
                        authorizationType: .awsIAM
                    )
                ])
            )

            let guest = try await api.send(.get, request: RESTRequest(path: "/items"))
            #expect(guest.statusCode == 200)
            let guestCalls = recorder.calls.filter { $0.target.hasSuffix(".GetCredentialsForIdentity") }
            #expect(guestCalls.count == 1)
            #expect(guestCalls.first?.input["Logins"] == nil)

            _ = try await auth.signIn(username: username, password: "Secret-pass1!", options: nil)
            let signedIn = try await api.send(.get, request: RESTRequest(path: "/items"))
            #expect(signedIn.statusCode == 200)
            let calls = recorder.calls.filter { $0.target.hasSuffix(".GetCredentialsForIdentity") }
            #expect(calls.count == 2)
            let idToken = try session(await auth.fetchAuthSession(options: nil)).getUserPoolTokens().get().idToken
            #expect(
                calls.last?.input["Logins"]
                    == ["cognito-idp.us-east-1.amazonaws.com/\(moto.poolId)": .string(idToken)]
            )
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    /// The seeds' owner-rule flow and IAM roles, with every part on one local process: two users
    /// sign up and confirm with the codes `serve` keeps, each creates posts and sees only their
    /// own; a guest's identity pool credentials cannot read a `private` model that a signed-in
    /// user's can, and REST handlers see which role signed.
    @Test func ownersGuestsAndSignedInUsersOnOneLocalProcess() async throws {
        let backend = try await LocalBackend.start(
            schema: """
                type Post @model @auth(rules: [{ allow: owner }]) { id: ID! title: String! }
                type Secret @model @auth(rules: [{ allow: private, provider: iam }]) { id: ID! text: String }
                """,
            defaultMode: .amazonCognitoUserPools,
            additionalModes: [.awsIAM],
            restAPIs: [
                RESTAPI(
                    name: "items",
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
            cognito: CognitoConfiguration(userPoolId: "us-east-1_Wiring", clients: [.init(clientId: "wiringclient")])
        )
        do {
            let pool = try #require(backend.cognito)
            func client() throws -> (AWSCognitoAuthPlugin, AWSAPIPlugin) {
                let auth = AWSCognitoAuthPlugin(
                    sessionStore: InMemoryAuthSessionStore(),
                    hub: HubCategory(),
                    configuration: AWSCognitoAuthConfiguration(
                        userPool: .init(
                            poolId: "us-east-1_Wiring",
                            appClientId: "wiringclient",
                            region: "us-east-1",
                            endpoint: backend.origin
                        ),
                        identityPool: .init(
                            poolId: pool.configuration.identityPoolId!,
                            region: "us-east-1",
                            endpoint: backend.origin
                        ),
                        authenticationFlowType: .userPassword
                    )
                )
                try auth.configure(using: nil)
                let api = AWSAPIPlugin()
                api.useAuthPlugin(auth)
                try api.configure(
                    AWSAPIPluginConfiguration(endpoints: [
                        .init(
                            name: "stratus",
                            endpointType: .graphQL,
                            endpoint: backend.endpoint,
                            region: "us-east-1",
                            authorizationType: .amazonCognitoUserPools,
                            additionalAuthorizationTypes: [.awsIAM]
                        ),
                        .init(
                            name: "items",
                            endpointType: .rest,
                            endpoint: backend.restEndpoint(of: "items"),
                            region: "us-east-1",
                            authorizationType: .awsIAM
                        ),
                    ])
                )
                return (auth, api)
            }
            func query(_ document: String, _ mode: AWSAuthorizationType? = nil) -> GraphQLRequest<JSONValue> {
                GraphQLRequest(apiName: "stratus", document: document, responseType: JSONValue.self, authMode: mode)
            }

            // A guest: the identity pool's unauthenticated role.
            let (guestAuth, guestAPI) = try client()
            _ = guestAuth
            let guestRead = try await guestAPI.query(request: query("{ listSecrets { items { id } } }", .awsIAM))
            guard case .failure(let refusal) = guestRead else {
                Issue.record("a guest read a private model: \(guestRead)")
                throw CancellationError()
            }
            #expect("\(refusal)".contains("Not Authorized to access listSecrets on type Query"), "\(refusal)")
            let guestREST = try await guestAPI.send(.get, request: RESTRequest(apiName: "items", path: "/items"))
            #expect(String(decoding: guestREST.body, as: UTF8.self) == "unauthenticated")

            var owners: [String: String] = [:]
            for name in ["ann", "ben"] {
                let (auth, api) = try client()
                let username = TestCognito.newUsername(name)
                _ = try await auth.signUp(username: username, password: "Secret-pass1!", options: nil)
                let code = try #require(try await pool.pendingCode(for: username))
                _ = try await auth.confirmSignUp(for: username, confirmationCode: code)
                _ = try await auth.signIn(username: username, password: "Secret-pass1!", options: nil)
                for title in ["\(name) 1", "\(name) 2"] {
                    let created = try await api.mutate(
                        request: query("mutation { createPost(input: {title: \"\(title)\"}) { owner } }")
                    ).get()
                    owners[name] = created.value(at: "createPost.owner")?.stringValue
                }
                let listed = try await api.query(request: query("{ listPosts { items { title } } }")).get()
                let titles = listed.value(at: "listPosts.items")?.arrayValue?.compactMap { $0["title"]?.stringValue }
                #expect(Set(titles ?? []) == ["\(name) 1", "\(name) 2"])

                // The signed-in user's credentials: the authenticated role.
                let secrets = try await api.query(request: query("{ listSecrets { items { id } } }", .awsIAM)).get()
                #expect(secrets.value(at: "listSecrets.items") == [])
                let rest = try await api.send(.get, request: RESTRequest(apiName: "items", path: "/items"))
                #expect(String(decoding: rest.body, as: UTF8.self) == "authenticated")
            }
            #expect(owners["ann"] != owners["ben"])
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }
}
