import Foundation
import StratusCodegen
import StratusServer
import Testing

/// The SDL derived from annotated schemas: exact for the example of backend.md §1, and accepted
/// by graphql-core, the reference implementation's Python port.
@Suite struct SDLTests {
    @Test func postExampleHasTheExactSDL() throws {
        let api = ServerAPI(schema: try SchemaParser().parse(postSchema))
        #expect(api.sdl == Self.postSDL + "\n")
    }

    @Test(arguments: ["post", "blog", "features"])
    func graphQLCoreBuildsTheSDL(_ name: String) async throws {
        let sdl = try Self.sdl(of: name, conflictDetection: true)
        let result = try await runPython(
            """
            import sys
            from graphql import build_schema
            try:
                build_schema(sys.stdin.read())
            except Exception as error:
                print(error)
                sys.exit(1)
            """,
            input: sdl
        )
        #expect(result.status == 0, "graphql-core rejected the SDL of \(name): \(result.output)")
    }

    @Test(arguments: ["post", "blog", "features"])
    func graphQLCoreValidatesTheGeneratedStatementsAgainstTheSDL(_ name: String) async throws {
        for conflictDetection in [true, false] {
            let source = try Self.source(of: name)
            let schema = try SchemaParser().parse(source)
            let files = StatementsGenerator(conflictDetection: conflictDetection).generate(schema)
            let documents = JSON.array(files.map { .string($0.contents) })
            let sdl = try Self.sdl(of: name, conflictDetection: conflictDetection)
            let result = try await runPython(
                """
                import json, sys
                from graphql import build_schema, parse, validate
                request = json.load(sys.stdin)
                schema = build_schema(request["sdl"])
                problems = []
                for document in request["documents"]:
                    problems += [str(error) for error in validate(schema, parse(document))]
                print("\\n".join(problems))
                sys.exit(1 if problems else 0)
                """,
                input: JSON.object(["sdl": .string(sdl), "documents": documents]).text
            )
            #expect(
                result.status == 0,
                "statements of \(name) (conflict detection \(conflictDetection)) do not validate: \(result.output)"
            )
        }
    }

    @Test func withoutConflictDetectionTheSDLHasNoSyncMetadata() throws {
        let configuration = ServerConfiguration(conflictDetection: false)
        let sdl = ServerAPI(schema: try SchemaParser().parse(postSchema), configuration: configuration).sdl
        for absent in ["_version", "_deleted", "_lastChangedAt", "startedAt", "syncPosts"] {
            #expect(!sdl.contains(absent), "\(absent) is in the SDL without conflict detection")
        }
        #expect(
            sdl.contains("listPosts(filter: ModelPostFilterInput, limit: Int, nextToken: String): ModelPostConnection")
        )
    }

    @Test func relationsKeysAndIndexesBecomeFieldsAndArguments() throws {
        let sdl = try Self.sdl(of: "features", conflictDetection: true)
        let expected = [
            "  posts(title: ModelStringKeyConditionInput, filter: ModelPostFilterInput, "
                + "sortDirection: ModelSortDirection, limit: Int, nextToken: String): ModelPostConnection",
            "  comments(filter: ModelCommentFilterInput, sortDirection: ModelSortDirection, limit: Int, "
                + "nextToken: String): ModelCommentConnection",
            "  blog: Blog",
            "  postCommentsId: ID",
            "  getOrder(customerId: ID!, placedAt: AWSTimestamp!, number: Int!): Order",
            "  listOrders(customerId: ID, placedAtNumber: ModelOrderPrimaryCompositeKeyConditionInput, "
                + "filter: ModelOrderFilterInput, limit: Int, nextToken: String, sortDirection: ModelSortDirection): "
                + "ModelOrderConnection",
            "  postsByStatus(status: PostStatus!, ratingTitle: ModelPostByStatusCompositeKeyConditionInput, "
                + "sortDirection: ModelSortDirection, filter: ModelPostFilterInput, limit: Int, nextToken: String): "
                + "ModelPostConnection",
            """
            input ModelPostByStatusCompositeKeyInput {
              rating: Int
              title: String
            }
            """,
            """
            input DeleteOrderInput {
              customerId: ID!
              placedAt: AWSTimestamp!
              number: Int!
              _version: Int
            }
            """,
            "  lines: [OrderLineInput!]!",
            "  tagPost(input: CreatePostTagInput!, condition: ModelPostTagConditionInput): PostTag",
        ]
        for line in expected {
            #expect(sdl.contains(line), "the SDL lacks:\n\(line)")
        }
        #expect(!sdl.contains("onCreateComment"), "Comment has subscriptions: null")
        #expect(!sdl.contains("getInvoice"), "Invoice has queries: null")
    }

    /// Root types renamed by a `schema { }` block carry the generated fields and answer them.
    @Test func renamedRootTypesAnswerTheModelsOperations() async throws {
        let server = try await TestServer(
            """
            schema { query: Root mutation: Change }
            type Note @model { id: ID! text: String }
            type Root { ping: String }
            type Change { touch: String }
            """
        )
        #expect(
            await server.run(#"mutation { createNote(input: {id: "n1", text: "t"}) { id text } }"#)
                == #"{"data":{"createNote":{"id":"n1","text":"t"}}}"#
        )
        #expect(
            await server.run("{ listNotes { items { id } } }") == #"{"data":{"listNotes":{"items":[{"id":"n1"}]}}}"#
        )
    }

    @Test func handWrittenTypesAndOperationsJoinTheGeneratedOnes() throws {
        let schema = try SchemaParser().parse(
            """
            schema { query: Root mutation: Change subscription: Feed }
            scalar Point
            interface Node { id: ID! }
            type Note implements Node @model { id: ID! text: String summary(words: Int = 20): String @function(name: "summary") }
            type Page { items: [Note] total: Int }
            union Found = Note | Page
            input Range { from: Int! to: Int = 10 }
            type Root { search(range: Range!, near: Point): Page @function(name: "search-${env}") found: [Found] }
            type Change { archive(ids: [ID!]!): [Note] }
            type Feed { onArchive: [Note] @aws_subscribe(mutations: ["archive", "createNote"]) }
            """
        )
        let sdl = ServerAPI(schema: schema, configuration: ServerConfiguration(conflictDetection: false)).sdl
        #expect(sdl.hasPrefix("schema {\n  query: Root\n  mutation: Change\n  subscription: Feed\n}\n\ndirective "))
        let expected = [
            "scalar AWSIPAddress\nscalar Point\n",
            "interface Node {\n  id: ID!\n}",
            "union Found = Note | Page",
            "type Page {\n  items: [Note]\n  total: Int\n}",
            "input Range {\n  from: Int!\n  to: Int = 10\n}",
            "type Note implements Node {\n  id: ID!\n  text: String\n  summary(words: Int = 20): String\n",
            "  search(range: Range!, near: Point): Page\n  found: [Found]\n}",
            "type Change {\n",
            "  archive(ids: [ID!]!): [Note]\n}",
            "type Feed {\n",
            "  onArchive: [Note] @aws_subscribe(mutations: [\"archive\", \"createNote\"])\n}",
        ]
        for text in expected {
            #expect(sdl.contains(text), "the SDL lacks:\n\(text)")
        }
        // The input of a non-model type leaves out the fields that hold results.
        #expect(sdl.contains("input PageInput {\n  total: Int\n}"))
        #expect(!sdl.contains("type Query"))
    }

    static func source(of name: String) throws -> String {
        switch name {
        case "blog": return try Fixtures.blog
        case "features": return try Fixtures.features
        default: return postSchema
        }
    }

    static func sdl(of name: String, conflictDetection: Bool) throws -> String {
        ServerAPI(
            schema: try SchemaParser().parse(try source(of: name)),
            configuration: ServerConfiguration(conflictDetection: conflictDetection)
        ).sdl
    }

    static let postSDL = """
        directive @aws_subscribe(mutations: [String]) on FIELD_DEFINITION
        directive @aws_api_key on OBJECT | FIELD_DEFINITION
        directive @aws_iam on OBJECT | FIELD_DEFINITION
        directive @aws_oidc on OBJECT | FIELD_DEFINITION
        directive @aws_lambda on OBJECT | FIELD_DEFINITION
        directive @aws_cognito_user_pools(cognito_groups: [String]) on OBJECT | FIELD_DEFINITION
        directive @aws_auth(cognito_groups: [String]) on FIELD_DEFINITION

        scalar AWSDate
        scalar AWSTime
        scalar AWSDateTime
        scalar AWSTimestamp
        scalar AWSEmail
        scalar AWSJSON
        scalar AWSPhone
        scalar AWSURL
        scalar AWSIPAddress

        enum PostStatus {
          DRAFT
          PUBLISHED
        }

        type Post {
          id: ID!
          title: String!
          rating: Int!
          status: PostStatus!
          createdAt: AWSDateTime!
          updatedAt: AWSDateTime!
          _version: Int!
          _deleted: Boolean
          _lastChangedAt: AWSTimestamp!
        }

        type ModelPostConnection {
          items: [Post]!
          nextToken: String
          startedAt: AWSTimestamp
        }

        enum ModelSortDirection {
          ASC
          DESC
        }

        enum ModelAttributeTypes {
          binary
          binarySet
          bool
          list
          map
          number
          numberSet
          string
          stringSet
          _null
        }

        input ModelSizeInput {
          ne: Int
          eq: Int
          le: Int
          lt: Int
          ge: Int
          gt: Int
          between: [Int]
        }

        input ModelStringInput {
          ne: String
          eq: String
          le: String
          lt: String
          ge: String
          gt: String
          contains: String
          notContains: String
          between: [String]
          beginsWith: String
          attributeExists: Boolean
          attributeType: ModelAttributeTypes
          size: ModelSizeInput
        }

        input ModelIDInput {
          ne: ID
          eq: ID
          le: ID
          lt: ID
          ge: ID
          gt: ID
          contains: ID
          notContains: ID
          between: [ID]
          beginsWith: ID
          attributeExists: Boolean
          attributeType: ModelAttributeTypes
          size: ModelSizeInput
        }

        input ModelIntInput {
          ne: Int
          eq: Int
          le: Int
          lt: Int
          ge: Int
          gt: Int
          between: [Int]
          attributeExists: Boolean
          attributeType: ModelAttributeTypes
        }

        input ModelFloatInput {
          ne: Float
          eq: Float
          le: Float
          lt: Float
          ge: Float
          gt: Float
          between: [Float]
          attributeExists: Boolean
          attributeType: ModelAttributeTypes
        }

        input ModelBooleanInput {
          ne: Boolean
          eq: Boolean
          attributeExists: Boolean
          attributeType: ModelAttributeTypes
        }

        input ModelSubscriptionStringInput {
          ne: String
          eq: String
          le: String
          lt: String
          ge: String
          gt: String
          contains: String
          notContains: String
          between: [String]
          beginsWith: String
          in: [String]
          notIn: [String]
        }

        input ModelSubscriptionIDInput {
          ne: ID
          eq: ID
          le: ID
          lt: ID
          ge: ID
          gt: ID
          contains: ID
          notContains: ID
          between: [ID]
          beginsWith: ID
          in: [ID]
          notIn: [ID]
        }

        input ModelSubscriptionIntInput {
          ne: Int
          eq: Int
          le: Int
          lt: Int
          ge: Int
          gt: Int
          between: [Int]
          in: [Int]
          notIn: [Int]
        }

        input ModelSubscriptionFloatInput {
          ne: Float
          eq: Float
          le: Float
          lt: Float
          ge: Float
          gt: Float
          between: [Float]
          in: [Float]
          notIn: [Float]
        }

        input ModelSubscriptionBooleanInput {
          ne: Boolean
          eq: Boolean
        }

        input ModelStringKeyConditionInput {
          eq: String
          le: String
          lt: String
          ge: String
          gt: String
          between: [String]
          beginsWith: String
        }

        input ModelIDKeyConditionInput {
          eq: ID
          le: ID
          lt: ID
          ge: ID
          gt: ID
          between: [ID]
          beginsWith: ID
        }

        input ModelIntKeyConditionInput {
          eq: Int
          le: Int
          lt: Int
          ge: Int
          gt: Int
          between: [Int]
        }

        input ModelFloatKeyConditionInput {
          eq: Float
          le: Float
          lt: Float
          ge: Float
          gt: Float
          between: [Float]
        }

        input ModelPostStatusInput {
          eq: PostStatus
          ne: PostStatus
        }

        input ModelPostStatusListInput {
          eq: [PostStatus]
          ne: [PostStatus]
          contains: PostStatus
          notContains: PostStatus
        }

        input ModelPostFilterInput {
          id: ModelIDInput
          title: ModelStringInput
          rating: ModelIntInput
          status: ModelPostStatusInput
          createdAt: ModelStringInput
          updatedAt: ModelStringInput
          and: [ModelPostFilterInput]
          or: [ModelPostFilterInput]
          not: ModelPostFilterInput
          _deleted: ModelBooleanInput
        }

        input ModelPostConditionInput {
          title: ModelStringInput
          rating: ModelIntInput
          status: ModelPostStatusInput
          createdAt: ModelStringInput
          updatedAt: ModelStringInput
          and: [ModelPostConditionInput]
          or: [ModelPostConditionInput]
          not: ModelPostConditionInput
          _deleted: ModelBooleanInput
        }

        input CreatePostInput {
          id: ID
          title: String!
          rating: Int!
          status: PostStatus!
          _version: Int
        }

        input UpdatePostInput {
          id: ID!
          title: String
          rating: Int
          status: PostStatus
          _version: Int
        }

        input DeletePostInput {
          id: ID!
          _version: Int
        }

        input ModelSubscriptionPostFilterInput {
          id: ModelSubscriptionIDInput
          title: ModelSubscriptionStringInput
          rating: ModelSubscriptionIntInput
          status: ModelSubscriptionStringInput
          createdAt: ModelSubscriptionStringInput
          updatedAt: ModelSubscriptionStringInput
          and: [ModelSubscriptionPostFilterInput]
          or: [ModelSubscriptionPostFilterInput]
          _deleted: ModelBooleanInput
        }

        type Query {
          getPost(id: ID!): Post
          listPosts(filter: ModelPostFilterInput, limit: Int, nextToken: String): ModelPostConnection
          syncPosts(filter: ModelPostFilterInput, limit: Int, nextToken: String, lastSync: AWSTimestamp): ModelPostConnection
        }

        type Mutation {
          createPost(input: CreatePostInput!, condition: ModelPostConditionInput): Post
          updatePost(input: UpdatePostInput!, condition: ModelPostConditionInput): Post
          deletePost(input: DeletePostInput!, condition: ModelPostConditionInput): Post
        }

        type Subscription {
          onCreatePost(filter: ModelSubscriptionPostFilterInput): Post @aws_subscribe(mutations: ["createPost"])
          onUpdatePost(filter: ModelSubscriptionPostFilterInput): Post @aws_subscribe(mutations: ["updatePost"])
          onDeletePost(filter: ModelSubscriptionPostFilterInput): Post @aws_subscribe(mutations: ["deletePost"])
        }
        """
}
