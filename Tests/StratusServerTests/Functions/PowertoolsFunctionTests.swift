import Foundation
import StratusServer
import StratusTesting
import Testing

/// A function written with Powertools for AWS Lambda's `AppSyncResolver` and run by
/// `awslambdaric` (both from PyPI, Tests/requirements.txt), answering a hand-written query that
/// gql sends over HTTP: the event, the result and the error are the ones AppSync would give.
@Suite struct PowertoolsFunctionTests {
    static let interop = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Interop")

    @Test func aPowertoolsResolverUnderAwslambdaricAnswersGql() async throws {
        let schema = """
            type Note @model { id: ID! }
            type Weather { summary: String city: String process: Int apiKey: String selection: String }
            type Query {
              weather(city: String!): Weather @function(name: "weather-${env}")
              forecast(city: String!): Weather
            }
            """
        let configuration = ServerConfiguration(
            environmentName: "dev",
            functions: [
                "weather-dev": LocalFunction(
                    handler: .runtime(["python3", "-m", "awslambdaric", "app.handler"], concurrency: 1),
                    workingDirectory: Self.interop.appending(path: "powertools_function"),
                    timeout: .seconds(20)
                )
            ],
            resolvers: ["Query.forecast": .function("weather-dev")]
        )
        try await HTTPEndpointTests.withEndpoint(schema: schema, configuration: configuration) { url in
            let result = try await ChildProcess.run(
                [
                    "python3", Self.interop.appending(path: "gql_query.py").path, url.absoluteString,
                    "\(url.host!):\(url.port!)", "da2-valid",
                    #"{ weather(city: "Oslo") { summary city process apiKey } }"#,
                    #"{ weather(city: "Bergen") { process } }"#,
                    #"{ weather(city: "Atlantis") { summary } }"#,
                    #"{ forecast(city: "Oslo") { summary selection } }"#,
                ]
            )
            try #require(
                result.status == .exited(0),
                "install them with: python3 -m pip install -r Tests/requirements.txt\n\(result.errorText)"
            )
            let answers = try JSON(parsing: result.outputText)
            let oslo = answers[0]?["data"]?["weather"]
            #expect(oslo?["summary"] == "Sunny in Oslo")
            #expect(oslo?["city"] == "Oslo")
            #expect(oslo?["apiKey"] == "da2-valid")
            // One process answered both.
            #expect(oslo?["process"] != nil && answers[1]?["data"]?["weather"]?["process"] == oslo?["process"])
            #expect(
                answers[2]?["errors"]
                    == [
                        [
                            "path": ["weather"], "data": nil, "errorType": "Lambda:Unhandled", "errorInfo": nil,
                            // gql sends the document printed: `query {` on line 1.
                            "locations": [["line": 2, "column": 3, "sourceName": nil]],
                            "message": "No weather for Atlantis",
                        ]
                    ],
                "\(answers)"
            )
            #expect(answers[3]?["data"] == ["forecast": ["summary": "Rain in Oslo", "selection": "summary,selection"]])
        }
    }

    @Test func aPowertoolsBatchResolverAnswersAFieldOfAList() async throws {
        let schema = """
            type Post @model { id: ID! title: String summary: String }
            """
        let configuration = ServerConfiguration(
            functions: [
                "summaries": LocalFunction(
                    handler: .runtime(["python3", "-m", "awslambdaric", "app.handler"], concurrency: 1),
                    workingDirectory: Self.interop.appending(path: "powertools_function"),
                    timeout: .seconds(20)
                )
            ],
            resolvers: ["Post.summary": .batchFunction("summaries", batchSize: 2)]
        )
        try await HTTPEndpointTests.withEndpoint(schema: schema, configuration: configuration) { url in
            let result = try await ChildProcess.run(
                [
                    "python3", Self.interop.appending(path: "gql_query.py").path, url.absoluteString,
                    "\(url.host!):\(url.port!)", "da2-valid",
                    #"mutation { createPost(input: {id: "p1", title: "One"}) { id } }"#,
                    #"mutation { createPost(input: {id: "p2", title: "Two"}) { id } }"#,
                    #"mutation { createPost(input: {id: "p3", title: "Three"}) { id } }"#,
                    "{ listPosts { items { id summary } } }",
                ]
            )
            try #require(
                result.status == .exited(0),
                "install them with: python3 -m pip install -r Tests/requirements.txt\n\(result.errorText)"
            )
            let answers = try JSON(parsing: result.outputText)
            #expect(
                answers[3]?["data"]
                    == [
                        "listPosts": [
                            "items": [
                                ["id": "p1", "summary": "Summary of One (2 in the batch)"],
                                ["id": "p2", "summary": "Summary of Two (2 in the batch)"],
                                ["id": "p3", "summary": "Summary of Three (1 in the batch)"],
                            ]
                        ]
                    ],
                "\(answers)"
            )
        }
    }
}
