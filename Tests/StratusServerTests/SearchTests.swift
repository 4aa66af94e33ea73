import Foundation
import StratusCodegen
import StratusServer
import Testing

/// `@searchable` models' `search<Plural>` query: the types the Amplify searchable transformer
/// generates, answered from the store without a search engine.
@Suite struct SearchTests {
    static let schema = """
        type Todo @model @searchable {
          id: ID!
          name: String!
          description: String
          points: Int
          category: Category
        }

        enum Category { WORK HOME }

        type Diary @model @searchable @auth(rules: [{ allow: owner }]) {
          id: ID!
          text: String!
        }
        """

    static let todos: [JSON] = [
        ["id": "t1", "name": "Buy milk", "description": "at the corner shop", "points": 3, "category": "HOME"],
        ["id": "t2", "name": "Write report", "description": "quarterly numbers", "points": 8, "category": "WORK"],
        ["id": "t3", "name": "Buy stamps", "points": 1, "category": "HOME"],
        ["id": "t4", "name": "Review code", "description": "the search feature", "points": 5, "category": "WORK"],
        ["id": "t5", "name": "Water plants", "category": "HOME"],
    ]

    static func server(conflictDetection: Bool = false) async throws -> TestServer {
        let server = try await TestServer(
            schema,
            configuration: ServerConfiguration(conflictDetection: conflictDetection)
        )
        for todo in todos {
            let body = await server.json(
                "mutation C($input: CreateTodoInput!) { createTodo(input: $input) { id } }",
                ["input": todo]
            )
            #expect(body["errors"] == nil, "\(body.text)")
        }
        return server
    }

    static let search = """
        query S($filter: SearchableTodoFilterInput, $sort: [SearchableTodoSortInput], $limit: Int,
                $nextToken: String, $from: Int, $aggregates: [SearchableTodoAggregationInput]) {
          searchTodos(filter: $filter, sort: $sort, limit: $limit, nextToken: $nextToken, from: $from,
                      aggregates: $aggregates) {
            items { id }
            total
          }
        }
        """

