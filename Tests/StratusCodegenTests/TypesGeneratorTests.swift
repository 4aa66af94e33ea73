import Foundation
import Testing

@testable import StratusCodegen

/// `TypesGenerator` on small schemas: the exact Swift written, names, and the errors that
/// name a file, line and column.
@Suite struct TypesGeneratorTests {
    static let sdl = """
        type Query {
          note(id: ID!): Note
          notes(limit: Int): [Note]
        }
        type Note {
          id: ID!
          status: Status!
          updatedAt: AWSDateTime
          version: AWSTimestamp
          snapshot: String
        }
        enum Status {
          ACTIVE
          IN_REVIEW
        }
        scalar AWSDateTime
        scalar AWSTimestamp
        """

    func generate(_ statements: String, sdl: String = sdl) throws(TypesError) -> String {
        let schema = try APISchema(sdl: sdl, fileName: "schema.graphql")
        return try TypesGenerator().generate(
            schema: schema,
            statements: [StatementsFile(path: "queries.graphql", text: statements)]
        )
    }

    func problems(_ statements: String) -> [String] {
        do {
            _ = try generate(statements)
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }

    @Test func writesAnOperationWithItsNestedStructAndEnum() throws {
        let swift = try generate(
            "query GetNote($id: ID!) {\n  note(id: $id) {\n    id\n    status\n    updatedAt\n    version\n  }\n}\n"
        )
        #expect(
            swift.contains(
                """
                public enum Status: RawRepresentable, Equatable, Hashable, Sendable, JSONDecodable, JSONEncodable {
                    public typealias RawValue = String
                    case active
                    case inReview
                    /// A value this version of the API did not have.
                    case unknown(RawValue)

                    public init?(rawValue: RawValue) {
                        switch rawValue {
                        case "ACTIVE": self = .active
                        case "IN_REVIEW": self = .inReview
                        default: self = .unknown(rawValue)
                        }
                    }
                """
            )
        )
        #expect(
            swift.contains(
                """
                public struct GetNoteQuery: GraphQLQuery {
                    public static let operationName = "GetNote"

                    public static let operationString = \"""
                        query GetNote($id: ID!) {
                          note(id: $id) {
                            __typename
                            id
                            status
                            updatedAt
                            version
                          }
                        }
                        \"""

                    public var id: GraphQLID

                    public init(id: GraphQLID) {
                        self.id = id
                    }
                """
            )
        )
        #expect(
            swift.contains(
                "            public init(id: GraphQLID, status: Status, updatedAt: String? = nil, version: Int? = nil) {"
            )
        )
        #expect(swift.contains("                    \"__typename\": \"Note\","))
        #expect(
            swift.contains(
                "GraphQLField(\"note\", arguments: [\"id\": GraphQLVariable(\"id\")], type: .object(Note.selections)),"
            )
        )
    }

    @Test func namesListStructsInTheSingular() throws {
        let swift = try generate("query ListNotes {\n  notes(limit: 5) {\n    id\n  }\n}\n")
        #expect(swift.contains("public struct ListNotesQuery: GraphQLQuery {"))
        #expect(swift.contains("public var notes: [Note?]? {"))
        #expect(
            swift.contains(
                "GraphQLField(\"notes\", arguments: [\"limit\": JSONValue.integer(5)], type: .list(.object(Note.selections))),"
            )
        )
        #expect(swift.contains("public init() {}"))
    }

    /// The delta sync guide reads `deltaPost?.awsDs == DeltaAction.delete`: field names with
    /// underscores are camel-cased as the AppSync SDK's code generation wrote them, while the
    /// snapshot keeps the wire name; a camel case that another field spells keeps the field's own.
    @Test func camelCasesUnderscoredFieldNamesUnlessTheyClash() throws {
        let sdl = """
            type Query { listPostsDelta(lastSync: AWSTimestamp): [Post] }
            type Post { id: ID! version: Int! _version: Int _deleted: Boolean aws_ds: DeltaAction }
            enum DeltaAction { DELETE }
            scalar AWSTimestamp
            """
        let swift = try generate(
            "query ListPostsDelta {\n  listPostsDelta {\n    __typename\n    id\n    version\n    _version\n    _deleted\n    aws_ds\n  }\n}\n",
            sdl: sdl
        )
        #expect(swift.contains("public var awsDs: DeltaAction? {\n                get { snapshot[field: \"aws_ds\"] }"))
        #expect(swift.contains("public var deleted: Bool? {\n                get { snapshot[field: \"_deleted\"] }"))
        #expect(swift.contains("public var version: Int {\n                get { snapshot[field: \"version\"] }"))
        #expect(swift.contains("public var _version: Int? {\n                get { snapshot[field: \"_version\"] }"))
        #expect(swift.contains("public var __typename: String {"))
        // The memberwise init, one parameter a line as it is long.
        #expect(
            swift.contains(
                """
                    id: GraphQLID,
                                version: Int,
                                _version: Int? = nil,
                                deleted: Bool? = nil,
                                awsDs: DeltaAction? = nil
                """
            )
        )
        #expect(swift.contains("\"aws_ds\": awsDs.jsonValue"))
    }

    @Test(arguments: [
        ("listTodos", "listTodo"), ("items", "item"), ("categories", "category"), ("addresses", "address"),
        ("status", "status"), ("statuses", "status"), ("people", "person"), ("boxes", "box"), ("data", "data"),
        ("postsByBlog", "postsByBlog"), ("allTags", "allTag"), ("wishes", "wish"), ("movies", "movie"),
    ])
    func singularizesTheLastWord(plural: String, singular: String) {
        #expect(Naming.singular(plural) == singular)
    }

    @Test func problemsNameTheirFileLineAndColumn() {
        #expect(
            problems("query {\n  note(id: \"1\") {\n    id\n  }\n}\n") == [
                "queries.graphql:1:1: The operation has no name. Name it (query ListTodos { … }): the generated type is named after it."
            ]
        )
        #expect(
            problems("query GetNote {\n  note(id: \"1\") {\n    snapshot\n  }\n}\n") == [
                "queries.graphql:3:5: The field 'snapshot' would hide the selection set's 'snapshot'. "
                    + "Give it an alias (snapshotValue: snapshot)."
            ]
        )
        #expect(
            problems("query GetNote {\n  note(id: \"1\") {\n    ... on Note {\n      id\n    }\n  }\n}\n").isEmpty
        )
        #expect(
            problems("query GetNote($id: ID!) {\n  note(id: $id) {\n    idd\n  }\n}\n") == [
                "queries.graphql:3:5: Cannot query field \"idd\" on type \"Note\". Did you mean \"id\"?"
            ]
        )
    }

    /// GraphQLSwift's validation traps on two identical operations; they are refused first.
    @Test func aStatementWrittenTwiceIsAProblemNotATrap() {
        let statement = "query GetNote {\n  note(id: \"1\") {\n    id\n  }\n}\n"
        #expect(
            problems(statement + statement) == [
                #"queries.graphql:1:7: There can be only one operation named "GetNote"."#
            ]
        )
    }

    @Test func inlineFragmentsOnOtherTypesBecomeTypeCases() throws {
        let sdl = """
            type Query { node: Node }
            interface Node { id: ID! }
            type Note implements Node { id: ID! text: String }
            type Task implements Node { id: ID! done: Boolean! }
            """
        let swift = try generate(
            "query GetNode {\n  node {\n    id\n    ... on Note {\n      text\n    }\n    ... on Task {\n      done\n    }\n  }\n}\n",
            sdl: sdl
        )
        #expect(
            swift.contains(
                """
                            public static let selections: [any GraphQLSelection] = [
                                GraphQLTypeCase(
                                    variants: ["Note": AsNote.selections, "Task": AsTask.selections],
                                    default: [
                                        GraphQLField("__typename", type: .nonNull(.scalar(String.self))),
                                        GraphQLField("id", type: .nonNull(.scalar(GraphQLID.self))),
                                    ]
                                ),
                            ]
                """
            )
        )
        #expect(swift.contains("            public var asTask: AsTask? {"))
        #expect(swift.contains("                public init(id: GraphQLID, done: Bool) {"))
        do {
            _ = try generate(
                "query GetNode($x: Boolean!) {\n  node {\n    id\n    ... on Note @include(if: $x) {\n      text\n    }\n  }\n}\n",
                sdl: sdl
            )
            Issue.record("a conditional type case was accepted")
        } catch {
            #expect(
                error.description
                    == "queries.graphql:4:5: An inline fragment on another type (... on Note) under @include or @skip "
                    + "is not supported. Move the condition to the fields inside it."
            )
        }
    }

    @Test func anIntrospectionResultBuildsTheSameSchemaAsItsSDL() throws {
        let json = """
            {"data": {"__schema": {"queryType": {"name": "Query"}, "mutationType": null, "subscriptionType": null,
              "types": [
                {"kind": "OBJECT", "name": "Query", "fields": [{"name": "hello", "args": [
                  {"name": "to", "type": {"kind": "NON_NULL", "name": null, "ofType": {"kind": "SCALAR", "name": "String", "ofType": null}}, "defaultValue": "\\"you\\""}
                ], "type": {"kind": "SCALAR", "name": "String", "ofType": null}}], "interfaces": []},
                {"kind": "SCALAR", "name": "String"},
                {"kind": "OBJECT", "name": "__Type", "fields": []}
              ]}}}
            """
        let schema = try APISchema(introspection: Data(json.utf8), fileName: "schema.json")
        #expect(
            schema.sdl == "schema {\n  query: Query\n}\n\ntype Query {\n  hello(to: String! = \"you\"): String\n}\n"
        )
        #expect(throws: TypesError.self) { try APISchema(introspection: Data("{}".utf8), fileName: "schema.json") }
    }

    @Test func annotatedSchemasAreToldFromAPISchemas() {
        #expect(APISchema.isAnnotated("type Todo @model {\n  id: ID!\n}\n"))
        #expect(!APISchema.isAnnotated(Self.sdl))
    }

    /// GraphQLSwift joins its SDL validation problems without places; each gets its node's
    /// line and column again, the same message twice its second node.
    @Test func invalidSDLNamesTheLineAndColumnOfEachProblem() {
        let sdl = """
            directive @x(a: Int) on FIELD_DEFINITION
            type Query {
              note(id: ID!): Note @x(b: 1)
              other: Note @skip(if: true)
              again: Note @unknown
              more: Note @unknown
            }
            type Note @x {
              id: ID!
              kind: Kind
            }
            """
        #expect(throws: TypesError.self) { try APISchema(sdl: sdl, fileName: "schema.graphql") }
        do {
            _ = try APISchema(sdl: sdl, fileName: "schema.graphql")
        } catch {
            #expect(
                error.problems.map(\.description).sorted() == [
                    #"schema.graphql:10:9: Unknown type "Kind"."#,
                    #"schema.graphql:3:26: Unknown argument "b" on directive "@x". Did you mean "a"?"#,
                    #"schema.graphql:4:15: Directive "@skip" may not be used on FIELD_DEFINITION."#,
                    #"schema.graphql:5:15: Unknown directive "@unknown"."#,
                    #"schema.graphql:6:14: Unknown directive "@unknown"."#,
                    #"schema.graphql:8:11: Directive "@x" may not be used on OBJECT."#,
                ]
            )
        }
    }
}
