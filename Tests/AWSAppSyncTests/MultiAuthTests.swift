import AWSCognitoAuthPlugin
import AWSPluginsCore
import Amplify
import Foundation
import StratusCognito
import StratusTesting
import Testing

@testable import AWSAppSync

/// The guide's multi-auth `Post` API: `url`, `ups` and `downs` are for `AWS_IAM` only.
let multiAuthSchema = """
    type Post @model @aws_api_key @aws_iam {
      id: ID!
      author: String!
      title: String
      content: String
      url: String @aws_iam
      ups: Int @aws_iam
      downs: Int @aws_iam
      version: Int!
    }
    """

/// The fields of `Post` the guide reads, in the shape `stratus codegen types` generates.
let postSelections: [any GraphQLSelection] = [
    GraphQLField("__typename", type: .nonNull(.scalar(String.self))),
    GraphQLField("id", type: .nonNull(.scalar(GraphQLID.self))),
    GraphQLField("author", type: .nonNull(.scalar(String.self))),
    GraphQLField("title", type: .scalar(String.self)),
    GraphQLField("content", type: .scalar(String.self)),
    GraphQLField("url", type: .scalar(String.self)),
    GraphQLField("ups", type: .scalar(Int.self)),
    GraphQLField("downs", type: .scalar(Int.self)),
    GraphQLField("version", type: .nonNull(.scalar(Int.self))),
]

let postDocumentFields = "__typename id author title content url ups downs version"

struct Post: GraphQLSelectionSet {
    static let possibleTypes = ["Post"]
    static let selections = postSelections
    var snapshot: Snapshot
    init(snapshot: Snapshot) { self.snapshot = snapshot }
    var id: GraphQLID { snapshot[field: "id"] }
    var author: String { snapshot[field: "author"] }
    var title: String? { snapshot[field: "title"] }
    var content: String? { snapshot[field: "content"] }
    var url: String? { snapshot[field: "url"] }
    var ups: Int? { snapshot[field: "ups"] }
    var downs: Int? { snapshot[field: "downs"] }
    var version: Int { snapshot[field: "version"] }
}

struct CreatePostMutation: GraphQLMutation {
    static let operationName = "CreatePost"
    static let operationString =
        "mutation CreatePost($input: CreatePostInput!) { createPost(input: $input) { \(postDocumentFields) } }"
    let input: GraphQLMap
    var variables: GraphQLMap? { ["input": .object(input)] }

    struct Data: GraphQLSelectionSet {
        static let possibleTypes = ["Mutation"]
        static let selections: [any GraphQLSelection] = [
            GraphQLField("createPost", arguments: ["input": GraphQLVariable("input")], type: .object(postSelections))
        ]
        var snapshot: Snapshot
        init(snapshot: Snapshot) { self.snapshot = snapshot }
        var createPost: Post? { snapshot[field: "createPost"] }
    }
}

struct GetPostQuery: GraphQLQuery {
    static let operationName = "GetPost"
    static let operationString = "query GetPost($id: ID!) { getPost(id: $id) { \(postDocumentFields) } }"
    let id: GraphQLID
    var variables: GraphQLMap? { ["id": .string(id)] }

    struct Data: GraphQLSelectionSet {
        static let possibleTypes = ["Query"]
        static let selections: [any GraphQLSelection] = [
            GraphQLField("getPost", arguments: ["id": GraphQLVariable("id")], type: .object(postSelections))
        ]
        var snapshot: Snapshot
        init(snapshot: Snapshot) { self.snapshot = snapshot }
        var getPost: Post? { snapshot[field: "getPost"] }
    }
}

