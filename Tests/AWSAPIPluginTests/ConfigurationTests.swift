import AWSAPIPlugin
import Amplify
import Foundation
import Testing

/// `api.plugins.awsAPIPlugin` of amplifyconfiguration.json: what is read, and every error's exact message.
@Suite struct ConfigurationTests {
    static let modes = "Set it to one of NONE, API_KEY, AWS_IAM, AMAZON_COGNITO_USER_POOLS, OPENID_CONNECT, AWS_LAMBDA."
    static let graphQLURLFix =
        #"Set it to the GraphQL endpoint, such as "https://<id>.appsync-api.<region>.amazonaws.com/graphql"."#

    /// The message `configure` fails with for the section `section`, with the default factory.
    func configureError(
        _ section: JSONValue,
        factory: APIAuthProviderFactory = APIAuthProviderFactory()
    ) -> String? {
        let plugin = AWSAPIPlugin(apiAuthProviderFactory: factory, transport: InMemoryTransport(body: "{}"))
        do {
            try plugin.configure(using: section)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// A GraphQL API named `blog` with `changes` applied.
    func blog(_ changes: [String: JSONValue?] = [:]) -> JSONValue {
        var api: [String: JSONValue] = [
            "endpointType": "GraphQL",
            "endpoint": "https://abc.appsync-api.us-east-1.amazonaws.com/graphql",
            "region": "us-east-1",
            "authorizationType": "API_KEY",
            "apiKey": "da2-abc",
        ]
        for (key, value) in changes { api[key] = value }
        return ["blog": .object(api)]
    }

    @Test func readsEveryAPI() throws {
        let configuration = try AWSAPIPluginConfiguration(amplifyConfigurationSection: [
            "blog": blog()["blog"]!,
            "items": [
                "endpointType": "REST",
                "endpoint": "https://xyz.execute-api.us-west-2.amazonaws.com/dev",
                "region": "us-west-2",
            ],
        ])
        #expect(
            configuration.endpoints == [
                "blog": .init(
                    name: "blog",
                    endpointType: .graphQL,
                    endpoint: URL(string: "https://abc.appsync-api.us-east-1.amazonaws.com/graphql")!,
                    region: "us-east-1",
                    authorizationType: .apiKey,
                    apiKey: "da2-abc"
                ),
                "items": .init(
                    name: "items",
                    endpointType: .rest,
                    endpoint: URL(string: "https://xyz.execute-api.us-west-2.amazonaws.com/dev")!,
                    region: "us-west-2",
                    authorizationType: .awsIAM
                ),
            ]
        )
        #expect(configuration.defaultGraphQLAPIName == nil)
    }

    @Test func aLocalHTTPEndpointIsAccepted() throws {
        let configuration = try AWSAPIPluginConfiguration(
            amplifyConfigurationSection: blog(["endpoint": "http://127.0.0.1:20002/graphql"])
        )
        #expect(configuration.endpoints["blog"]?.endpoint.absoluteString == "http://127.0.0.1:20002/graphql")
    }

    @Test func missingEndpoint() {
        #expect(
            configureError(blog(["endpoint": nil]))
                == "api.plugins.awsAPIPlugin.blog.endpoint is missing. \(Self.graphQLURLFix)"
        )
    }

