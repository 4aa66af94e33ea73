import Foundation
import StratusCodegen
import StratusServer
import Testing

/// Documents refused before they are validated or run: nesting that parsing and validation
/// could not survive, AppSync's query depth and resolver count limits, and filter nesting.
@Suite struct RequestLimitsTests {
    static let nestingMessage =
        "The document nests selections, arguments and values more than 150 levels deep, the most a document may. "
        + "Send a flatter document."

    /// A request failure at one location, as the server writes it.
    static func failure(line: Int, column: Int, _ message: String) -> String {
        #"{"data":null,"errors":[{"path":null,"locations":[{"line":"# + "\(line)" + #","column":"# + "\(column)"
            + #","sourceName":null}],"message":"# + JSON.string(message).text + "}]}"
    }

    /// `query { a { a { … } } }`, `levels` deep.
    static func nested(_ levels: Int) -> String {
        "query " + String(repeating: "{ a ", count: levels) + String(repeating: "}", count: levels)
    }

    @Test func aThousandNestedSelectionsAreRefusedBeforeParsing() async throws {
        let server = try await TestServer(postSchema)
        // The 151st brace: "query " then "{ a " for each level.
        #expect(await server.run(Self.nested(1000)) == Self.failure(line: 1, column: 607, Self.nestingMessage))
    }

