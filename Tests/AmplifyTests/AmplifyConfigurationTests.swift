import Amplify
import Foundation
import Testing

@Suite struct AmplifyConfigurationTests {
    @Test func dataStoreBeforeAPluginSaysHowToAddOne() async {
        await #expect(throws: DataStoreError.self) {
            _ = try await Amplify.DataStore.query(ConfigurationProbe.self, byId: "1")
        }
        do {
            _ = try await Amplify.DataStore.query(ConfigurationProbe.self, byId: "1")
        } catch {
            #expect(
                "\(error)"
                    == "DataStore is not configured. Call Amplify.add(plugin: AWSDataStorePlugin(modelRegistration: AmplifyModels())) and then Amplify.configure()."
            )
        }
    }

    @Test func missingFileNamesThePath() {
        let url = URL(fileURLWithPath: "/nonexistent/amplifyconfiguration.json")
        #expect(
            throws: ConfigurationError(
                "Cannot read the configuration file at '/nonexistent/amplifyconfiguration.json'. Run `stratus serve` (which writes it) or pass the path of your amplifyconfiguration.json."
            )
        ) {
            try AmplifyConfiguration(configurationFile: url)
        }
    }

    @Test func fileThatIsNotJSONIsRefusedWithWhereItStops() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stratus-config-\(UUID().uuidString).json"
        )
        try Data(#"{"api": {"plugins": }}"#.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(
            throws: ConfigurationError(
                "The configuration file at '\(url.path)' is not JSON: Invalid JSON at offset 20: unexpected character. "
                    + "Fix its syntax or write it again with `stratus serve`."
            )
        ) {
            try AmplifyConfiguration(configurationFile: url)
        }
    }

    @Test func fileThatIsNotAnObjectIsRefused() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stratus-config-\(UUID().uuidString).json"
        )
        try Data("[1, 2]".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(
            throws: ConfigurationError(
                "The configuration file at '\(url.path)' is not a JSON object. Fix its syntax or write it again with `stratus serve`."
            )
        ) {
            try AmplifyConfiguration(configurationFile: url)
        }
    }

    @Test func pluginSectionsAreFoundByCategoryAndKey() {
        let configuration = AmplifyConfiguration(json: [
            "api": ["plugins": ["awsAPIPlugin": ["blog": ["endpointType": "GraphQL"]]]],
            "dataStore": ["plugins": ["awsDataStorePlugin": ["syncMaxRecords": 100]]],
        ])
        #expect(
            configuration.pluginConfiguration(category: "dataStore", key: "awsDataStorePlugin") == [
                "syncMaxRecords": 100
            ]
        )
        #expect(
            configuration.pluginConfiguration(category: "api", key: "awsAPIPlugin")?.value(at: "blog.endpointType")
                == "GraphQL"
        )
        #expect(configuration.pluginConfiguration(category: "auth", key: "x") == nil)
    }
}

struct ConfigurationProbe: Model {
    let id: String
    static let schema = defineSchema { model in model.fields(.id()) }
}