    @Test(arguments: ["not a url", "appsync.example.com/graphql", "ftp://example.com/graphql", "https://"])
    func endpointThatIsNotAnHTTPURL(_ text: String) {
        #expect(
            configureError(blog(["endpoint": .string(text)]))
                == "api.plugins.awsAPIPlugin.blog.endpoint is '\(text)', which is not an http or https URL. \(Self.graphQLURLFix)"
        )
    }

    @Test func restEndpointFixNamesAStage() {
        let section: JSONValue = ["items": ["endpointType": "REST", "endpoint": "", "region": "us-east-1"]]
        #expect(
            configureError(section)
                == #"api.plugins.awsAPIPlugin.items.endpoint is "", not a non-empty string. Set it to the REST API's base URL, such as "https://<id>.execute-api.<region>.amazonaws.com/<stage>"."#
        )
    }

    @Test func missingEndpointType() {
        #expect(
            configureError(blog(["endpointType": nil]))
                == #"api.plugins.awsAPIPlugin.blog.endpointType is missing. Set it to "GraphQL" or "REST"."#
        )
    }

    @Test func unknownEndpointTypeSuggestsTheSpelling() {
        #expect(
            configureError(blog(["endpointType": "graphql"]))
                == #"api.plugins.awsAPIPlugin.blog.endpointType is 'graphql', which is not an endpoint type. Did you mean 'GraphQL'? Set it to "GraphQL" or "REST"."#
        )
        #expect(
            configureError(blog(["endpointType": "SOAP"]))
                == #"api.plugins.awsAPIPlugin.blog.endpointType is 'SOAP', which is not an endpoint type. Set it to "GraphQL" or "REST"."#
        )
    }

    @Test func unknownAuthorizationTypeSuggestsTheClosest() {
        #expect(
            configureError(blog(["authorizationType": "APIKEY"]))
                == "api.plugins.awsAPIPlugin.blog.authorizationType is 'APIKEY', which is not an authorization type. Did you mean 'API_KEY'? \(Self.modes)"
        )
        #expect(
            configureError(blog(["authorizationType": "IAM"]))
                == "api.plugins.awsAPIPlugin.blog.authorizationType is 'IAM', which is not an authorization type. \(Self.modes)"
        )
        #expect(
            configureError(blog(["authorizationType": "OPENID_CONECT"]))
                == "api.plugins.awsAPIPlugin.blog.authorizationType is 'OPENID_CONECT', which is not an authorization type. Did you mean 'OPENID_CONNECT'? \(Self.modes)"
        )
    }

    @Test func graphQLNeedsAnAuthorizationType() {
        #expect(
            configureError(blog(["authorizationType": nil]))
                == "api.plugins.awsAPIPlugin.blog.authorizationType is missing. \(Self.modes)"
        )
    }

    @Test func apiKeyModeWithoutAKey() {
        #expect(
            configureError(blog(["apiKey": nil]))
                == #"api.plugins.awsAPIPlugin.blog.apiKey is missing, and authorizationType API_KEY sends it in x-api-key. Set it to the API key, such as "da2-abcdefghijklmnopqrstuvwxyz"."#
        )
    }

    @Test func apiKeyOfTheWrongType() {
        #expect(
            configureError(blog(["apiKey": 42]))
                == #"api.plugins.awsAPIPlugin.blog.apiKey is 42, not a non-empty string. Set it to the API key, such as "da2-abcdefghijklmnopqrstuvwxyz"."#
        )
    }

    @Test func iamWithoutARegion() {
        #expect(
            configureError(blog(["authorizationType": "AWS_IAM", "region": nil]))
                == #"api.plugins.awsAPIPlugin.blog.region is missing, and authorizationType AWS_IAM signs requests for a region. Set it to the API's AWS region, such as "us-east-1"."#
        )
    }

    @Test(arguments: [
        ("OPENID_CONNECT", "oidcAuthProvider"),
        ("AWS_LAMBDA", "functionAuthProvider"),
        ("AMAZON_COGNITO_USER_POOLS", "userPoolsAuthProvider"),
    ])
    func tokenModeWithoutAProvider(_ mode: String, _ provider: String) {
        #expect(
            configureError(blog(["authorizationType": .string(mode)]))
                == "api.plugins.awsAPIPlugin.blog.authorizationType is \(mode), but the APIAuthProviderFactory returns no \(provider)(). Create the plugin with AWSAPIPlugin(apiAuthProviderFactory:) and a factory that overrides \(provider)()."
        )
        #expect(configureError(blog(["authorizationType": .string(mode)]), factory: TestAuthProviderFactory()) == nil)
    }

    @Test func sectionThatIsNotAnObject() {
        #expect(
            configureError(["blog"])
                == #"api.plugins.awsAPIPlugin is ["blog"], not an object. Give it one object per API, keyed by name, such as {"blog": {"endpointType": "GraphQL", "endpoint": "https://<id>.appsync-api.<region>.amazonaws.com/graphql", "region": "us-east-1", "authorizationType": "API_KEY", "apiKey": "<key>"}}."#
        )
    }

    @Test func sectionWithoutAPIs() {
        #expect(
            configureError([:])
                == #"api.plugins.awsAPIPlugin has no APIs. Add one object per API, keyed by name, such as {"blog": {"endpointType": "GraphQL", "endpoint": "https://<id>.appsync-api.<region>.amazonaws.com/graphql", "region": "us-east-1", "authorizationType": "API_KEY", "apiKey": "<key>"}}."#
        )
    }

    @Test func apiThatIsNotAnObject() {
        #expect(
            configureError(["blog": "https://abc.appsync-api.us-east-1.amazonaws.com/graphql"])
                == #"api.plugins.awsAPIPlugin.blog is "https://abc.appsync-api.us-east-1.amazonaws.com/graphql", not an object. Give it endpointType, endpoint, region and authorizationType."#
        )
    }

    @Test func noConfigurationAtAll() {
        let plugin = AWSAPIPlugin(transport: InMemoryTransport(body: "{}"))
        #expect(
            throws: ConfigurationError(
                "AWSAPIPlugin has no configuration. Add api.plugins.awsAPIPlugin to amplifyconfiguration.json, a data section to amplify_outputs.json, or create the plugin with AWSAPIPlugin(configuration:)."
            )
        ) {
            try plugin.configure(with: AmplifyConfiguration(json: ["dataStore": ["plugins": [:]]]))
        }
        #expect(throws: ConfigurationError.self) { try plugin.configure(using: nil) }
    }

    @Test func aConfigurationInCodeAndInTheFileIsAmbiguous() throws {
        let plugin = AWSAPIPlugin(
            transport: InMemoryTransport(body: "{}"),
            configuration: AWSAPIPluginConfiguration(endpoints: [.graphQL()])
        )
        #expect(
            throws: ConfigurationError(
                "AWSAPIPlugin was created with a configuration, and the configuration file has one too (api.plugins.awsAPIPlugin). Remove one of them."
            )
        ) {
            try plugin.configure(using: blog())
        }
        try plugin.configure(with: AmplifyConfiguration(json: [:]))
        #expect(plugin.configuration?.endpoints["blog"] == .graphQL())
    }

    @Test func interceptorForAnUnknownAPI() throws {
        let plugin = AWSAPIPlugin(transport: InMemoryTransport(body: "{}"))
        try plugin.add(interceptor: HeaderInterceptor(name: "x-stage", value: "1"), for: "shop")
        #expect(
            throws: ConfigurationError(
                "An interceptor was added for the API 'shop', which is not configured. Add it for one of: blog."
            )
        ) {
            try plugin.configure(using: blog())
        }
        let configured = try makePlugin([.graphQL(), .rest()], transport: InMemoryTransport(body: "{}"))
        #expect(
            throws: ConfigurationError(
                "add(interceptor:for:) names the API 'shop', which is not configured. Use one of: blog, items."
            )
        ) {
            try configured.add(interceptor: HeaderInterceptor(name: "x-stage", value: "1"), for: "shop")
        }
    }

    @Test func aDefaultGraphQLAPIThatIsNotOne() {
        let plugin = AWSAPIPlugin(transport: InMemoryTransport(body: "{}"))
        #expect(
            throws: ConfigurationError(
                "defaultGraphQLAPIName is 'items', which is not a configured GraphQL API. Set it to one of: blog."
            )
        ) {
            try plugin.configure(
                AWSAPIPluginConfiguration(endpoints: [.graphQL(), .rest()], defaultGraphQLAPIName: "items")
            )
        }
    }

    @Test func codeConfigurationErrorsNameTheProperty() {
        let plugin = AWSAPIPlugin(transport: InMemoryTransport(body: "{}"))
        #expect(
            throws: ConfigurationError(
                #"AWSAPIPluginConfiguration.Endpoint 'blog' apiKey is missing, and authorizationType API_KEY sends it in x-api-key. Set it to the API key, such as "da2-abcdefghijklmnopqrstuvwxyz"."#
            )
        ) {
            try plugin.configure(AWSAPIPluginConfiguration(endpoints: [.graphQL(apiKey: nil)]))
        }
    }
}

