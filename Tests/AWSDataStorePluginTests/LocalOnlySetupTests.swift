import Amplify
import AmplifyPlugins
import Foundation
import Testing

/// datastore.md's Setup adds only the DataStore plugin. With a GraphQL API in
/// `amplifyconfiguration.json`, DataStore stays local (it has no API plugin to sync through)
/// and says so once at configuration, with what to add.
///
/// The setup configures the process-wide facade, so it runs in a child process (see
/// ``ChildTest``) whose working directory holds the configuration file.
@Suite struct LocalOnlySetupTests {
    static let configuration = """
        {
          "api": {
            "plugins": {
              "awsAPIPlugin": {
                "amplifyDatasource": {
                  "endpointType": "GraphQL",
                  "endpoint": "http://127.0.0.1:9/graphql",
                  "region": "us-east-1",
                  "authorizationType": "API_KEY",
                  "apiKey": "da2-local"
                }
              }
            }
          }
        }
        """

    @Test(.enabled(if: ChildTest.isSupported && ChildTest.role == nil))
    func theSeedsSetupWithAnAPIConfiguredSaysOnceHowToSync() async throws {
        let directory = try TemporaryDirectory()
        try Data(Self.configuration.utf8).write(to: directory.file("amplifyconfiguration.json"))
        let (status, output) = try await ChildTest.run(
            filter: "LocalOnlySetupChild",
            role: "localOnly",
            environment: ["XDG_DATA_HOME": directory.url.path],
            directory: directory.url
        )
        #expect(status == .exited(0), "\(output)")
        let lines = output.split(separator: "\n").map(String.init)
        #expect(
            lines.filter { $0.hasPrefix("[DataStore]") } == [
                "[DataStore] warning: The configuration describes the GraphQL API 'amplifyDatasource', but no API "
                    + "plugin was added, so DataStore stays local and does not sync. To sync, add the API plugin "
                    + "before Amplify.configure(): try Amplify.add(plugin: AWSAPIPlugin(modelRegistration: "
                    + "AmplifyModels()))."
            ],
            "\(output)"
        )
        #expect(lines.contains("setup: Added post"), "\(output)")
    }
}

@Suite struct LocalOnlySetupChild {
    @Test(.enabled(if: ChildTest.role == "localOnly"))
    func run() async throws {
        // Setup, as datastore.md writes it.
        do {
            try Amplify.add(plugin: AWSDataStorePlugin(modelRegistration: AmplifyModels()))
            // add after all other plugins
            try Amplify.configure()
        } catch {
            print("An error occurred setting up Amplify: \(error)")
        }
        // Save Data, with `async` for the callback.
        do {
            try await Amplify.DataStore.save(Post(title: "My First Post", rating: 10, status: "active"))
            print("setup: Added post")
        } catch {
            print("Error adding post - \(error)")
        }
        await Amplify.reset()
    }
}
