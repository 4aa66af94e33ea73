import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import Foundation
import Testing

/// The exact headers each authorization mode sends, and per-request modes.
@Suite struct AuthorizationTests {
    let transport = InMemoryTransport(body: #"{"data":{"ping":"pong"}}"#)
    let ping = GraphQLRequest<JSONValue>(document: "query { ping }", responseType: JSONValue.self)

    /// The headers of the one request `plugin` sent for `ping` with `authMode`.
    func headers(_ plugin: AWSAPIPlugin, authMode: AWSAuthorizationType? = nil) async throws -> [String: String] {
        var request = ping
        request.authMode = authMode
        _ = try await plugin.query(request: request)
        return try #require(transport.requests.last).headers
    }

    @Test func apiKey() async throws {
        let plugin = try makePlugin([.graphQL(authorizationType: .apiKey)], transport: transport)
        #expect(try await headers(plugin) == ["content-type": "application/json", "x-api-key": "da2-test-key"])
        let sent = try #require(transport.requests.first)
        #expect(sent.method == "POST")
        #expect(sent.url == "https://abc.appsync-api.us-east-1.amazonaws.com/graphql")
        #expect(sent.bodyText == #"{"query":"query { ping }"}"#)
    }

    @Test(arguments: [
        (AWSAuthorizationType.amazonCognitoUserPools, "user-pools-token"),
        (.openIDConnect, "oidc-token"),
        (.function, "lambda-token"),
    ])
    func tokenModesSendTheRawToken(_ mode: AWSAuthorizationType, _ token: String) async throws {
        let plugin = try makePlugin([.graphQL(authorizationType: mode, apiKey: nil)], transport: transport)
        #expect(try await headers(plugin) == ["content-type": "application/json", "authorization": token])
    }

    @Test func none() async throws {
        let plugin = try makePlugin([.graphQL(authorizationType: .none, apiKey: nil)], transport: transport)
        #expect(try await headers(plugin) == ["content-type": "application/json"])
    }

    /// The signature matches botocore's `SigV4Auth` for the same request, date and credentials.
    @Test func iamSignsForAppSync() async throws {
        let plugin = try makePlugin([.graphQL(authorizationType: .awsIAM, apiKey: nil)], transport: transport)
        #expect(
            try await headers(plugin) == [
                "content-type": "application/json",
                "x-amz-date": "20231114T221320Z",
                "x-amz-security-token": "session-token",
                "authorization":
                    "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20231114/us-east-1/appsync/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-security-token, Signature=83dc3ce38f1f232864af68791a957fa457f99facc03784e09f00bd5608ff7ceb",
            ]
        )
    }

