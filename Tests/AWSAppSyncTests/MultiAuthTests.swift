import AWSPluginsCore
import Amplify
import Foundation
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
    enum AppSyncClientMode {
        case `public`
        case `private`
    }

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
}
