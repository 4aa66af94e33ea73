import Foundation
import StratusServer
import Testing

@testable import StratusServer

/// Functions on fields of object types (`Post.summary`, `Weather.advice`): invoked for each
/// parent resolved, the parent as `source`, through `@function` or `stratus.json`'s
/// `resolvers`, batched (`BatchInvoke`) when `batchSize` says so; queries that do not select
/// such a field still skip the executor.
@Suite struct ObjectFieldFunctionTests {
    static let schema = """
        type Post @model {
          id: ID!
          title: String
          summary: String @function(name: "summarize-${env}")
          blurb: String
        }
        type Weather { city: String advice: String }
        type Query { weather(city: String!): Weather }
        """

    /// A command function that appends each event it receives, as received, to `events.txt`
    /// (one per line) and answers with the parent's title: for a batch, an array, with an error
    /// item for a post titled "broken".
    static let summarize = """
        import json, sys
        text = sys.stdin.read()
        open("events.txt", "a").write(text + "\\n")
        event = json.loads(text)
        def one(event, batch=False):
            source = event["source"]
            if batch and source.get("title") == "broken":
                return {"data": None, "errorMessage": "Cannot summarize", "errorType": "SummaryError"}
            return "Summary of " + (source.get("title") or source.get("city"))
        if isinstance(event, list):
            print(json.dumps([one(e, batch=True) for e in event]))
        else:
            print(json.dumps(one(event)))
        """

    static func server(_ resolvers: [String: ConfiguredResolver] = [:]) async throws -> (TestServer, URL) {
        let directory = try CustomResolverTests.directory(["summarize.py": summarize])
        let function = CustomResolverTests.command("summarize.py", in: directory)
        let server = try await TestServer(
            schema,
            configuration: ServerConfiguration(
                environmentName: "dev",
                functions: ["summarize-dev": function, "batch": function],
                resolvers: resolvers
            )
        )
        for (id, title) in [("p1", "First"), ("p2", "broken"), ("p3", "Third")] {
            let response = await server.run(
                "mutation($id: ID!, $title: String) { createPost(input: {id: $id, title: $title}) { id title } }",
                ["id": .string(id), "title": .string(title)]
            )
            #expect(response.contains(#""title":"\#(title)""#), "\(response)")
        }
        return (server, directory)
    }