    /// A REST GET with a path and query to encode, signed for `execute-api` as botocore signs it.
    @Test func iamSignsForAPIGateway() async throws {
        let transport = InMemoryTransport(body: "[]")
        let plugin = try makePlugin([.rest()], transport: transport)
        _ = try await plugin.get(
            request: RESTRequest(
                path: "/items/a b",
                headers: ["accept": "application/json"],
                queryParameters: ["q": "café", "limit": "10"]
            )
        )
        let sent = try #require(transport.requests.first)
        #expect(sent.url == "https://xyz.execute-api.us-east-1.amazonaws.com/dev/items/a%20b?limit=10&q=caf%C3%A9")
        #expect(
            sent.headers == [
                "accept": "application/json",
                "x-amz-date": "20231114T221320Z",
                "x-amz-security-token": "session-token",
                "authorization":
                    "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20231114/us-east-1/execute-api/aws4_request, SignedHeaders=accept;host;x-amz-date;x-amz-security-token, Signature=58b4d03835d9a31a448c49d02594d862819c30be3f6a1e36355b8714ba7802ab",
            ]
        )
    }

    @Test func iamWithoutCredentialsSaysHowToGiveThem() async throws {
        let plugin = AWSAPIPlugin(
            credentialsProvider: EnvironmentCredentialsProvider(environment: [:]),
            transport: transport
        )
        try plugin.configure(AWSAPIPluginConfiguration(endpoints: [.graphQL(authorizationType: .awsIAM)]))
        #expect(
            await thrownMessage { _ = try await plugin.query(request: ping) }
                == "Cannot sign the request to 'blog' with AWS_IAM: The environment variable AWS_ACCESS_KEY_ID is not set. Export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary credentials), or use another credentials provider. Create the plugin with AWSAPIPlugin(credentialsProvider:), or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY."
        )
        #expect(transport.requests.isEmpty)
    }

    @Test func perRequestAuthModeOverridesTheDefault() async throws {
        let plugin = try makePlugin([.graphQL(authorizationType: .apiKey)], transport: transport)
        #expect(
            try await headers(plugin, authMode: .amazonCognitoUserPools)
                == ["content-type": "application/json", "authorization": "user-pools-token"]
        )
        #expect(try await headers(plugin, authMode: AWSAuthorizationType.none) == ["content-type": "application/json"])
        let signed = try await headers(plugin, authMode: .awsIAM)
        #expect(signed["x-api-key"] == nil)
        #expect(
            signed["authorization"]?.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20231114/us-east-1/appsync/")
                == true
        )
        #expect(try await headers(plugin) == ["content-type": "application/json", "x-api-key": "da2-test-key"])
    }

    @Test func perRequestAuthModeThatTheAPICannotServe() async throws {
        let plugin = try makePlugin(
            [.graphQL(authorizationType: .openIDConnect, apiKey: nil)],
            transport: transport,
            factory: APIAuthProviderFactory.oidcOnly
        )
        var request = ping
        request.authMode = .apiKey
        #expect(
            await thrownMessage { _ = try await plugin.query(request: request) }
                == "The request's authMode is API_KEY, but the API 'blog' has no API key. Set AWSAPIPluginConfiguration.Endpoint 'blog' apiKey in the configuration."
        )
        request.authMode = .function
        #expect(
            await thrownMessage { _ = try await plugin.query(request: request) }
                == "The request's authMode is AWS_LAMBDA, but the APIAuthProviderFactory returns no functionAuthProvider(). Create the plugin with AWSAPIPlugin(apiAuthProviderFactory:) and a factory that overrides functionAuthProvider()."
        )
        #expect(transport.requests.isEmpty)
    }

    @Test func failingTokenProvider() async throws {
        let plugin = try makePlugin(
            [.graphQL(authorizationType: .openIDConnect, apiKey: nil)],
            transport: transport,
            factory: FailingFactory()
        )
        let message = await thrownMessage { _ = try await plugin.query(request: ping) }
        #expect(
            message
                == "The oidcAuthProvider() of the APIAuthProviderFactory failed to return a token for OPENID_CONNECT: SignedOut(). Check that the user is signed in and that getLatestAuthToken() returns their token."
        )
    }

    /// A provider that implements neither form compiles; its request fails, saying so.
    @Test func aProviderWithNeitherFormFailsItsRequestNamingTheFix() async throws {
        let plugin = try makePlugin(
            [.graphQL(authorizationType: .openIDConnect, apiKey: nil)],
            transport: transport,
            factory: EmptyFactory()
        )
        let message = await thrownMessage { _ = try await plugin.query(request: ping) }
        #expect(
            message
                == "The oidcAuthProvider() of the APIAuthProviderFactory failed to return a token for OPENID_CONNECT: "
                + "Provider implements neither getLatestAuthToken() async throws -> String nor "
                + "getLatestAuthToken() -> Result<String, Error>. Implement one of them. Check that the user is signed "
                + "in and that getLatestAuthToken() returns their token."
        )
        #expect(transport.requests.isEmpty)
    }

    @Test func theResultFormOfAProviderIsUsed() async throws {
        let plugin = try makePlugin(
            [.graphQL(authorizationType: .openIDConnect, apiKey: nil)],
            transport: transport,
            factory: APIAuthProviderFactory.oidcOnly
        )
        #expect(try await headers(plugin) == ["content-type": "application/json", "authorization": "result-token"])
    }
}

struct SignedOut: Error {}

/// Its provider throws.
private final class FailingFactory: APIAuthProviderFactory {
    struct Provider: AmplifyOIDCAuthProvider {
        func getLatestAuthToken() async throws -> String { throw SignedOut() }
    }

    override func oidcAuthProvider() -> AmplifyOIDCAuthProvider? { Provider() }
}

/// Its provider implements neither form of `getLatestAuthToken()`.
private final class EmptyFactory: APIAuthProviderFactory {
    struct Provider: AmplifyOIDCAuthProvider {}

    override func oidcAuthProvider() -> AmplifyOIDCAuthProvider? { Provider() }
}

/// An OIDC provider in the synchronous form of Amplify iOS v1.
private final class ResultFormProvider: AmplifyOIDCAuthProvider {
    func getLatestAuthToken() -> Result<String, Error> { .success("result-token") }
}

private final class OIDCOnlyFactory: APIAuthProviderFactory {
    override func oidcAuthProvider() -> AmplifyOIDCAuthProvider? { ResultFormProvider() }
}

extension APIAuthProviderFactory {
    fileprivate static var oidcOnly: APIAuthProviderFactory { OIDCOnlyFactory() }
}