/// Which API a request goes to, and the errors at call time.
@Suite struct EndpointSelectionTests {
    let transport = InMemoryTransport(body: #"{"data":{"ping":"pong"}}"#)

    func ping(apiName: String? = nil) -> GraphQLRequest<String> {
        GraphQLRequest(apiName: apiName, document: "query { ping }", responseType: String.self, decodePath: "ping")
    }

    @Test func theOnlyGraphQLAPIIsTheDefault() async throws {
        let plugin = try makePlugin([.graphQL(), .rest()], transport: transport)
        #expect(try await plugin.query(request: ping()).get() == #""pong""#)
        #expect(transport.requests.map(\.url) == [graphQLURL.absoluteString])
    }

    @Test func severalGraphQLAPIsNeedAName() async throws {
        let shop = URL(string: "https://shop.appsync-api.us-east-1.amazonaws.com/graphql")!
        let plugin = try makePlugin([.graphQL(), .graphQL(name: "shop", url: shop)], transport: transport)
        let message = await thrownMessage { _ = try await plugin.query(request: ping()) }
        #expect(
            message
                == "There are several GraphQL APIs (blog, shop) and the request names none. Set apiName to one of them."
        )
        _ = try await plugin.query(request: ping(apiName: "shop"))
        #expect(transport.requests.map(\.url) == [shop.absoluteString])
    }

    @Test func unknownAPIName() async throws {
        let plugin = try makePlugin([.graphQL(), .rest()], transport: transport)
        #expect(
            await thrownMessage { _ = try await plugin.query(request: ping(apiName: "shop")) }
                == "There is no API named 'shop'. Set apiName to one of the configured APIs: blog, items."
        )
        #expect(
            await thrownMessage { _ = try await plugin.query(request: ping(apiName: "items")) }
                == "The API 'items' is a REST API, not a GraphQL API. Set apiName to one of the GraphQL APIs: blog."
        )
        #expect(transport.requests.isEmpty)
    }

    @Test func noRESTAPI() async throws {
        let plugin = try makePlugin([.graphQL()], transport: transport)
        let message = await thrownMessage { _ = try await plugin.get(request: RESTRequest(path: "/items")) }
        #expect(
            message
                == #"There is no REST API configured. Add one with "endpointType": "REST" to api.plugins.awsAPIPlugin."#
        )
        do {
            _ = try await plugin.get(request: RESTRequest(path: "/items"))
            Issue.record("expected an error")
        } catch let error as APIError {
            guard case .invalidConfiguration = error else {
                Issue.record("expected invalidConfiguration, got \(error)")
                return
            }
        }
    }

    @Test func anUnconfiguredPluginSaysSo() async {
        let plugin = AWSAPIPlugin(transport: transport)
        #expect(
            await thrownMessage { _ = try await plugin.query(request: ping()) }
                == "AWSAPIPlugin is not configured. Call Amplify.configure() after adding the plugin."
        )
    }
}