    static func events(in directory: URL) -> [String] {
        let text = (try? String(contentsOf: directory.appending(path: "events.txt"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    @Test func aFunctionFieldOfAModelIsInvokedForEachParentWithTheParentAsSource() async throws {
        let (server, directory) = try await Self.server()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Nothing selected the field yet: the creates did not invoke the function.
        #expect(Self.events(in: directory).isEmpty)
        #expect(
            await server.run(#"{ getPost(id: "p1") { title summary } }"#)
                == #"{"data":{"getPost":{"title":"First","summary":"Summary of First"}}}"#
        )
        #expect(
            Self.events(in: directory)
                == [
                    #"{"typeName":"Post","fieldName":"summary","arguments":{},"identity":null,"source":{"#
                        + #""id":"p1","title":"First","createdAt":"2023-11-14T22:13:20.000Z","#
                        + #""updatedAt":"2023-11-14T22:13:20.000Z","__typename":"Post","_version":1,"#
                        + #""_lastChangedAt":1700000000000},"request":{"headers":{},"domainName":null},"#
                        + #""prev":{"result":{}}}"#
                ]
        )
        let list = await server.run("{ listPosts { items { id summary } } }")
        #expect(
            list
                == #"{"data":{"listPosts":{"items":[{"id":"p1","summary":"Summary of First"},"#
                + #"{"id":"p2","summary":"Summary of broken"},{"id":"p3","summary":"Summary of Third"}]}}}"#
        )
        #expect(Self.events(in: directory).count == 4)
    }

    @Test func queriesThatDoNotSelectTheFieldSkipTheExecutorAndTheFunction() async throws {
        let (server, directory) = try await Self.server(["Post.blurb": .function("batch")])
        defer { try? FileManager.default.removeItem(at: directory) }
        func list(_ selection: String) async -> Bool {
            await server.server.execute(
                query: "{ listPosts { items { \(selection) } } }",
                variables: [:],
                operationName: nil,
                identity: .apiKey,
                direct: true
            ).answeredDirectly
        }
        #expect(await list("id title"))
        #expect(Self.events(in: directory).isEmpty)
        #expect(await list("id summary") == false)
        #expect(await list("id blurb") == false)
        #expect(Self.events(in: directory).count == 6)
    }

    @Test func aConfiguredResolverOnAFieldOfATypeGetsAppSyncsContextObject() async throws {
        let (server, directory) = try await Self.server([
            "Query.weather": .none, "Weather.advice": .function("batch"),
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(
            await server.run(#"{ weather(city: "Oslo") { advice } }"#)
                == #"{"data":{"weather":{"advice":"Summary of Oslo"}}}"#
        )
        #expect(
            Self.events(in: directory)
                == [
                    #"{"arguments":{},"identity":null,"source":{"city":"Oslo"},"#
                        + #""request":{"headers":{},"domainName":null},"prev":null,"#
                        + #""info":{"fieldName":"advice","parentTypeName":"Weather","variables":{},"#
                        + #""selectionSetList":[],"selectionSetGraphQL":""},"stash":{}}"#
                ]
        )
    }

    @Test func aBatchedFieldSendsTheParentsOfAListInBatchesAndReportsEachItemsError() async throws {
        let (server, directory) = try await Self.server(["Post.summary": .batchFunction("batch", batchSize: 2)])
        defer { try? FileManager.default.removeItem(at: directory) }
        let list = await server.run("{ listPosts { items { id summary } } }")
        #expect(
            list
                == #"{"data":{"listPosts":{"items":[{"id":"p1","summary":"Summary of First"},"#
                + #"{"id":"p2","summary":null},{"id":"p3","summary":"Summary of Third"}]}},"#
                + #""errors":[{"path":["listPosts","items",1,"summary"],"data":null,"errorType":"SummaryError","#
                + #""errorInfo":null,"locations":[{"line":1,"column":26,"sourceName":null}],"#
                + #""message":"Cannot summarize"}]}"#
        )
        let batches = try Self.events(in: directory).map { try JSON(parsing: $0) }
        // The two batches run at once: either may reach the function first.
        let ids = batches.map { $0.arrayValue?.map { $0["source"]?["id"]?.stringValue ?? "" } ?? [] }
        #expect(ids.sorted { $0.count > $1.count } == [["p1", "p2"], ["p3"]])
        #expect(batches.allSatisfy { $0[0]?["info"]?["parentTypeName"] == "Post" })
        // A parent read alone is a batch of one.
        #expect(
            await server.run(#"{ getPost(id: "p3") { summary } }"#)
                == #"{"data":{"getPost":{"summary":"Summary of Third"}}}"#
        )
        #expect(try JSON(parsing: Self.events(in: directory)[2]).arrayValue?.count == 1)
    }

    @Test func aBatchThatAnswersTheWrongNumberOfResultsFailsEachItem() async throws {
        let directory = try CustomResolverTests.directory([
            "short.py": "import json, sys\nsys.stdin.read()\nprint(json.dumps(['only one']))"
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await TestServer(
            Self.schema,
            configuration: ServerConfiguration(
                functions: ["short": CustomResolverTests.command("short.py", in: directory)],
                resolvers: ["Post.blurb": .batchFunction("short", batchSize: 5)]
            )
        )
        _ = await server.run(
            #"mutation { a: createPost(input: {id: "a"}) { id } b: createPost(input: {id: "b"}) { id } }"#
        )
        let body = await server.json("{ listPosts { items { blurb } } }")
        #expect(body["data"] == ["listPosts": ["items": [["blurb": nil], ["blurb": nil]]]])
        #expect(
            body["errors"]?[0]?["message"]
                == .string(
                    "The function 'short' answered 1 results for a batch of 2. A batched function answers an "
                        + "array with one result per event, in order."
                )
        )
        #expect(body["errors"]?[1]?["errorType"] == "Lambda:Unhandled")
    }

    @Test func aFunctionFieldIsGuardedAsTheTypesOtherFields() async throws {
        let directory = try CustomResolverTests.directory(["summarize.py": Self.summarize])
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await TestServer(
            """
            type Post @model @aws_api_key @aws_cognito_user_pools {
              id: ID!
              title: String
              summary: String @function(name: "summarize") @aws_cognito_user_pools
            }
            """,
            configuration: ServerConfiguration(
                functions: ["summarize": CustomResolverTests.command("summarize.py", in: directory)]
            )
        )
        _ = await server.run(#"mutation { createPost(input: {id: "p1", title: "First"}) { id } }"#)
        let body = await server.json(#"{ getPost(id: "p1") { title summary } }"#)
        #expect(body["data"] == ["getPost": ["title": "First", "summary": nil]])
        #expect(body["errors"]?[0]?["message"] == "Not Authorized to access summary on type Post")
        #expect(Self.events(in: directory).isEmpty)
    }
}