    @Test func fieldsNestedBeyond75LevelsAreRefusedWithoutAConfiguredLimit() async throws {
        let server = try await TestServer(postSchema)
        #expect(
            await server.run(Self.nested(76))
                == Self.failure(
                    line: 1,
                    column: 309,
                    "maximum query depth exceeded 76 > 75. Select fewer levels of nested fields."
                )
        )
        // 75 levels pass the limit and reach validation.
        let message = try #require(await server.json(Self.nested(75))["errors"]?[0]?["message"]?.stringValue)
        #expect(message.hasPrefix("Validation error of type FieldUndefined: Field 'a' in type 'Query' is undefined"))
    }

    @Test func theConfiguredQueryDepthLimitCountsTheRootFieldAsLevelOne() async throws {
        let server = try await TestServer(blogSchema, configuration: ServerConfiguration(queryDepthLimit: 3))
        #expect(await server.run(#"{ getPost(id: "1") { blog { name } } }"#) == #"{"data":{"getPost":null}}"#)
        #expect(
            await server.run(#"{ getPost(id: "1") { blog { posts { items { id } } } } }"#)
                == Self.failure(
                    line: 1,
                    column: 37,
                    "maximum query depth exceeded 4 > 3. Select fewer levels of nested fields."
                )
        )
    }

    @Test func listValuesNestedDeeperThanEightLevelsAreRefusedBeforeParsing() async throws {
        let server = try await TestServer(postSchema)
        let query =
            "{ getPost(id: " + String(repeating: "[", count: 60) + "1" + String(repeating: "]", count: 60)
            + ") { id } }"
        // The 9th bracket, at column 15 + 8.
        #expect(
            await server.run(query)
                == Self.failure(
                    line: 1,
                    column: 23,
                    "The document nests list values more than 8 levels deep, the most a document may. "
                        + "Send flatter list values."
                )
        )
    }

    @Test func moreThan10000ResolversAreRefusedBeforeRunning() async throws {
        let server = try await TestServer(blogSchema)
        // Six resolvers an alias: getPost, blog, posts, blog, posts, blog.
        let selection = #"getPost(id: "1") { blog { posts { items { blog { posts { items { blog { name } } } } } } } }"#
        let lines = (1...2000).map { "  a\($0): \(selection)" }
        let query = "{\n" + lines.joined(separator: "\n") + "\n}"
        let body = await server.json(query)
        // The 10,001st resolver is the second `posts` of alias 1667, on line 1668.
        let line = lines[1666]
        let second = try #require(line.ranges(of: "posts").dropFirst().first)
        let column = line.distance(from: line.startIndex, to: second.lowerBound) + 1
        #expect(
            body.text
                == Self.failure(
                    line: 1668,
                    column: column,
                    "maximum resolver count exceeded 10001 > 10000. Select fewer root fields, aliases and related models."
                )
        )
    }

    @Test func theConfiguredResolverCountLimitCountsAliases() async throws {
        let server = try await TestServer(postSchema, configuration: ServerConfiguration(resolverCountLimit: 2))
        #expect(
            await server.run(#"{ a: getPost(id: "1") { id } b: getPost(id: "2") { id } }"#)
                == #"{"data":{"a":null,"b":null}}"#
        )
        #expect(
            await server.run(#"{ a: getPost(id: "1") { id } b: getPost(id: "2") { id } c: getPost(id: "3") { id } }"#)
                == Self.failure(
                    line: 1,
                    column: 57,
                    "maximum resolver count exceeded 3 > 2. Select fewer root fields, aliases and related models."
                )
        )
    }

    @Test func resolversUnderListsCountEachTimeTheyRun() async throws {
        // The document has 3 resolvers (listPosts, blog, posts); over 3 posts they run 1 + 3 + 3.
        let server = try await TestServer(blogSchema, configuration: ServerConfiguration(resolverCountLimit: 6))
        _ = await server.run(#"mutation { createBlog(input: {id: "b1", name: "B"}) { id } }"#)
        for index in 1...3 {
            let create = #"mutation { createPost(input: {id: "p\#(index)", title: "T", blogID: "b1"}) { id } }"#
            _ = await server.run(create)
        }
        let query = "{ listPosts { items { id blog { id posts { items { id } } } } } }"
        #expect(
            await server.run(query)
                == #"{"data":null,"errors":[{"path":null,"locations":null,"message":"maximum resolver count "#
                + #"exceeded 7 > 6. Select fewer root fields, aliases and related models, or a smaller limit "#
                + #"on lists."}]}"#
        )
        let smaller = "{ listPosts(limit: 2) { items { id blog { id posts { items { id } } } } } }"
        #expect(await server.run(smaller).hasPrefix(#"{"data":{"listPosts":{"items":[{"id":"#))
    }

    /// A page pays at once for the relation fields of its items: exactly what they would spend
    /// one by one, so a request the limit admits is still admitted.
    @Test(arguments: [
        // 1 list + 3 posts x 2 response keys.
        ("{ listPosts { items { blog { id } other: blog { name } } } }", 7),
        // One response key selected twice runs once per item.
        ("{ listPosts { items { blog { id } blog { name } } } }", 4),
        // Through a fragment, and a relation under a directive, which only execution counts.
        ("{ listPosts { items { ...P } } } fragment P on Post { blog { id } comments { items { id } } }", 7),
        ("{ listPosts { items { blog @include(if: true) { id } comments { items { id } } } } }", 7),
    ])
    func aPagePaysForItsItemsRelationsExactlyAsTheyWouldRun(_ query: String, _ resolvers: Int) async throws {
        let admitting = try await TestServer(
            blogSchema,
            configuration: ServerConfiguration(resolverCountLimit: resolvers)
        )
        let refusing = try await TestServer(
            blogSchema,
            configuration: ServerConfiguration(resolverCountLimit: resolvers - 1)
        )
        for server in [admitting, refusing] {
            _ = await server.run(#"mutation { createBlog(input: {id: "b1", name: "B"}) { id } }"#)
            for index in 1...3 {
                _ = await server.run(
                    #"mutation { createPost(input: {id: "p\#(index)", title: "T", blogID: "b1"}) { id } }"#
                )
            }
        }
        #expect(await admitting.run(query).hasPrefix(#"{"data":{"listPosts":{"items":[{"#))
        #expect(
            await refusing.run(query)
                == #"{"data":null,"errors":[{"path":null,"locations":null,"message":"maximum resolver count "#
                + #"exceeded \#(resolvers) > \#(resolvers - 1). Select fewer root fields, aliases and related "#
                + #"models, or a smaller limit on lists."}]}"#
        )
    }

    /// Out of resolvers, a request stops reading: the lists of its later aliases are not read
    /// once a page has spent the budget (before, every alias read its page and walked it).
    @Test func aRequestOutOfResolversStopsReadingItsLaterLists() async throws {
        let server = try await TestServer(blogSchema, configuration: ServerConfiguration(resolverCountLimit: 600))
        _ = await server.run(#"mutation { createBlog(input: {id: "b1", name: "B"}) { id } }"#)
        for index in 1...10 {
            _ = await server.run(
                #"mutation { createPost(input: {id: "p\#(index)", title: "T", blogID: "b1"}) { id } }"#
            )
        }
        // 250 lists (the document's own count, 2 resolvers each, passes), then 10 blogs per
        // page: the 36th page runs out.
        let aliases = (0..<250).map { "a\($0): listPosts { items { blog { id } } }" }.joined(separator: " ")
        let before = server.server.pagesRead
        #expect(
            await server.run("{ \(aliases) }")
                == #"{"data":null,"errors":[{"path":null,"locations":null,"message":"maximum resolver count "#
                + #"exceeded 601 > 600. Select fewer root fields, aliases and related models, or a smaller limit "#
                + #"on lists."}]}"#
        )
        // Reads already under way when the budget runs out end on their own: a few more than 36.
        #expect(server.server.pagesRead - before < 100)
    }

    /// Requests that may hold a core for long run on a thread of their own, so that the shared
    /// pool stays free for the others: many root fields, or a long document.
    @Test func heavyRequestsRunOnTheirOwnThread() async throws {
        let server = try await TestServer(postSchema)
        func aliases(_ count: Int) -> String {
            "{ " + (0..<count).map { #"a\#($0): getPost(id: "1") { id }"# }.joined(separator: " ") + " }"
        }
        var before = server.server.heavyLaneJobs
        #expect(await server.run(aliases(32)).hasPrefix(#"{"data":{"a0":null,"#))
        #expect(server.server.heavyLaneJobs == before)
        #expect(await server.run(aliases(33)).hasPrefix(#"{"data":{"a0":null,"#))
        #expect(server.server.heavyLaneJobs > before)
        before = server.server.heavyLaneJobs
        let long = "# " + String(repeating: "x", count: 65_536) + "\n" + #"{ getPost(id: "1") { id } }"#
        #expect(await server.run(long) == #"{"data":{"getPost":null}}"#)
        #expect(server.server.heavyLaneJobs > before)
    }

    /// GraphQLSwift's lexer reads past the end of a text that ends inside an escape sequence, and
    /// the process traps (found by the fuzzer: `{"query": "\"a\\u"}`).
    @Test(arguments: [#""a\u"#, #"{ getPost(id: "a\u00"#, #"{ getPost(id: "a\"#, #""""\"#])
    func aDocumentEndingInsideAnEscapeIsRefusedBeforeParsing(_ query: String) async throws {
        let server = try await TestServer(postSchema)
        let body = await server.json(query)
        #expect(body["data"] == .null)
        let message =
            "Unterminated string: the document ends inside an escape sequence. Complete the escape "
            + #"(\uXXXX has four hexadecimal digits) and close the string."#
        #expect(body["errors"]?[0]?["message"]?.stringValue == message)
        #expect(await server.run(#"{ getPost(id: "a\u0041") { id } }"#) == #"{"data":{"getPost":null}}"#)
    }

    @Test func fragmentsCountWhereTheyAreSpread() async throws {
        let server = try await TestServer(postSchema, configuration: ServerConfiguration(queryDepthLimit: 2))
        let query = """
            query { ...Outer }
            fragment Outer on Query { getPost(id: "1") { ...Inner } }
            fragment Inner on Post { id title }
            """
        #expect(await server.run(query) == #"{"data":{"getPost":null}}"#)
        let deeper = """
            query { ...Outer }
            fragment Outer on Query { getPost(id: "1") { ...Inner } }
            fragment Inner on Post { id title { length } }
            """
        #expect(
            await server.run(deeper)
                == Self.failure(
                    line: 3,
                    column: 37,
                    "maximum query depth exceeded 3 > 2. Select fewer levels of nested fields."
                )
        )
    }

    // MARK: - Filters

    /// A filter `depth` levels of `and` deep around a condition on the title.
    static func nestedFilter(_ depth: Int) -> JSON {
        var filter: JSON = ["title": ["eq": "Hello"]]
        for _ in 0..<depth { filter = ["and": [filter]] }
        return filter
    }

    @Test(arguments: [21, 120])
    func filtersNestedDeeperThan20LevelsAreRefused(depth: Int) async throws {
        let server = try await TestServer(postSchema)
        let query = "query($filter: ModelPostFilterInput) { listPosts(filter: $filter) { items { id } } }"
        let body = await server.json(query, ["filter": Self.nestedFilter(depth)])
        #expect(body["data"] == ["listPosts": nil])
        #expect(body["errors"]?[0]?["errorType"] == "ValidationException")
        #expect(
            body["errors"]?[0]?["message"]?.stringValue
                == "The filter nests 'and', 'or' and 'not' more than 20 levels deep, the most a filter may. "
                + "Combine the conditions in fewer levels."
        )
    }

    @Test func aFilterNested20LevelsRuns() async throws {
        let server = try await TestServer(postSchema)
        let query = "query($filter: ModelPostFilterInput) { listPosts(filter: $filter) { items { id } } }"
        #expect(
            await server.run(query, ["filter": Self.nestedFilter(20)])
                == #"{"data":{"listPosts":{"items":[]}}}"#
        )
    }

    // MARK: - HTTP and real time

    @Test func deepNestingOverHTTPIsAnsweredAndTheServerKeepsServing() async throws {
        try await HTTPEndpointTests.withEndpoint { url in
            let body = JSON.object(["query": .string(Self.nested(1000))]).text
            let refused = try await HTTPEndpointTests.send(url, body: body, headers: ["x-api-key": "da2-valid"])
            #expect(refused.status == 200)
            #expect(refused.body == Self.failure(line: 1, column: 607, Self.nestingMessage))
            let next = try await HTTPEndpointTests.send(
                url,
                body: #"{"query":"{ getPost(id: \"1\") { id } }"}"#,
                headers: ["x-api-key": "da2-valid"]
            )
            #expect(next.status == 200)
            #expect(next.body == #"{"data":{"getPost":null}}"#)
        }
    }

    @Test func deepNestingInARealtimeStartIsAnErrorMessage() async throws {
        try await RealtimeTests.withEndpoint { endpoint in
            let socket = try await endpoint.connect()
            let query = "subscription " + String(repeating: "{ a ", count: 1000) + String(repeating: "}", count: 1000)
            socket.send(RealtimeTests.start("1", query))
            let error: JSON = [
                "id": "1", "type": "error",
                "payload": ["errors": [["errorType": "ValidationError", "message": .string(Self.nestingMessage)]]],
            ]
            #expect(try await socket.next() == error.text)
            socket.send(RealtimeTests.start("2", "subscription { onCreatePost { id } }"))
            #expect(try await socket.next() == #"{"id":"2","type":"start_ack"}"#)
            await socket.close()
        }
    }
}
