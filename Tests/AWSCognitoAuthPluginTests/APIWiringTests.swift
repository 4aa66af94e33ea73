import AWSAPIPlugin
import AWSCognitoAuthPlugin
import AWSPluginsCore
import Amplify
import Foundation
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
        let moto = try await MotoAuth.start()
        let username = MotoAuth.newUsername("appsync")
        try await moto.createUser(username)
        let backend = try await LocalBackend.start(
            schema: Self.schema,
            defaultMode: .userPools,
            userPool: moto.pool.authorization()
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
        let moto = try await MotoAuth.start()
        let username = MotoAuth.newUsername("rest")
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
                    == ["cognito-idp.us-east-1.amazonaws.com/\(moto.pool.poolId)": .string(idToken)]
            )
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }
}
