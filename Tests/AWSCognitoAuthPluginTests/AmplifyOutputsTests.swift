import AWSAPIPlugin
import AWSCognitoAuthPlugin
import Amplify
import Foundation
import StratusCognito
import StratusServer
import StratusTesting
import Testing

/// The API and Auth plugins configured from the `amplify_outputs.json` the local backend
/// writes, and nothing else.
@Suite struct AmplifyOutputsTests {
    @Test func theAPIAndAuthPluginsWorkFromAmplifyOutputsAlone() async throws {
        let backend = try await LocalBackend.start(
            schema: "type Todo @model @auth(rules: [{ allow: owner }]) { id: ID! name: String! }",
            defaultMode: .amazonCognitoUserPools,
            additionalModes: [.apiKey],
            cognito: CognitoConfiguration(users: [.init(username: "ada", password: "Secret-pass1!")])
        )
        let directory = FileManager.default.temporaryDirectory.appending(path: "outputs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try backend.clientConfiguration.write(to: directory)
            let outputs = try AmplifyConfiguration(configurationFile: directory.appending(path: "amplify_outputs.json"))

            let auth = AWSCognitoAuthPlugin(sessionStore: InMemoryAuthSessionStore(), hub: HubCategory())
            try auth.configure(with: outputs)
            #expect(auth.configuration?.userPool?.endpoint == backend.origin)
            #expect(auth.configuration?.identityPool?.endpoint == backend.origin)
            let api = AWSAPIPlugin()
            api.useAuthPlugin(auth)
            try api.configure(with: outputs)

            let signedIn = try await auth.signIn(username: "ada", password: "Secret-pass1!", options: nil)
            #expect(signedIn.isSignedIn)
            let created = try await api.mutate(
                request: GraphQLRequest(
                    document: #"mutation { createTodo(input: {name: "Milk"}) { name owner } }"#,
                    responseType: JSONValue.self
                )
            ).get()
            #expect(created.value(at: "createTodo.name") == "Milk")
            let owner = try #require(created.value(at: "createTodo.owner")?.stringValue)
            #expect(owner.hasSuffix("::ada"), "\(owner)")
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }
}
