import StratusCodegen
import Testing

/// Every kind of bad schema gets a message naming the type, the field, the line and column, and
/// what to do.
@Suite struct SchemaErrorTests {
    func problems(_ source: String) -> [String] {
        do {
            _ = try SchemaParser().parse(source, fileName: "schema.graphql")
            return []
        } catch {
            return error.description.split(separator: "\n").map(String.init)
        }
    }

    @Test func belongsToWithoutMatchingField() {
        let source = """
            type Post @model { id: ID! comments: [Comment] @hasMany }
            type Comment @model {
              id: ID!
              post: Post @belongsTo(fields: ["postID"])
            }
            """
        #expect(
            problems(source) == [
                "schema.graphql:4:14: Comment.post: @belongsTo(fields:) names 'postID', which Comment does not have. "
                    + "Add 'postID: ID' to Comment or name an existing field."
            ]
        )
    }

    @Test func unknownDirectiveSuggestsTheClosest() {
        let source = """
            type Post @modle {
              id: ID!
            }
            """
        let lines = problems(source)
        #expect(lines.count == 1)
        #expect(
            lines[0].hasPrefix(
                "schema.graphql:1:11: Post: unknown directive '@modle'. Did you mean '@model'? Supported directives: @auth, @aws_api_key"
            )
        )
    }

    @Test func unknownArgumentListsTheValidOnes() {
        let source = """
            type Post @model {
              id: ID!
              blogID: ID! @index(nam: "byBlog")
            }
            """
        #expect(
            problems(source) == [
                "schema.graphql:3:22: Post.blogID: @index has no argument 'nam'. Did you mean 'name'? Its arguments: name, sortKeyFields, queryField."
            ]
        )
    }

    @Test func hasManyToNonModel() {
        let source = """
            type Post @model {
              id: ID!
              addresses: [Address] @hasMany
            }
            type Address { street: String }
            """
        #expect(
            problems(source) == [
                "schema.graphql:3:24: Post.addresses: @hasMany needs a @model type, but 'addresses' has the non-model type 'Address'. "
                    + "Add @model to Address, or remove @hasMany and store it as a plain field."
            ]
        )
    }

    @Test func hasManyToEnum() {
        let source = """
            enum Color { RED }
            type Post @model { id: ID! colors: [Color] @hasMany }
            """
        #expect(
            problems(source).first?.contains(
                "Post.colors: @hasMany needs a @model type, but 'colors' has the enum 'Color'."
            ) == true
        )
    }

    @Test func duplicateType() {
        let source = """
            type Post @model { id: ID! }
            enum Status { A }
            type Post @model { id: ID! title: String }
            """
        #expect(
            problems(source) == [
                "schema.graphql:3:6: Post: the type 'Post' is declared twice (first at 1:6). Rename one of them or merge their fields."
            ]
        )
    }

    @Test(arguments: ["AWSDateTime", "ID", "String"])
    func scalarsEveryAPIHasCannotBeDeclared(name: String) {
        #expect(
            problems("type \(name) { id: ID }") == [
                "schema.graphql:1:6: \(name): '\(name)' is one of the scalars every AppSync API has, so the schema cannot "
                    + "declare it (Amplify's transformer refuses it too). Remove this declaration."
            ]
        )
    }

    @Test(arguments: ["Query", "Mutation", "Subscription"])
    func rootTypesCannotBeModels(name: String) {
        #expect(
            problems("type \(name) @model { id: ID! }") == [
                "schema.graphql:1:6: \(name): '\(name)' is a reserved type name and currently in use within the default "
                    + "schema element: it is the schema's \(name.lowercased()) type. Rename the @model type."
            ]
        )
    }

    @Test(arguments: ["_version", "_deleted", "_lastChangedAt", "__typename"])
    func reservedFieldNames(name: String) {
        #expect(
            problems("type Post @model {\n  id: ID!\n  \(name): Int\n}") == [
                "schema.graphql:3:3: Post.\(name): '\(name)' is reserved for sync metadata and GraphQL introspection. Rename the field."
            ]
        )
    }

    @Test func cycleOfNonModelTypes() {
        let source = """
            type Node {
              value: Int
              next: Link
            }
            type Link {
              target: Node!
            }
            type Tree @model { id: ID! root: Node }
            """
        #expect(
            problems(source) == [
                "schema.graphql:3:3: Node.next: Node.next → Link.target → Node is a cycle of non-model types held by value, "
                    + "which cannot be generated (a Swift struct cannot contain itself). Make one of these fields a list, "
                    + "or make one of the types a @model and use a relation."
            ]
        )
    }

    @Test func selfListIsNotACycle() {
        #expect(problems("type Node { children: [Node] }\ntype T @model { id: ID! node: Node }").isEmpty)
    }

    @Test func unknownTypeSuggestsTheClosest() {
        #expect(
            problems("type Post @model {\n  id: ID!\n  at: AWSDatetime\n}") == [
                "schema.graphql:3:7: Post.at: the type 'AWSDatetime' is not declared. Did you mean 'AWSDateTime'? "
                    + "Declare it, or use a GraphQL or AWS scalar."
            ]
        )
    }

    @Test func syntaxErrorsKeepTheirPosition() {
        let lines = problems("type Post @model {\n  id: ID!\n  title String\n}")
        #expect(lines.count == 1)
        #expect(lines[0].hasPrefix("schema.graphql:3:9: "))
        #expect(lines[0].hasSuffix("Fix the GraphQL syntax at this position."))
    }

    @Test func manyToManyNeedsBothSides() {
        let source = """
            type Post @model { id: ID! tags: [Tag] @manyToMany(relationName: "PostTags") }
            type Tag @model { id: ID! }
            """
        #expect(
            problems(source) == [
                "schema.graphql:1:40: Post.tags: Tag has no field with @manyToMany(relationName: \"PostTags\") pointing back to Post. "
                    + "Add 'posts: [Post] @manyToMany(relationName: \"PostTags\")' to Tag."
            ]
        )
    }

    @Test func missingIndexForHasMany() {
        let source = """
            type Post @model { id: ID! comments: [Comment] @hasMany(indexName: "byPost", fields: ["id"]) }
            type Comment @model { id: ID! postID: ID! }
            """
        #expect(
            problems(source) == [
                "schema.graphql:1:48: Post.comments: @hasMany uses the index 'byPost', which Comment does not have. "
                    + "Add @index(name: \"byPost\") to the field of Comment that holds the Post's id."
            ]
        )
    }

    @Test func modelFieldWithoutRelationIsAWarning() throws {
        let schema = try SchemaParser().parse("type Post @model { id: ID! blog: Blog }\ntype Blog @model { id: ID! }")
        #expect(schema.model(named: "Post")?.field(named: "blog")?.relation == nil)
        #expect(
            schema.warnings.map(\.description) == [
                "1:28: Post.blog: the field holds the @model type 'Blog' without a relation directive, so nothing "
                    + "stores or resolves it: it reads as null, it is not in the mutation inputs, and the generated "
                    + "Swift models leave it out. Add the appropriate @hasOne/@belongsTo directive if you want to "
                    + "connect them."
            ]
        )
    }

    @Test func nullablePrimaryKey() {
        #expect(
            problems("type Post @model { slug: String @primaryKey }") == [
                "schema.graphql:1:20: Post.slug: primary key fields must be non-null. Write 'slug: String!'."
            ]
        )
    }

    @Test func misplacedDirective() {
        #expect(
            problems("type Post @model { id: ID! @model }") == [
                "schema.graphql:1:28: Post.id: @model belongs on a type, not on a field. Move it."
            ]
        )
    }

    @Test func everyProblemIsReportedInSourceOrder() {
        let source = """
            type Post @model {
              id: ID!
              a: Strin
              b: Int @unknown
            }
            """
        let lines = problems(source)
        #expect(lines.count == 2)
        #expect(
            lines[0].hasPrefix("schema.graphql:3:6: Post.a: the type 'Strin' is not declared. Did you mean 'String'?")
        )
        #expect(lines[1].hasPrefix("schema.graphql:4:10: Post.b: unknown directive '@unknown'."))
    }
}