    static func ids(_ body: JSON) -> [String] {
        (body["data"]?["searchTodos"]?["items"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
    }

    // MARK: - SDL

    @Test func theSDLHasTheTransformersTypes() throws {
        let api = ServerAPI(
            schema: try SchemaParser().parse(
                """
                type Employee @model @searchable {
                  id: ID!
                  firstName: String!
                  lastName: String!
                  type: EmploymentType!
                }

                enum EmploymentType { FULLTIME HOURLY }
                """
            ),
            configuration: ServerConfiguration(conflictDetection: false)
        )
        let expected = [
            """
            type SearchableEmployeeConnection {
              items: [Employee]!
              nextToken: String
              total: Int
              aggregateItems: [SearchableAggregateResult]!
            }
            """,
            """
            type SearchableAggregateResult {
              name: String!
              result: SearchableAggregateGenericResult
            }
            """,
            "union SearchableAggregateGenericResult = SearchableAggregateScalarResult | SearchableAggregateBucketResult",
            """
            input SearchableStringFilterInput {
              ne: String
              gt: String
              lt: String
              gte: String
              lte: String
              eq: String
              match: String
              matchPhrase: String
              matchPhrasePrefix: String
              multiMatch: String
              exists: Boolean
              wildcard: String
              regexp: String
              range: [String]
            }
            """,
            """
            input SearchableIntFilterInput {
              ne: Int
              gt: Int
              lt: Int
              gte: Int
              lte: Int
              eq: Int
              range: [Int]
            }
            """,
            """
            input SearchableBooleanFilterInput {
              eq: Boolean
              ne: Boolean
            }
            """,
            """
            input SearchableEmployeeFilterInput {
              id: SearchableIDFilterInput
              firstName: SearchableStringFilterInput
              lastName: SearchableStringFilterInput
              createdAt: SearchableStringFilterInput
              updatedAt: SearchableStringFilterInput
              type: SearchableStringFilterInput
              and: [SearchableEmployeeFilterInput]
              or: [SearchableEmployeeFilterInput]
              not: SearchableEmployeeFilterInput
            }
            """,
            """
            enum SearchableSortDirection {
              asc
              desc
            }
            """,
            """
            enum SearchableEmployeeSortableFields {
              id
              firstName
              lastName
              createdAt
              updatedAt
            }
            """,
            """
            input SearchableEmployeeSortInput {
              field: SearchableEmployeeSortableFields
              direction: SearchableSortDirection
            }
            """,
            """
            enum SearchableAggregateType {
              terms
              avg
              min
              max
              sum
              cardinality
            }
            """,
            """
            enum SearchableEmployeeAggregateField {
              id
              firstName
              lastName
              type
              createdAt
              updatedAt
            }
            """,
            """
            input SearchableEmployeeAggregationInput {
              name: String!
              type: SearchableAggregateType!
              field: SearchableEmployeeAggregateField!
            }
            """,
            "  searchEmployees(filter: SearchableEmployeeFilterInput, sort: [SearchableEmployeeSortInput], "
                + "limit: Int, nextToken: String, from: Int, aggregates: [SearchableEmployeeAggregationInput]): "
                + "SearchableEmployeeConnection\n  getEmployee(id: ID!): Employee",
        ]
        for block in expected {
            #expect(api.sdl.contains(block), "the SDL lacks:\n\(block)")
        }
    }

    @Test func withConflictDetectionTheSyncMetadataFilters() throws {
        let sdl = ServerAPI(schema: try SchemaParser().parse(Self.schema)).sdl
        #expect(
            sdl.contains(
                """
                  updatedAt: SearchableStringFilterInput
                  _version: SearchableIntFilterInput
                  _deleted: SearchableBooleanFilterInput
                  _lastChangedAt: SearchableIntFilterInput
                  category: SearchableStringFilterInput
                  and: [SearchableTodoFilterInput]
                """
            ),
            "\(sdl)"
        )
    }

    /// The `searchTodos` statement `amplify codegen` writes into `queries.js`.
    static let amplifyStatement = """
        query SearchTodos(
          $filter: SearchableTodoFilterInput
          $sort: [SearchableTodoSortInput]
          $limit: Int
          $nextToken: String
          $from: Int
          $aggregates: [SearchableTodoAggregationInput]
        ) {
          searchTodos(
            filter: $filter
            sort: $sort
            limit: $limit
            nextToken: $nextToken
            from: $from
            aggregates: $aggregates
          ) {
            items {
              id
              name
              description
              points
              category
              createdAt
              updatedAt
            }
            nextToken
            total
            aggregateItems {
              name
              result {
                ... on SearchableAggregateScalarResult {
                  __typename
                  value
                }
                ... on SearchableAggregateBucketResult {
                  __typename
                  buckets {
                    doc_count
                    key
                  }
                }
              }
            }
          }
        }
        """

    @Test func graphQLCoreValidatesTheAmplifyStatementAgainstTheSDL() async throws {
        for conflictDetection in [true, false] {
            let sdl = ServerAPI(
                schema: try SchemaParser().parse(Self.schema),
                configuration: ServerConfiguration(conflictDetection: conflictDetection)
            ).sdl
            let result = try await runPython(
                """
                import json, sys
                from graphql import build_schema, parse, validate
                request = json.load(sys.stdin)
                problems = [str(error) for error in validate(build_schema(request["sdl"]), parse(request["document"]))]
                print("\\n".join(problems))
                sys.exit(1 if problems else 0)
                """,
                input: JSON.object(["sdl": .string(sdl), "document": .string(Self.amplifyStatement)]).text
            )
            #expect(result.status == 0, "the statement does not validate: \(result.output)")
        }
    }

    // MARK: - Search

    @Test func filterSortLimitAndTotal() async throws {
        let server = try await Self.server()
        let body = await server.run(
            Self.search,
            [
                "filter": ["or": [["name": ["matchPhrasePrefix": "Buy"]], ["points": ["gte": 5]]]],
                "sort": [["field": "points", "direction": "asc"]],
                "limit": 3,
            ]
        )
        #expect(
            body
                == #"{"data":{"searchTodos":{"items":[{"id":"t3"},{"id":"t1"},{"id":"t4"}],"total":4}}}"#
        )
    }

    @Test func nextTokenContinuesAfterTheLastItemUntilAnEmptyPage() async throws {
        let server = try await Self.server(conflictDetection: true)
        let query = """
            query S($limit: Int, $nextToken: String) {
              searchTodos(sort: [{field: name, direction: asc}], limit: $limit, nextToken: $nextToken) {
                items { id } nextToken total
              }
            }
            """
        var seen: [String] = []
        var token: JSON = .null
        var pages = 0
        repeat {
            let body = await server.json(query, ["limit": 2, "nextToken": token])
            #expect(body["errors"] == nil, "\(body.text)")
            #expect(body["data"]?["searchTodos"]?["total"] == 5)
            seen += Self.ids(body)
            token = body["data"]?["searchTodos"]?["nextToken"] ?? .null
            pages += 1
        } while !token.isNull && pages < 10
        // Buy milk, Buy stamps, Review code, Water plants, Write report; the fourth page is empty,
        // as OpenSearch's search_after gives it.
        #expect(seen == ["t1", "t3", "t4", "t5", "t2"])
        #expect(pages == 4)
    }