/// The guide's client factory: one client per auth mode, each with its own cache files.
@Suite struct MultiAuthTests {
    @Test(.timeLimit(.minutes(1))) func anIAMFieldIsNullForTheAPIKeyClient() async throws {
        let backend = try await LocalBackend.start(schema: multiAuthSchema)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("appsync-multi-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let entry: (String, String) -> JSONValue = { mode, prefix in
                [
                    "ApiUrl": .string(backend.endpoint.absoluteString), "Region": "us-east-1",
                    "AuthMode": .string(mode), "ApiKey": .string(backend.apiKey),
                    "ClientDatabasePrefix": .string(prefix),
                ]
            }
            let awsConfiguration: JSONValue = [
                "AppSync": [
                    "Default": entry("API_KEY", "friendly_name_API_KEY"),
                    "friendly_name_AWS_IAM": entry("AWS_IAM", "friendly_name_AWS_IAM"),
                ]
            ]
            var clients: [AppSyncClientMode: AWSAppSyncClient] = [:]
            let serviceConfigAPIKey = try AWSAppSyncServiceConfig(awsConfiguration: awsConfiguration)
            let cacheConfigAPIKey = try AWSAppSyncCacheConfiguration(
                useClientDatabasePrefix: true,
                appSyncServiceConfig: serviceConfigAPIKey,
                rootDirectory: directory
            )
            let clientConfigAPIKey = try AWSAppSyncClientConfiguration(
                appSyncServiceConfig: serviceConfigAPIKey,
                cacheConfiguration: cacheConfigAPIKey
            )
            clients[AppSyncClientMode.public] = try AWSAppSyncClient(appSyncConfig: clientConfigAPIKey)

            let serviceConfigIAM = try AWSAppSyncServiceConfig(
                awsConfiguration: awsConfiguration,
                forKey: "friendly_name_AWS_IAM"
            )
            let cacheConfigIAM = try AWSAppSyncCacheConfiguration(
                useClientDatabasePrefix: true,
                appSyncServiceConfig: serviceConfigIAM,
                rootDirectory: directory
            )
            let clientConfigIAM = try AWSAppSyncClientConfiguration(
                appSyncServiceConfig: serviceConfigIAM,
                credentialsProvider: StaticCredentialsProvider(backend.credentials),
                cacheConfiguration: cacheConfigIAM
            )
            clients[AppSyncClientMode.private] = try AWSAppSyncClient(appSyncConfig: clientConfigIAM)

            // 1. Add a post with AWS_IAM.
            let input: GraphQLMap = [
                "id": "p1", "author": "Nadia", "title": "ABC", "content": "DEF", "url": "https://example.com",
                "ups": 3, "downs": 1, "version": 1,
            ]
            let created = try await clients[.private]!.perform(mutation: CreatePostMutation(input: input))
            #expect(created.errors == nil)
            #expect(created.data?.createPost?.url == "https://example.com")

            // 2. Query it with AWS_IAM: every field.
            let privatePost = try await clients[.private]!.fetch(query: GetPostQuery(id: "p1"))
            #expect(privatePost.errors == nil)
            #expect(privatePost.data?.getPost?.ups == 3)

            // 3. Query it with API_KEY: the IAM fields are null, with an error each.
            let result = try await clients[.public]!.fetch(query: GetPostQuery(id: "p1"))
            let post = try #require(result.data?.getPost)
            #expect(post.id == "p1")
            #expect(post.author == "Nadia")
            #expect(post.title == "ABC")
            #expect(post.content == "DEF")
            #expect(post.version == 1)
            #expect(post.url == nil)
            #expect(post.ups == nil)
            #expect(post.downs == nil)
            // As the guide reads it: the first error is the first field the query selects.
            #expect(result.errors![0].message.contains("Not Authorized to access url on type Post"))
            #expect(
                result.errors?.map(\.message) == [
                    "Not Authorized to access url on type Post",
                    "Not Authorized to access ups on type Post",
                    "Not Authorized to access downs on type Post",
                ]
            )
            #expect(
                result.errors?.map { $0.path?.compactMap(\.stringValue).joined(separator: ".") } == [
                    "getPost.url", "getPost.ups", "getPost.downs",
                ]
            )
            #expect(result.errors?.map(\.errorType) == ["Unauthorized", "Unauthorized", "Unauthorized"])

            // Each client has its own cache files.
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            #expect(files.contains("friendly_name_API_KEY_queries.db"))
            #expect(files.contains("friendly_name_AWS_IAM_queries.db"))
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    /// The guide's `ClientFactory` as written: its `AWS_IAM` client is given no credentials
    /// provider, and signs with the guest credentials of the identity pool in the file's
    /// `CredentialsProvider` section, which the server accepts for the IAM fields.
    @Test(.timeLimit(.minutes(1))) func theFactorysIAMClientSignsWithTheFilesIdentityPool() async throws {
        let identityPoolId = "us-east-1:\(UUID().uuidString.lowercased())"
        let backend = try await LocalBackend.start(
            schema: multiAuthSchema,
            cognito: CognitoConfiguration(identityPoolId: identityPoolId)
        )
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("appsync-factory-\(UUID())")
        defer {
            ClientFactory.clients = [:]
            try? FileManager.default.removeItem(at: directory)
            // The identity id the provider kept, as an app keeps it between runs.
            try? FileManager.default.removeItem(at: FileAuthSessionStore(name: identityPoolId).url)
        }
        do {
            let entry: (String, String) -> JSONValue = { mode, prefix in
                [
                    "ApiUrl": .string(backend.endpoint.absoluteString), "Region": "us-east-1",
                    "AuthMode": .string(mode), "ApiKey": .string(backend.apiKey),
                    "ClientDatabasePrefix": .string(prefix),
                ]
            }
            ClientFactory.awsConfiguration = [
                "CredentialsProvider": [
                    "CognitoIdentity": [
                        "Default": [
                            "PoolId": .string(identityPoolId), "Region": "us-east-1",
                            "Endpoint": .string(backend.origin.absoluteString),
                        ]
                    ]
                ],
                "AppSync": [
                    "Default": entry("API_KEY", "friendly_name_API_KEY"),
                    "friendly_name_AWS_IAM": entry("AWS_IAM", "friendly_name_AWS_IAM"),
                ],
            ]
            ClientFactory.rootDirectory = directory
            try ClientFactory.initClients()

            let input: GraphQLMap = [
                "id": "p1", "author": "Nadia", "title": "ABC", "content": "DEF", "url": "https://example.com",
                "ups": 3, "downs": 1, "version": 1,
            ]
            let created = try await ClientFactory.getAppSyncClient(mode: AppSyncClientMode.private)!
                .perform(mutation: CreatePostMutation(input: input))
            #expect(created.errors == nil)
            let result = try await ClientFactory.getAppSyncClient(mode: AppSyncClientMode.private)!
                .fetch(query: GetPostQuery(id: "p1"))
            #expect(result.errors == nil)
            #expect(result.data?.getPost?.url == "https://example.com")
            #expect(result.data?.getPost?.ups == 3)
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    /// Without a provider or a `CredentialsProvider` section, the IAM client cannot be made, and
    /// the error names the section to add.
    @Test func anIAMClientWithoutProviderOrIdentityPoolNamesTheMissingSection() throws {
        let serviceConfig = try AWSAppSyncServiceConfig(
            awsConfiguration: [
                "AppSync": [
                    "friendly_name_AWS_IAM": [
                        "ApiUrl": "https://xyz.appsync-api.us-west-2.amazonaws.com/graphql", "Region": "us-west-2",
                        "AuthMode": "AWS_IAM",
                    ]
                ]
            ],
            forKey: "friendly_name_AWS_IAM"
        )
        #expect(serviceConfig.cognitoIdentity == nil)
        let error = #expect(throws: AWSAppSyncClientError.self) {
            try AWSAppSyncClientConfiguration(appSyncServiceConfig: serviceConfig)
        }
        #expect(
            error?.message
                == "AppSync.friendly_name_AWS_IAM.AuthMode is AWS_IAM, but no credentialsProvider was given and "
                + "awsconfiguration.json has no CredentialsProvider section to take the identity pool from. Add "
                + #"{"CredentialsProvider": {"CognitoIdentity": {"Default": {"PoolId": "us-east-1:<id>", "#
                + #""Region": "us-east-1"}}}}, or pass AWSAppSyncClientConfiguration(appSyncServiceConfig:, "#
                + "credentialsProvider: AWSMobileClient.default(), …)."
        )

        let badPool = #expect(throws: AWSAppSyncClientError.self) {
            try AWSAppSyncServiceConfig(
                awsConfiguration: [
                    "CredentialsProvider": ["CognitoIdentity": ["Default": ["PoolId": "us-east-1:x"]]],
                    "AppSync": [
                        "Default": [
                            "ApiUrl": "https://x.example/graphql", "Region": "us-east-1", "AuthMode": "AWS_IAM",
                        ]
                    ],
                ]
            )
        }
        #expect(
            badPool?.message
                == "CredentialsProvider.CognitoIdentity.Default.Region is missing. Set it to the identity pool's "
                + #"region, such as "us-east-1"."#
        )
    }
}

