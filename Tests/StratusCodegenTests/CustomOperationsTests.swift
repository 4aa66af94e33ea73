import Foundation
import StratusServer
import Testing

@testable import StratusCodegen

/// What `codegen statements`, `codegen types` and `codegen models` make of hand-written
/// operations, their input types and a union result (`Schemas/custom-operations.graphql`).
@Suite struct CustomOperationsTests {
    static func statements() throws -> GeneratedStatements {
        try GeneratedStatements(fixture: "custom-operations", conflictDetection: false)
    }

    @Test func handWrittenOperationsFollowTheModelOnes() throws {
        let statements = try Self.statements()
        #expect(
            statements.operationNames(in: "queries.graphql") == ["GetNote", "ListNotes", "Nearby", "Count", "Found"]
        )
        #expect(
            statements.operationNames(in: "mutations.graphql") == ["CreateNote", "UpdateNote", "DeleteNote", "Archive"]
        )
        #expect(
            statements.operationNames(in: "subscriptions.graphql")
                == ["OnCreateNote", "OnUpdateNote", "OnDeleteNote", "OnArchive"]
        )
    }

    @Test func queryWithInputAndDefaultArguments() throws {
        #expect(
            try Self.statements().operation("Nearby") == """
                query Nearby($input: NearbyInput!, $limit: Int = 20) {
                  nearby(input: $input, limit: $limit) {
                    total
                    items {
                      id
                      createdAt
                      text
                      updatedAt
                      __typename
                    }
                    __typename
                  }
                }
                """
        )
    }

    @Test func scalarResultHasNoSelectionSet() throws {
        #expect(try Self.statements().operation("Count") == "query Count {\n  count\n}")
    }

    @Test func unionResultSelectsEachMember() throws {
        #expect(
            try Self.statements().operation("Found") == """
                query Found($text: String) {
                  found(text: $text) {
                    ... on Note {
                      id
                      createdAt
                      text
                      updatedAt
                      __typename
                    }
                    ... on NearbyPage {
                      total
                      items {
                        id
                        createdAt
                        text
                        updatedAt
                        __typename
                      }
                      __typename
                    }
                  }
                }
                """
        )
    }

    @Test func mutationWithAListArgumentAndItsSubscription() throws {
        let statements = try Self.statements()
        #expect(
            statements.operation("Archive") == """
                mutation Archive($ids: [ID!]!) {
                  archive(ids: $ids) {
                    id
                    createdAt
                    text
                    updatedAt
                    __typename
                  }
                }
                """
        )
        #expect(
            statements.operation("OnArchive") == """
                subscription OnArchive {
                  onArchive {
                    id
                    createdAt
                    text
                    updatedAt
                    __typename
                  }
                }
                """
        )
    }

    /// `API.swift` from the API `stratus serve` derives and the generated statements.
    static func apiSwift() throws -> String {
        let schema = try SchemaParser().parse(try GeneratedStatements.fixture("custom-operations"))
        let configuration = ServerConfiguration(conflictDetection: false)
        let api = try APISchema(sdl: ServerAPI(schema: schema, configuration: configuration).sdl, fileName: "schema")
        let files = StatementsGenerator(conflictDetection: false).generate(schema)
        return try TypesGenerator().generate(
            schema: api,
            statements: files.map { StatementsFile(path: $0.path, text: $0.contents) }
        )
    }

    @Test func apiSwiftHasTheOperationsAndTheirInputs() throws {
        let swift = try Self.apiSwift()
        for name in [
            "NearbyQuery: GraphQLQuery", "ArchiveMutation: GraphQLMutation",
            "OnArchiveSubscription: GraphQLSubscription",
        ] {
            #expect(swift.contains("public struct \(name) {"), "API.swift has no \(name)")
        }
        #expect(
            swift.contains(
                """
                public struct NearbyInput: GraphQLMapConvertible {
                    public var graphQLMap: GraphQLMap

                    public init(point: PointInput, radius: Int? = nil, mood: Mood? = nil) {
                        graphQLMap = GraphQLMap(omittingNil: [
                            "point": point.jsonValue,
                            "radius": radius?.jsonValue,
                            "mood": mood?.jsonValue,
                        ])
                    }
                """
            )
        )
        #expect(
            swift.contains(
                """
                    public init(input: NearbyInput, limit: Int? = nil) {
                        self.input = input
                        self.limit = limit
                    }
                """
            )
        )
    }

    @Test func apiSwiftTellsUnionMembersApartByTypename() throws {
        #expect(
            try Self.apiSwift().contains(
                """
                        public struct Found: GraphQLSelectionSet {
                            public static let possibleTypes = ["Note", "NearbyPage"]

                            public static let selections: [any GraphQLSelection] = [
                                GraphQLTypeCase(
                                    variants: ["Note": AsNote.selections, "NearbyPage": AsNearbyPage.selections],
                                    default: [
                                        GraphQLField("__typename", type: .nonNull(.scalar(String.self))),
                                    ]
                                ),
                            ]
                """
            )
        )
    }

    /// `NearbyPage` holds models: it is a result, never a stored value.
    @Test func modelsLeaveTheOperationsAndResultTypesOut() throws {
        let schema = try SchemaParser().parse(try GeneratedStatements.fixture("custom-operations"))
        let files = try SwiftModelGenerator().generate(schema)
        #expect(files.map(\.path) == ["Mood.swift", "Note.swift", "Note+Schema.swift", "AmplifyModels.swift"])
    }

    @Test func modelsLeaveOutFieldsHoldingAModelWithoutARelation() throws {
        let schema = try SchemaParser().parse(
            "type Trip @model { id: ID! driver: Driver }\ntype Driver @model { id: ID! }"
        )
        let trip = try #require(try SwiftModelGenerator().generate(schema).first { $0.path == "Trip.swift" })
        #expect(!trip.contents.contains("driver"))
    }

    @Test func modelsRefuseTypesNamedLikeAmplifysOwn() {
        #expect(throws: SchemaError.self) {
            try SwiftModelGenerator().generate(SchemaParser().parse("type List @model { id: ID! }"))
        }
        do {
            _ = try SwiftModelGenerator().generate(
                try SchemaParser().parse(
                    "type AppList @model { id: ID! }\ntype List @model { id: ID! }",
                    fileName: "s.graphql"
                ),
                fileName: "s.graphql"
            )
            Issue.record("codegen models accepted a model named List")
        } catch {
            #expect(
                error.description
                    == "s.graphql:2:6: List: 'List' is a reserved name in the generated Swift models: they use Amplify's "
                    + "List, which this type would shadow. Rename the type to 'AppAppList', with every field that uses it."
            )
        }
    }
}
