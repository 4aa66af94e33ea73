import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import Foundation
import Synchronization
import Testing

extension AmplifyAPITests {
    /// With an Auth plugin added next to it, the API plugin signs `AWS_IAM` with the Auth
    /// plugin's credentials and sends its access token for `AMAZON_COGNITO_USER_POOLS`, without
    /// an `APIAuthProviderFactory`.
    @Suite struct AuthPluginTests {
        static let configuration = AmplifyConfiguration(json: [
            "api": [
                "plugins": [
                    "awsAPIPlugin": [
                        "pool": [
                            "endpointType": "GraphQL",
                            "endpoint": "https://pool.example/graphql",
                            "region": "us-east-1",
                            "authorizationType": "AMAZON_COGNITO_USER_POOLS",
                        ],
                        "iam": [
                            "endpointType": "REST",
                            "endpoint": "https://iam.example/prod",
                            "region": "us-east-1",
                            "authorizationType": "AWS_IAM",
                        ],
                    ]
                ]
            ]
        ])

        @Test func tokensAndCredentialsComeFromTheAuthPlugin() async throws {
            let transport = InMemoryTransport(body: #"{"data":{"a":1}}"#)
            let auth = StubAuthPlugin()
            await Amplify.reset()
            try Amplify.add(plugin: auth)
            try Amplify.add(plugin: AWSAPIPlugin(transport: transport))
            try Amplify.configure(Self.configuration)

            try await Amplify.API.query(
                request: GraphQLRequest(apiName: "pool", document: "{ a }", responseType: JSONValue.self)
            )
            #expect(transport.requests.last?.headers["authorization"] == "access-1")
            auth.accessToken.withLock { $0 = "access-2" }
            try await Amplify.API.query(
                request: GraphQLRequest(apiName: "pool", document: "{ a }", responseType: JSONValue.self)
            )
            #expect(transport.requests.last?.headers["authorization"] == "access-2")

            _ = try await Amplify.API.get(request: RESTRequest(apiName: "iam", path: "/items"))
            let authorization = try #require(transport.requests.last?.headers["authorization"])
            #expect(authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDGUEST/"), "\(authorization)")
            #expect(transport.requests.last?.headers["x-amz-security-token"] == "guest-token")
            await Amplify.reset()
        }

        @Test func credentialsTheAPIPluginWasCreatedWithWinOverTheAuthPlugins() async throws {
            let transport = InMemoryTransport(body: "{}")
            await Amplify.reset()
            try Amplify.add(plugin: StubAuthPlugin())
            try Amplify.add(
                plugin: AWSAPIPlugin(
                    credentialsProvider: StaticCredentialsProvider(accessKeyId: "AKIDOWN", secretAccessKey: "secret"),
                    transport: transport
                )
            )
            try Amplify.configure(Self.configuration)
            _ = try await Amplify.API.get(request: RESTRequest(apiName: "iam", path: "/items"))
            let authorization = try #require(transport.requests.last?.headers["authorization"])
            #expect(authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDOWN/"), "\(authorization)")
            await Amplify.reset()
        }

        @Test func withoutAnAuthPluginTheFactoryIsStillRequired() async throws {
            await Amplify.reset()
            try Amplify.add(plugin: AWSAPIPlugin(transport: InMemoryTransport(body: "{}")))
            #expect(
                throws: ConfigurationError(
                    "api.plugins.awsAPIPlugin.pool.authorizationType is AMAZON_COGNITO_USER_POOLS, but the "
                        + "APIAuthProviderFactory returns no userPoolsAuthProvider(). Create the plugin with "
                        + "AWSAPIPlugin(apiAuthProviderFactory:) and a factory that overrides userPoolsAuthProvider()."
                )
            ) {
                try Amplify.configure(Self.configuration)
            }
            await Amplify.reset()
        }
    }
}

/// An Auth plugin whose session holds a token and credentials the test sets.
final class StubAuthPlugin: AuthCategoryPlugin {
    struct Tokens: AuthCognitoTokens {
        var idToken: String
        var accessToken: String
        var refreshToken: String
    }

    struct Session: AuthSession, AuthCognitoTokensProvider, AuthAWSCredentialsProvider {
        var isSignedIn: Bool
        var accessToken: String

        func getCognitoTokens() -> Result<any AuthCognitoTokens, AuthError> {
            .success(Tokens(idToken: "id", accessToken: accessToken, refreshToken: "refresh"))
        }

        func getAWSCredentials() -> Result<AWSCredentials, AuthError> {
            .success(AWSCredentials(accessKeyId: "AKIDGUEST", secretAccessKey: "secret", sessionToken: "guest-token"))
        }
    }

    static let unsupported = AuthError.invalidState("The stub does not do this.", "Use the session only.")

    let key = "stubAuthPlugin"
    let accessToken = Mutex("access-1")

    func configure(using configuration: JSONValue?) throws {}
    func reset() async {}

    func fetchAuthSession(options: AuthFetchSessionRequest.Options?) async throws -> any AuthSession {
        Session(isSignedIn: true, accessToken: accessToken.withLock { $0 })
    }

    func signUp(
        username: String,
        password: String?,
        options: AuthSignUpRequest.Options?
    ) async throws
        -> AuthSignUpResult
    { throw Self.unsupported }
    func confirmSignUp(for username: String, confirmationCode: String) async throws -> AuthSignUpResult {
        throw Self.unsupported
    }
    func resendSignUpCode(for username: String) async throws -> AuthCodeDeliveryDetails { throw Self.unsupported }
    func signIn(
        username: String?,
        password: String?,
        options: AuthSignInRequest.Options?
    ) async throws
        -> AuthSignInResult
    { throw Self.unsupported }
    func confirmSignIn(
        challengeResponse: String,
        options: AuthConfirmSignInRequest.Options?
    ) async throws
        -> AuthSignInResult
    { throw Self.unsupported }
    func signOut(options: AuthSignOutRequest.Options?) async -> any AuthSignOutResult { SignedOut() }
    func getCurrentUser() async throws -> any AuthUser { throw Self.unsupported }
    func fetchUserAttributes() async throws -> [AuthUserAttribute] { throw Self.unsupported }
    func update(userAttribute: AuthUserAttribute) async throws -> AuthUpdateAttributeResult { throw Self.unsupported }
    func resetPassword(for username: String) async throws -> AuthResetPasswordResult { throw Self.unsupported }
    func confirmResetPassword(for username: String, with newPassword: String, confirmationCode: String) async throws {
        throw Self.unsupported
    }
    func update(oldPassword: String, to newPassword: String) async throws { throw Self.unsupported }
    func deleteUser() async throws { throw Self.unsupported }

    struct SignedOut: AuthSignOutResult {}
}
