import Testing

@testable import StratusCodegen

/// How annotated schemas resolve: keys, indexes, relations and their foreign keys.
@Suite struct SchemaParserTests {
    func parse(_ source: String) throws -> AnnotatedSchema {
        try SchemaParser().parse(source, fileName: "schema.graphql")
    }

    @Test func hasManyWithBelongsToSharesTheImplicitForeignKey() throws {
        let schema = try parse(
            """
            type Post @model { id: ID! comments: [Comment] @hasMany }
            type Comment @model { id: ID! post: Post @belongsTo }
            """
        )
        let comments = try #require(schema.model(named: "Post")?.field(named: "comments")?.relation)
        #expect(comments.kind == .hasMany)
        #expect(comments.childKeyFields == ["postCommentsId"])
        #expect(comments.associatedFields == ["post"])
        let post = try #require(schema.model(named: "Comment")?.field(named: "post")?.relation)
        #expect(post.kind == .belongsTo)
        #expect(post.targetNames == ["postCommentsId"])
        #expect(post.associatedFields == ["comments"])
        let key = try #require(schema.model(named: "Comment")?.field(named: "postCommentsId"))
        #expect(key.isImplicit)
        #expect(key.type.description == "ID")
    }

    @Test func unidirectionalHasManyAddsTheKeyToTheChild() throws {
        let schema = try parse(
            """
            type Blog @model { id: ID! posts: [Post] @hasMany }
            type Post @model { id: ID! title: String }
            """
        )
        let relation = try #require(schema.model(named: "Blog")?.field(named: "posts")?.relation)
        #expect(relation.childKeyFields == ["blogPostsId"])
        #expect(relation.associatedFields == ["blogPostsId"])
        #expect(schema.model(named: "Post")?.field(named: "blogPostsId") != nil)
    }

    @Test func hasManyThroughAnIndex() throws {
        let schema = try parse(
            """
            type Post @model { id: ID! comments: [Comment] @hasMany(indexName: "byPost", fields: ["id"]) }
            type Comment @model {
              id: ID!
              postID: ID! @index(name: "byPost", sortKeyFields: ["content"])
              post: Post! @belongsTo(fields: ["postID"])
              content: String!
            }
            """
        )
        let relation = try #require(schema.model(named: "Post")?.field(named: "comments")?.relation)
        #expect(relation.childKeyFields == ["postID"])
        #expect(relation.indexName == "byPost")
        #expect(relation.associatedFields == ["post"])
        let comment = try #require(schema.model(named: "Comment"))
        #expect(comment.indexes == [Index(name: "byPost", fields: ["postID", "content"], queryField: nil)])
        #expect(comment.field(named: "post")?.relation?.targetNames == ["postID"])
    }

    @Test func hasOneKeepsTheKeyOnTheParent() throws {
        let schema = try parse(
            """
            type Project @model { id: ID! team: Team @hasOne }
            type Team @model { id: ID! project: Project @belongsTo }
            """
        )
        let team = try #require(schema.model(named: "Project")?.field(named: "team")?.relation)
        #expect(team.kind == .hasOne)
        #expect(team.targetNames == ["projectTeamId"])
        #expect(team.associatedFields == ["project"])
        let project = try #require(schema.model(named: "Team")?.field(named: "project")?.relation)
        #expect(project.targetNames == ["teamProjectId"])
        #expect(schema.model(named: "Project")?.field(named: "projectTeamId") != nil)
        #expect(schema.model(named: "Team")?.field(named: "teamProjectId") != nil)
    }

    @Test func manyToManyCreatesAJoinModel() throws {
        let schema = try parse(
            """
            type Post @model { id: ID! tags: [Tag] @manyToMany(relationName: "PostTags") }
            type Tag @model { id: ID! posts: [Post] @manyToMany(relationName: "PostTags") }
            """
        )
        let join = try #require(schema.model(named: "PostTags"))
        #expect(join.isJoinModel)
        #expect(join.fields.map(\.name) == ["id", "postId", "tagId", "post", "tag", "createdAt", "updatedAt"])
        #expect(join.indexes.map(\.name) == ["byPost", "byTag"])
        #expect(join.field(named: "post")?.relation?.targetNames == ["postId"])
        let tags = try #require(schema.model(named: "Post")?.field(named: "tags"))
        #expect(tags.type.name == "PostTags")
        #expect(tags.relation?.childKeyFields == ["postId"])
        #expect(tags.relation?.associatedFields == ["post"])
        #expect(schema.model(named: "Tag")?.field(named: "posts")?.relation?.associatedFields == ["tag"])
    }

