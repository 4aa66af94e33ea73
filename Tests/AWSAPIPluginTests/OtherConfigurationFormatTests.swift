import AWSAPIPlugin
import Amplify
import Foundation
import Testing

/// Gen2 `amplify_outputs.json`.
@Suite struct AmplifyOutputsConfigurationTests {
    static let modes = "Set it to one of NONE, API_KEY, AWS_IAM, AMAZON_COGNITO_USER_POOLS, OPENID_CONNECT, AWS_LAMBDA."

    func outputs(_ changes: [String: JSONValue?] = [:]) -> JSONValue {
        var data: [String: JSONValue] = [
            "url": "https://abc.appsync-api.eu-west-1.amazonaws.com/graphql",
            "aws_region": "eu-west-1",
            "default_authorization_type": "API_KEY",
            "api_key": "da2-gen2",
            "authorization_types": ["AMAZON_COGNITO_USER_POOLS", "AWS_IAM"],
            "model_introspection": ["version": 1],
        ]
        for (key, value) in changes { data[key] = value }
        return ["version": "1.3", "data": .object(data)]
    }

    func configureError(_ json: JSONValue) -> String? {
        let plugin = AWSAPIPlugin(transport: InMemoryTransport(body: "{}"))
        do {
            try plugin.configure(with: AmplifyConfiguration(json: json))
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func readsTheDataSection() throws {
        let plugin = AWSAPIPlugin(transport: InMemoryTransport(body: "{}"))
        try plugin.configure(with: AmplifyConfiguration(json: outputs()))
        #expect(
            plugin.configuration?.endpoints == [
                "data": .init(
                    name: "data",
                    endpointType: .graphQL,
                    endpoint: URL(string: "https://abc.appsync-api.eu-west-1.amazonaws.com/graphql")!,
                    region: "eu-west-1",
                    authorizationType: .apiKey,
                    apiKey: "da2-gen2",
                    additionalAuthorizationTypes: [.amazonCognitoUserPools, .awsIAM]
                )
            ]
        )
    }

    @Test func readsCustomRESTAPIs() throws {
        var json = outputs()
        json = .object(
            json.objectValue!.merging([
                "custom": [
                    "API": [
                        "shop": [
                            "endpoint": "https://xyz.execute-api.eu-west-1.amazonaws.com/prod/",
                            "region": "eu-west-1",
                            "apiName": "shop",
                        ]
                    ]
                ]
            ]) { $1 }
        )
        let configuration = try AWSAPIPluginConfiguration(amplifyOutputs: json)
        #expect(configuration.endpoints["shop"]?.endpointType == .rest)
        #expect(configuration.endpoints["shop"]?.authorizationType == .awsIAM)
    }

    @Test func missingData() {
        #expect(
            configureError(["version": "1.3", "auth": ["aws_region": "eu-west-1"]])
                == "data is missing from amplify_outputs.json. Add a data resource to the backend (defineData) and generate amplify_outputs.json again with `npx ampx generate outputs`."
        )
    }

