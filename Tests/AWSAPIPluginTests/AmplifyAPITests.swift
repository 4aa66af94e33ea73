import AWSAPIPlugin
import AWSDataStorePlugin
import Amplify
import BlogModels
import Foundation
import Testing

/// Tests of `Amplify.API` and `Amplify.configure()`, which share Amplify's global state: they and
/// their nested suites run one at a time.
@Suite(.serialized) struct AmplifyAPITests {
    /// Resets Amplify, adds `plugin`, configures with `configuration`, runs `body`, and resets again.
    static func withAmplify(
        _ plugin: AWSAPIPlugin,
        configuration: AmplifyConfiguration?,
        _ body: () async throws -> Void
    ) async throws {
        await Amplify.reset()
        do {
            try Amplify.add(plugin: plugin)
            try Amplify.configure(configuration ?? AmplifyConfiguration(json: [:]))
            try await body()
        } catch {
            await Amplify.reset()
            throw error
        }
        await Amplify.reset()
    }

    static let blogSection: JSONValue = [
        "api": [
            "plugins": [
                "awsAPIPlugin": [
                    "blog": [
                        "endpointType": "GraphQL",
                        "endpoint": "http://127.0.0.1:20002/graphql",
                        "region": "us-east-1",
                        "authorizationType": "API_KEY",
                        "apiKey": "da2-local",
                    ]
                ]
            ]
        ]
    ]

    @Test func beforeAPluginIsAddedEveryCallSaysHowToAddOne() async {
        await Amplify.reset()
        #expect(
            await thrownMessage { _ = try await Amplify.API.get(request: RESTRequest()) }
                == "API is not configured. Call Amplify.add(plugin: AWSAPIPlugin()) and then Amplify.configure()."
        )
        #expect(
            await thrownMessage {
                _ = try await Amplify.API.query(
                    request: GraphQLRequest(document: "{ a }", responseType: JSONValue.self)
                )
            } == "API is not configured. Call Amplify.add(plugin: AWSAPIPlugin()) and then Amplify.configure()."
        )
    }

    /// A DataStore plugin made on its own, and not added to Amplify, stays local even while
    /// Amplify holds an API plugin: it must not send its outbox to someone else's backend.
    @Test func aDataStorePluginNotAddedDoesNotSyncThroughAmplifysAPIPlugin() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let transport = InMemoryTransport(body: #"{"data":{"a":1}}"#)
        try await Self.withAmplify(
            AWSAPIPlugin(transport: transport),
            configuration: AmplifyConfiguration(json: Self.blogSection)
        ) {
            let dataStore = AWSDataStorePlugin(
                modelRegistration: AmplifyModels(),
                configuration: DataStoreConfiguration(databaseURL: directory.appendingPathComponent("local.sqlite"))
            )
            try await dataStore.save(Blog(id: "b1", name: "Local"))
            #expect(!dataStore.isSyncing)
            #expect(try await dataStore.pendingMutations().map(\.modelId) == ["b1"])
            #expect(transport.requests.isEmpty)
            await dataStore.reset()
        }
    }

    @Test func configureReadsTheAPISection() async throws {
        let transport = InMemoryTransport(body: #"{"data":{"a":1}}"#)
        let plugin = AWSAPIPlugin(transport: transport)
        try await Self.withAmplify(plugin, configuration: AmplifyConfiguration(json: Self.blogSection)) {
            let response = try await Amplify.API.query(
                request: GraphQLRequest(document: "{ a }", responseType: JSONValue.self)
            )
            #expect(try response.get() == ["a": 1])
            #expect(transport.requests.first?.url == "http://127.0.0.1:20002/graphql")
            #expect(transport.requests.first?.headers["x-api-key"] == "da2-local")
        }
    }

    @Test func configureReadsAmplifyOutputsFromAFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("amplify_outputs.json")
        try Data(
            #"{"version":"1.3","data":{"url":"http://127.0.0.1:20002/graphql","aws_region":"us-east-1","default_authorization_type":"AWS_IAM","authorization_types":[]}}"#
                .utf8
        ).write(to: file)
        let transport = InMemoryTransport(body: #"{"data":{"a":1}}"#)
        let plugin = AWSAPIPlugin(credentialsProvider: testCredentials, transport: transport)
        await Amplify.reset()
        try Amplify.add(plugin: plugin)
        try Amplify.configure(with: file)
        _ = try await Amplify.API.query(request: GraphQLRequest(document: "{ a }", responseType: JSONValue.self))
        await Amplify.reset()
        #expect(
            transport.requests.first?.headers["authorization"]?.hasPrefix(
                "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/"
            ) == true
        )
        #expect(transport.requests.first?.headers["authorization"]?.contains("/us-east-1/appsync/aws4_request") == true)
    }

    @Test func misconfigurationFailsAtConfigure() async throws {
        await Amplify.reset()
        try Amplify.add(plugin: AWSAPIPlugin(transport: InMemoryTransport(body: "{}")))
        let json: JSONValue = [
            "api": [
                "plugins": [
                    "awsAPIPlugin": [
                        "blog": [
                            "endpointType": "GraphQL", "endpoint": "http://127.0.0.1:20002/graphql",
                            "authorizationType": "API_KEY",
                        ]
                    ]
                ]
            ]
        ]
        #expect(
            throws: ConfigurationError(
                #"api.plugins.awsAPIPlugin.blog.apiKey is missing, and authorizationType API_KEY sends it in x-api-key. Set it to the API key, such as "da2-abcdefghijklmnopqrstuvwxyz"."#
            )
        ) {
            try Amplify.configure(AmplifyConfiguration(json: json))
        }
        await Amplify.reset()
    }

    @Test func completionForms() async throws {
        let transport = InMemoryTransport(body: #"{"data":{"a":1}}"#)
        try await Self.withAmplify(
            AWSAPIPlugin(transport: transport),
            configuration: AmplifyConfiguration(json: Self.blogSection)
        ) {
            let response = await withCheckedContinuation { continuation in
                Amplify.API.query(request: GraphQLRequest(document: "{ a }", responseType: JSONValue.self)) {
                    continuation.resume(returning: $0)
                }
            }
            let value = try response.get().get()
            #expect(value == ["a": 1])
            let failure = await withCheckedContinuation { continuation in
                Amplify.API.send(.get, request: RESTRequest()) { continuation.resume(returning: $0) }
            }
            guard case .failure(.invalidConfiguration(let message, _)) = failure else {
                Issue.record("expected invalidConfiguration, got \(failure)")
                return
            }
            #expect(message == "There is no REST API configured.")
        }
    }
}