/// The AppSync guide's multi-auth client modes.
public enum AppSyncClientMode {
    case `public`
    case `private`
}

/// The AppSync guide's `ClientFactory`, with two changes: the API is read from
/// ``awsConfiguration`` rather than `awsconfiguration.json` in the working directory, and the
/// caches are in ``rootDirectory``, as tests running at once need.
public class ClientFactory {
    nonisolated(unsafe) static var clients: [AppSyncClientMode: AWSAppSyncClient] = [:]
    nonisolated(unsafe) static var awsConfiguration: JSONValue = [:]
    nonisolated(unsafe) static var rootDirectory: URL?

    class func getAppSyncClient(mode: AppSyncClientMode) -> AWSAppSyncClient? {
        return clients[mode]
    }

    class func initClients() throws {
        let serviceConfigAPIKey = try AWSAppSyncServiceConfig(awsConfiguration: awsConfiguration)
        let cacheConfigAPIKey = try AWSAppSyncCacheConfiguration(
            useClientDatabasePrefix: true,
            appSyncServiceConfig: serviceConfigAPIKey,
            rootDirectory: rootDirectory
        )
        let clientConfigAPIKey = try AWSAppSyncClientConfiguration(
            appSyncServiceConfig: serviceConfigAPIKey,
            cacheConfiguration: cacheConfigAPIKey
        )
        clients[AppSyncClientMode.public] = try AWSAppSyncClient(appSyncConfig: clientConfigAPIKey)

        let serviceConfigIAM = try AWSAppSyncServiceConfig(
            awsConfiguration: awsConfiguration,
            forKey: "friendly_name_AWS_IAM"
        )
        let cacheConfigIAM = try AWSAppSyncCacheConfiguration(
            useClientDatabasePrefix: true,
            appSyncServiceConfig: serviceConfigIAM,
            rootDirectory: rootDirectory
        )
        let clientConfigIAM = try AWSAppSyncClientConfiguration(
            appSyncServiceConfig: serviceConfigIAM,
            cacheConfiguration: cacheConfigIAM
        )
        clients[AppSyncClientMode.private] = try AWSAppSyncClient(appSyncConfig: clientConfigIAM)
    }
}