    @Test func aConfigurationInCodeServesAppsWhoseOutputsHaveNoData() throws {
        let plugin = AWSAPIPlugin(
            transport: InMemoryTransport(body: "{}"),
            configuration: AWSAPIPluginConfiguration(endpoints: [.graphQL()])
        )
        try plugin.configure(with: AmplifyConfiguration(json: ["version": "1.3", "auth": ["aws_region": "eu-west-1"]]))
        #expect(plugin.configuration?.endpoints.keys.sorted() == ["blog"])
        #expect(
            throws: ConfigurationError(
                "AWSAPIPlugin was created with a configuration, and the configuration file has one too (amplify_outputs.json). Remove one of them."
            )
        ) {
            try plugin.configure(with: AmplifyConfiguration(json: outputs()))
        }
    }

    @Test func missingURL() {
        #expect(
            configureError(outputs(["url": nil]))
                == #"data.url is missing. Set it to the GraphQL endpoint, such as "https://<id>.appsync-api.<region>.amazonaws.com/graphql"."#
        )
    }

    @Test func missingRegion() {
        #expect(
            configureError(outputs(["aws_region": nil]))
                == #"data.aws_region is missing. Set it to the API's AWS region, such as "us-east-1"."#
        )
    }

    @Test func unknownDefaultAuthorizationType() {
        #expect(
            configureError(outputs(["default_authorization_type": "USER_POOLS"]))
                == "data.default_authorization_type is 'USER_POOLS', which is not an authorization type. \(Self.modes)"
        )
    }

    @Test func unknownAdditionalAuthorizationType() {
        #expect(
            configureError(outputs(["authorization_types": ["AWS_IAM", "AWS_IAMM"]]))
                == "data.authorization_types[1] is 'AWS_IAMM', which is not an authorization type. Did you mean 'AWS_IAM'? \(Self.modes)"
        )
        #expect(
            configureError(outputs(["authorization_types": "AWS_IAM"]))
                == #"data.authorization_types is "AWS_IAM", not an array. List the other modes, such as ["AMAZON_COGNITO_USER_POOLS", "AWS_IAM"]."#
        )
    }

    @Test func apiKeyModeWithoutAKey() {
        #expect(
            configureError(outputs(["api_key": nil]))
                == #"data.api_key is missing, and default_authorization_type API_KEY sends it in x-api-key. Set it to the API key, such as "da2-abcdefghijklmnopqrstuvwxyz"."#
        )
        #expect(
            configureError(
                outputs(["api_key": nil, "default_authorization_type": "AWS_IAM", "authorization_types": ["API_KEY"]])
            )
                == #"data.api_key is missing, and authorization_types includes API_KEY, which sends it in x-api-key. Set it to the API key, such as "da2-abcdefghijklmnopqrstuvwxyz"."#
        )
    }
}

/// The multi-client `AppSync` section of `awsconfiguration.json`.
@Suite struct AWSConfigurationTests {
    static let json: JSONValue = [
        "CognitoUserPool": ["Default": ["PoolId": "us-east-1_x", "AppClientId": "c", "Region": "us-east-1"]],
        "AppSync": [
            "Default": [
                "ApiUrl": "https://abc.appsync-api.us-east-1.amazonaws.com/graphql",
                "Region": "us-east-1",
                "AuthMode": "API_KEY",
                "ApiKey": "da2-default",
                "ClientDatabasePrefix": "blog_API_KEY",
            ],
            "blog_AWS_IAM": [
                "ApiUrl": "https://abc.appsync-api.us-east-1.amazonaws.com/graphql",
                "Region": "us-east-1",
                "AuthMode": "AWS_IAM",
                "ClientDatabasePrefix": "blog_AWS_IAM",
            ],
        ],
    ]

    func client(_ changes: [String: JSONValue?]) -> JSONValue {
        var client = Self.json.value(at: "AppSync.Default")!.objectValue!
        for (key, value) in changes { client[key] = value }
        return ["AppSync": ["Default": .object(client)]]
    }

    func loadError(_ json: JSONValue) -> String? {
        do {
            _ = try AWSAPIPluginConfiguration(awsConfiguration: json)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func everyClientIsAnAPIAndDefaultIsTheDefault() async throws {
        let configuration = try AWSAPIPluginConfiguration(awsConfiguration: Self.json)
        #expect(configuration.endpoints.keys.sorted() == ["Default", "blog_AWS_IAM"])
        #expect(configuration.endpoints["Default"]?.clientDatabasePrefix == "blog_API_KEY")
        #expect(configuration.endpoints["blog_AWS_IAM"]?.authorizationType == .awsIAM)
        #expect(configuration.defaultGraphQLAPIName == "Default")

        let transport = InMemoryTransport(body: #"{"data":{"ping":"pong"}}"#)
        let plugin = AWSAPIPlugin(
            credentialsProvider: testCredentials,
            transport: transport,
            configuration: configuration
        )
        try plugin.configure(with: nil)
        let ping = GraphQLRequest<JSONValue>(document: "{ ping }", responseType: JSONValue.self)
        _ = try await plugin.query(request: ping)
        _ = try await plugin.query(
            request: GraphQLRequest<JSONValue>(
                apiName: "blog_AWS_IAM",
                document: "{ ping }",
                responseType: JSONValue.self
            )
        )
        #expect(transport.requests.map { $0.headers["x-api-key"] } == ["da2-default", nil])
        #expect(transport.requests.last?.headers["authorization"]?.hasPrefix("AWS4-HMAC-SHA256") == true)
    }

    @Test func loadsAFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "awsconfiguration-\(UUID().uuidString).json"
        )
        try JSONEncoder().encode(Self.json).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let configuration = try AWSAPIPluginConfiguration(awsConfigurationFile: url)
        #expect(configuration.endpoints.count == 2)
        #expect(
            throws: ConfigurationError(
                "Cannot read the configuration file at '/nonexistent/awsconfiguration.json'. Pass the path of your awsconfiguration.json."
            )
        ) {
            try AWSAPIPluginConfiguration(
                awsConfigurationFile: URL(fileURLWithPath: "/nonexistent/awsconfiguration.json")
            )
        }
    }