    @Test func legacyConnectionByName() throws {
        let schema = try parse(
            """
            type Post @model { id: ID! comments: [Comment] @connection(name: "PostComments") }
            type Comment @model { id: ID! post: Post @connection(name: "PostComments") }
            """
        )
        #expect(schema.model(named: "Post")?.field(named: "comments")?.relation?.childKeyFields == ["commentPostId"])
        let post = try #require(schema.model(named: "Comment")?.field(named: "post")?.relation)
        #expect(post.kind == .belongsTo)
        #expect(post.targetNames == ["commentPostId"])
        #expect(post.associatedFields == ["comments"])
    }

    @Test func legacyKeys() throws {
        let schema = try parse(
            """
            type Item @model @key(fields: ["orderID", "sku"]) @key(name: "bySku", fields: ["sku"], queryField: "itemsBySku") {
              orderID: ID!
              sku: String!
            }
            """
        )
        let item = try #require(schema.model(named: "Item"))
        #expect(item.primaryKey == ["orderID", "sku"])
        #expect(item.indexes == [Index(name: "bySku", fields: ["sku"], queryField: "itemsBySku")])
        #expect(item.field(named: "id") == nil)
    }

    @Test func modelOptionsAndTimestamps() throws {
        let schema = try parse(
            """
            type Log @model(queries: { get: "log" }, mutations: null, subscriptions: null, timestamps: { createdAt: "loggedAt", updatedAt: null }) {
              message: String
            }
            """
        )
        let log = try #require(schema.model(named: "Log"))
        #expect(log.operations.get == "log")
        #expect(log.operations.list == "listLogs")
        #expect(log.operations.create == nil)
        #expect(log.operations.onCreate == nil)
        #expect(log.timestamps == Timestamps(createdAt: "loggedAt", updatedAt: nil))
        #expect(log.fields.map(\.name) == ["id", "message", "loggedAt"])
        #expect(log.field(named: "loggedAt")?.isReadOnly == true)
        #expect(log.primaryKey == ["id"])
    }

    @Test func authRulesTakeTheirDefaults() throws {
        let schema = try parse(
            """
            type Note @model @auth(rules: [{ allow: owner }, { allow: groups, groupsField: "editors" }, { allow: public }]) {
              id: ID!
            }
            """
        )
        let note = try #require(schema.model(named: "Note"))
        #expect(
            note.authRules == [
                AuthRuleDefinition(
                    allow: .owner,
                    provider: .userPools,
                    ownerField: "owner",
                    identityClaim: "sub::username",
                    groupClaim: nil,
                    groups: [],
                    groupsField: nil,
                    operations: [.create, .update, .delete, .read]
                ),
                AuthRuleDefinition(
                    allow: .groups,
                    provider: .userPools,
                    ownerField: nil,
                    identityClaim: nil,
                    groupClaim: "cognito:groups",
                    groups: [],
                    groupsField: "editors",
                    operations: [.create, .update, .delete, .read]
                ),
                AuthRuleDefinition(
                    allow: .public,
                    provider: .apiKey,
                    ownerField: nil,
                    identityClaim: nil,
                    groupClaim: nil,
                    groups: [],
                    groupsField: nil,
                    operations: [.create, .update, .delete, .read]
                ),
            ]
        )
        #expect(note.field(named: "owner")?.type.description == "String")
        #expect(note.field(named: "editors")?.type.description == "[String!]")
    }

    @Test func everyAWSScalarIsKnown() throws {
        let fields = Scalar.allCases.map { "  f\($0.rawValue): \($0.rawValue)" }.joined(separator: "\n")
        let schema = try parse("type All @model {\n  id: ID!\n\(fields)\n}")
        for scalar in Scalar.allCases {
            #expect(schema.model(named: "All")?.field(named: "f\(scalar.rawValue)")?.type.kind == .scalar(scalar))
        }
    }

    @Test func pluralsFollowEnglish() {
        #expect(Naming.plural("Post") == "Posts")
        #expect(Naming.plural("Category") == "Categories")
        #expect(Naming.plural("Address") == "Addresses")
        #expect(Naming.plural("Person") == "People")
        #expect(Naming.plural("Day") == "Days")
        #expect(Naming.plural("Box") == "Boxes")
        #expect(Naming.plural("PostTags") == "PostTags")
        #expect(Naming.plural("Status") == "Statuses")
    }

    @Test func v1KeyFieldNamesTheForeignKey() throws {
        let schema = try parse(
            """
            type Channel @model { id: ID! posts: [Post] @connection(name: "ChannelPosts", keyField: "channelId") }
            type Post @model { id: ID! channelId: ID channel: Channel @connection(name: "ChannelPosts", keyField: "channelId") }
            """
        )
        #expect(schema.model(named: "Channel")?.field(named: "posts")?.relation?.childKeyFields == ["channelId"])
        #expect(schema.model(named: "Post")?.field(named: "channel")?.relation?.targetNames == ["channelId"])
        #expect(schema.model(named: "Post")?.fields.filter(\.isImplicit).map(\.name) == ["createdAt", "updatedAt"])
    }
}