    @Test func withoutSortTheKeyOrdersDescendingAndFromSkips() async throws {
        let server = try await Self.server()
        let body = await server.json(Self.search, ["from": 1, "limit": 2])
        #expect(Self.ids(body) == ["t4", "t3"])
    }

    @Test func termsAndScalarAggregationsCoverEveryMatch() async throws {
        let server = try await Self.server()
        let body = await server.run(
            """
            query {
              searchTodos(limit: 1, aggregates: [
                {name: "byCategory", type: terms, field: category},
                {name: "average", type: avg, field: points},
                {name: "most", type: max, field: points},
                {name: "names", type: cardinality, field: name}
              ]) {
                total
                aggregateItems {
                  name
                  result {
                    ... on SearchableAggregateScalarResult { __typename value }
                    ... on SearchableAggregateBucketResult { __typename buckets { key doc_count } }
                  }
                }
              }
            }
            """
        )
        #expect(
            body
                == #"{"data":{"searchTodos":{"total":5,"aggregateItems":["#
                + #"{"name":"byCategory","result":{"__typename":"SearchableAggregateBucketResult","#
                + #""buckets":[{"key":"HOME","doc_count":3},{"key":"WORK","doc_count":2}]}},"#
                + #"{"name":"average","result":{"__typename":"SearchableAggregateScalarResult","value":4.25}},"#
                + #"{"name":"most","result":{"__typename":"SearchableAggregateScalarResult","value":8.0}},"#
                + #"{"name":"names","result":{"__typename":"SearchableAggregateScalarResult","value":5.0}}]}}}"#
        )
    }

    @Test func textOperatorsMatchWordsAndWildcardsPrefixesAndSubstrings() async throws {
        let server = try await Self.server()
        let cases: [(JSON, [String])] = [
            (["description": ["match": "search"]], ["t4"]),
            (["name": ["match": "MILK report"]], ["t2", "t1"]),
            (["name": ["match": "rep"]], []),
            (["name": ["multiMatch": "plants"]], ["t5"]),
            (["name": ["matchPhrase": "buy milk"]], ["t1"]),
            (["name": ["matchPhrase": "milk buy"]], []),
            (["name": ["matchPhrasePrefix": "buy st"]], ["t3"]),
            (["not": ["name": ["match": "buy"]]], ["t5", "t4", "t2"]),
            (["or": [["name": ["match": "water"]], ["points": ["gt": 6]]]], ["t5", "t2"]),
            (["name": ["wildcard": "Buy*"]], ["t3", "t1"]),
            (["name": ["wildcard": "*port*"]], ["t2"]),
            (["description": ["exists": false]], ["t5", "t3"]),
            (["points": ["range": [3, 5]]], ["t4", "t1"]),
            (["category": ["eq": "WORK"], "not": ["points": ["lt": 6]]], ["t2"]),
        ]
        for (filter, ids) in cases {
            let body = await server.json(Self.search, ["filter": filter])
            #expect(body["errors"] == nil, "\(body.text)")
            #expect(Self.ids(body) == ids, "\(filter.text)")
        }
    }

    @Test func regexpAndOtherWildcardsAreRefused() async throws {
        let server = try await Self.server()
        let regexp = await server.json(Self.search, ["filter": ["name": ["regexp": "B.*"]]])
        #expect(
            regexp["errors"]?[0]?["message"]?.stringValue
                == "The filter of 'name' uses 'regexp', which the local server does not evaluate (it has no search "
                + "engine). Use 'wildcard' with a prefix ('abc*') or a substring ('*abc*'), or 'match'."
        )
        let wildcard = await server.json(Self.search, ["filter": ["name": ["wildcard": "B?y*"]]])
        #expect(
            wildcard["errors"]?[0]?["message"]?.stringValue
                == "The local server evaluates 'wildcard' patterns of the forms 'abc*', '*abc*', '*' and 'abc'; "
                + "'B?y*' on 'name' is none of them. Rewrite it as one of these, or combine several with 'and'."
        )
    }

    @Test func ownersSearchOnlyTheirItems() async throws {
        let server = try await TestServer(Self.schema)
        for (user, id) in [(AuthRulesTests.alice, "a1"), (AuthRulesTests.bob, "b1"), (AuthRulesTests.alice, "a2")] {
            let body = await server.run(
                #"mutation { createDiary(input: {id: "\#(id)", text: "day"}) { id } }"#,
                identity: user
            )
            #expect(body == #"{"data":{"createDiary":{"id":"\#(id)"}}}"#)
        }
        let query = #"query { searchDiaries(filter: {text: {eq: "day"}}) { items { id owner } total } }"#
        #expect(
            await server.run(query, identity: AuthRulesTests.alice)
                == #"{"data":{"searchDiaries":{"items":[{"id":"a2","owner":"sub-alice::alice"},"#
                + #"{"id":"a1","owner":"sub-alice::alice"}],"total":2}}}"#
        )
        #expect(
            await server.run(query, identity: AuthRulesTests.bob)
                == #"{"data":{"searchDiaries":{"items":[{"id":"b1","owner":"sub-bob::bob"}],"total":1}}}"#
        )
        #expect(
            await server.run(query)
                == #"{"data":{"searchDiaries":null},"errors":[{"path":["searchDiaries"],"data":null,"#
                + #""errorType":"Unauthorized","errorInfo":null,"locations":[{"line":1,"column":9,"#
                + #""sourceName":null}],"message":"Not Authorized to access searchDiaries on type Query"}]}"#
        )
    }

    @Test func pagingErrorsSayWhatToDo() async throws {
        let server = try await Self.server()
        let cases: [(JSONObject, String)] = [
            (["nextToken": "abc"], "Invalid pagination token given."),
            (
                ["from": 9950, "limit": 100],
                "Result window is too large, from + size must be less than or equal to: [10000] but was [10050]. "
                    + "Page with nextToken instead of from."
            ),
            (["limit": -1], "'limit' must be 0 or more; it is -1."),
        ]
        for (variables, message) in cases {
            let body = await server.json(Self.search, variables)
            #expect(body["errors"]?[0]?["message"]?.stringValue == message, "\(JSON.object(variables).text)")
        }
        let first = await server.json(Self.search.replacingOccurrences(of: "total", with: "nextToken"), ["limit": 1])
        let token = try #require(first["data"]?["searchTodos"]?["nextToken"])
        let both = await server.json(Self.search, ["limit": 1, "from": 1, "nextToken": token])
        #expect(
            both["errors"]?[0]?["message"]?.stringValue
                == "'from' must be 0 when 'nextToken' is given, as OpenSearch requires."
        )
    }

    @Test func aggregationsOfAGuardedFieldCountOnlyWhatTheCallerMayRead() async throws {
        let server = try await TestServer(
            """
            type Review @model @searchable
              @auth(rules: [{ allow: owner }, { allow: private, operations: [read] }, { allow: public, operations: [read] }]) {
              id: ID!
              score: Int
              secret: String @auth(rules: [{ allow: owner }])
            }
            """
        )
        for (user, id, secret) in [
            (AuthRulesTests.alice, "r1", "x"), (AuthRulesTests.bob, "r2", "y"), (AuthRulesTests.bob, "r3", "x"),
        ] {
            let body = await server.run(
                #"mutation { createReview(input: {id: "\#(id)", score: 4, secret: "\#(secret)"}) { id } }"#,
                identity: user
            )
            #expect(body == #"{"data":{"createReview":{"id":"\#(id)"}}}"#)
        }
        let query = """
            query {
              searchReviews(aggregates: [{name: "s", type: terms, field: secret}, {name: "n", type: sum, field: score}]) {
                total
                aggregateItems {
                  name
                  result {
                    ... on SearchableAggregateScalarResult { value }
                    ... on SearchableAggregateBucketResult { buckets { key doc_count } }
                  }
                }
              }
            }
            """
        #expect(
            await server.run(query, identity: AuthRulesTests.alice)
                == #"{"data":{"searchReviews":{"total":3,"aggregateItems":[{"name":"s","result":{"buckets":"#
                + #"[{"key":"x","doc_count":1}]}},{"name":"n","result":{"value":12.0}}]}}}"#
        )
        #expect(
            await server.run(query)
                == #"{"data":{"searchReviews":null},"errors":[{"path":["searchReviews"],"data":null,"#
                + #""errorType":"Unauthorized","errorInfo":null,"locations":[{"line":2,"column":3,"#
                + #""sourceName":null}],"message":"Unauthorized to run aggregation on field: secret"}]}"#
        )
    }

    @Test func aTombstoneIsNotFound() async throws {
        let server = try await Self.server(conflictDetection: true)
        let deleted = await server.json(
            #"mutation { deleteTodo(input: {id: "t1", _version: 1}) { id _deleted } }"#
        )
        #expect(deleted["errors"] == nil, "\(deleted.text)")
        let body = await server.json(Self.search, ["filter": ["name": ["match": "Buy"]]])
        #expect(Self.ids(body) == ["t3"])
    }
}