    @Test func aFileThatIsNotJSONIsRefusedWithWhereItStops() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "awsconfiguration-\(UUID().uuidString).json"
        )
        try Data(#"{"AppSync": }"#.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(
            throws: ConfigurationError(
                "The configuration file at '\(url.path)' is not JSON: Invalid JSON at offset 12: unexpected character. "
                    + "Fix its syntax."
            )
        ) {
            try AWSAPIPluginConfiguration(awsConfigurationFile: url)
        }
    }

    @Test func amplifyConfigureReadsAnAWSConfiguration() throws {
        let plugin = AWSAPIPlugin(transport: InMemoryTransport(body: "{}"))
        try plugin.configure(with: AmplifyConfiguration(json: Self.json))
        #expect(plugin.configuration?.defaultGraphQLAPIName == "Default")
    }

    @Test(arguments: ["blog-prod", "blog prod", "blög", ""])
    func clientDatabasePrefixMustBeAnIdentifier(_ prefix: String) {
        let expected =
            prefix.isEmpty
            ? #"AppSync.Default.ClientDatabasePrefix is "", not a non-empty string. Use letters, digits and underscores only, such as "blog_Default"."#
            : "AppSync.Default.ClientDatabasePrefix is '\(prefix)', which does not match ^[_a-zA-Z0-9]+$. Use letters, digits and underscores only."
        #expect(loadError(client(["ClientDatabasePrefix": .string(prefix)])) == expected)
    }

    @Test func missingAppSync() {
        #expect(
            loadError(["CognitoUserPool": [:]])
                == #"AppSync is missing from awsconfiguration.json. Add it, such as {"Default": {"ApiUrl": "https://<id>.appsync-api.<region>.amazonaws.com/graphql", "Region": "us-east-1", "AuthMode": "API_KEY", "ApiKey": "<key>"}}."#
        )
    }

    @Test func missingKeys() {
        #expect(
            loadError(client(["ApiUrl": nil]))
                == #"AppSync.Default.ApiUrl is missing. Set it to the GraphQL endpoint, such as "https://<id>.appsync-api.<region>.amazonaws.com/graphql"."#
        )
        #expect(
            loadError(client(["Region": nil]))
                == #"AppSync.Default.Region is missing. Set it to the API's AWS region, such as "us-east-1"."#
        )
        #expect(
            loadError(client(["AuthMode": "API-KEY"]))
                == "AppSync.Default.AuthMode is 'API-KEY', which is not an authorization type. Did you mean 'API_KEY'? Set it to one of NONE, API_KEY, AWS_IAM, AMAZON_COGNITO_USER_POOLS, OPENID_CONNECT, AWS_LAMBDA."
        )
    }

    @Test func apiKeyModeWithoutAKeyFailsAtConfigure() {
        let plugin = AWSAPIPlugin(transport: InMemoryTransport(body: "{}"))
        #expect(
            throws: ConfigurationError(
                #"AppSync.Default.ApiKey is missing, and AuthMode API_KEY sends it in x-api-key. Set it to the API key, such as "da2-abcdefghijklmnopqrstuvwxyz"."#
            )
        ) {
            try plugin.configure(with: AmplifyConfiguration(json: client(["ApiKey": nil])))
        }
    }
}
