import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import BlogModels
import Foundation
import Testing

typealias BlogTag = BlogModels.Tag

/// GraphQL through the plugin: the body sent, and the response semantics of client.md.
@Suite struct GraphQLTests {
    init() {
        AmplifyModels().registerModels(registry: ModelRegistry.self)
    }

    func plugin(_ transport: InMemoryTransport) throws -> AWSAPIPlugin {
        try makePlugin([.graphQL()], transport: transport)
    }

    struct Todo: Codable, Equatable {
        var id: String
        var name: String
    }

    let getTodo = GraphQLRequest<Todo>(
        document: "query getTodo($id: ID!) { getTodo(id: $id) { id name } }",
        variables: ["id": "111"],
        responseType: Todo.self,
        decodePath: "getTodo"
    )

    @Test func theBodyIsTheDocumentAndVariables() async throws {
        let transport = InMemoryTransport(body: #"{"data":{"getTodo":{"id":"111","name":"my first todo"}}}"#)
        let response = try await plugin(transport).query(request: getTodo)
        #expect(try response.get() == Todo(id: "111", name: "my first todo"))
        #expect(
            transport.requests.first?.bodyText
                == #"{"query":"query getTodo($id: ID!) { getTodo(id: $id) { id name } }","variables":{"id":"111"}}"#
        )
    }

    /// The body is the text Foundation's `JSONEncoder` writes with sorted keys and unescaped
    /// slashes, for variables of every kind.
    @Test func theBodyIsWhatJSONEncoderWrites() async throws {
        let transport = InMemoryTransport(body: #"{"data":{"echo":true}}"#)
        let variables: [String: JSONValue] = [
            "text": "quote \" backslash \\ slash / tab \t newline \n bell \u{07} é 😀",
            "numbers": [0, -3, 1.5, 2.0, 1e21, 123_456_789.125, -0.000_1],
            "nested": ["z": ["b": true, "a": .null], "a": [], "m": ["": "empty key"]],
        ]
        let request = GraphQLRequest<JSONValue>(
            document: "query ($text: String) { echo }",
            variables: variables,
            responseType: JSONValue.self
        )
        _ = try await plugin(transport).query(request: request)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let expected: JSONValue = ["query": .string(request.document), "variables": .object(variables)]
        #expect(transport.requests.first?.bodyText == String(decoding: try encoder.encode(expected), as: UTF8.self))
    }

    /// A variable JSON cannot hold is refused before anything is sent, with the fix.
    @Test func aNonFiniteVariableIsRefused() async throws {
        let transport = InMemoryTransport(body: #"{"data":{"echo":true}}"#)
        let request = GraphQLRequest<JSONValue>(
            document: "query ($n: Float) { echo(n: $n) }",
            variables: ["n": .number(.nan)],
            responseType: JSONValue.self
        )
        await #expect {
            _ = try await plugin(transport).query(request: request)
        } throws: { error in
            guard case .operationError(let description, let recovery) = error as? APIError else { return false }
            return description.contains("infinite or NaN") && recovery.contains("finite numbers")
        }
        #expect(transport.requests.isEmpty)
    }

    /// A variable given as `Any` that JSON cannot hold fails the request when it is sent, naming
    /// the key, instead of stopping the program where the request is made.
    @Test func aVariableThatIsNotJSONFailsItsRequestNamingTheKey() async throws {
        struct Point { var x = 1 }
        let transport = InMemoryTransport(body: #"{"data":{"echo":true}}"#)
        let request = GraphQLRequest<JSONValue>(
            document: "query ($at: AWSJSON, $n: Int) { echo(at: $at, n: $n) }",
            variables: ["at": Point(), "n": 3] as [String: Any],
            responseType: JSONValue.self
        )
        await #expect {
            _ = try await plugin(transport).query(request: request)
        } throws: { error in
            guard case .operationError(let description, _) = error as? APIError else { return false }
            return description
                == "GraphQLRequest variables must be JSON-compatible; 'at' (Point) is not. Encode with JSONEncoder "
                + "and JSONSerialization first."
        }
        #expect(transport.requests.isEmpty)
    }

    @Test func integersStayExactBothWays() async throws {
        let transport = InMemoryTransport(body: #"{"data":{"big":9007199254740993}}"#)
        let request = GraphQLRequest<JSONValue>(
            document: "query ($n: Int) { big(n: $n) }",
            variables: ["n": 9_007_199_254_740_993],
            responseType: JSONValue.self
        )
        let response = try await plugin(transport).query(request: request)
        #expect(try response.get() == ["big": .integer(9_007_199_254_740_993)])
        #expect(transport.requests.first?.bodyText.contains(#""variables":{"n":9007199254740993}"#) == true)
    }

    @Test func errorsOnlyAreAnError() async throws {
        let transport = InMemoryTransport(
            body:
                #"{"data":null,"errors":[{"message":"Not Authorized to access getTodo on type Query","errorType":"Unauthorized","path":["getTodo"]}]}"#
        )
        let response = try await plugin(transport).query(request: getTodo)
        guard case .failure(.error(let errors)) = response else {
            Issue.record("expected .error, got \(response)")
            return
        }
        #expect(errors.map(\.message) == ["Not Authorized to access getTodo on type Query"])
        #expect(errors.first?.errorType == "Unauthorized")
        #expect(errors.first?.path == ["getTodo"])
    }

    @Test func dataAndErrorsArePartial() async throws {
        let transport = InMemoryTransport(
            body: #"{"data":{"getTodo":{"id":"111","name":"n"}},"errors":[{"message":"description failed"}]}"#
        )
        let response = try await plugin(transport).query(request: getTodo)
        guard case .failure(.partial(let todo, let errors)) = response else {
            Issue.record("expected .partial, got \(response)")
            return
        }
        #expect(todo == Todo(id: "111", name: "n"))
        #expect(errors.map(\.message) == ["description failed"])
    }

    @Test func aNullValueWithErrorsIsAnError() async throws {
        let transport = InMemoryTransport(
            body:
                #"{"data":{"getTodo":null},"errors":[{"message":"The conditional request failed","errorType":"ConditionalCheckFailedException"}]}"#
        )
        let response = try await plugin(transport).mutate(request: getTodo)
        guard case .failure(.error(let errors)) = response else {
            Issue.record("expected .error, got \(response)")
            return
        }
        #expect(errors.first?.errorType == "ConditionalCheckFailedException")
    }

    @Test func anUndecodableValueIsATransformationError() async throws {
        let body = #"{"data":{"getTodo":{"id":"111"}}}"#
        let response = try await plugin(InMemoryTransport(body: body)).query(request: getTodo)
        guard case .failure(.transformationError(let raw, _)) = response else {
            Issue.record("expected .transformationError, got \(response)")
            return
        }
        #expect(raw == body)
    }

    @Test func aBodyThatIsNotJSONIsATransformationError() async throws {
        let response = try await plugin(InMemoryTransport(body: "<html>")).query(request: getTodo)
        guard case .failure(.transformationError(let raw, _)) = response else {
            Issue.record("expected .transformationError, got \(response)")
            return
        }
        #expect(raw == "<html>")
    }

    @Test func anHTTPErrorIsThrownWithItsBody() async throws {
        let body =
            #"{"errors":[{"errorType":"UnauthorizedException","message":"You are not authorized to make this call."}]}"#
        let transport = InMemoryTransport(
            status: 401,
            headers: ["x-amzn-ErrorType": "UnauthorizedException"],
            body: body
        )
        do {
            _ = try await plugin(transport).query(request: getTodo)
            Issue.record("expected an error")
        } catch APIError.httpStatusError(let status, let response) {
            #expect(status == 401)
            #expect(response.headers["x-amzn-errortype"] == "UnauthorizedException")
            #expect(String(decoding: response.body, as: UTF8.self) == body)
        }
    }

    @Test func aDottedDecodePathWalksIntoTheData() async throws {
        let transport = InMemoryTransport(
            body: #"{"data":{"listTodos":{"items":[{"id":"1","name":"a"},{"id":"2","name":"b"}],"nextToken":null}}}"#
        )
        let request = GraphQLRequest<[Todo]>(
            document: "query { listTodos { items { id name } nextToken } }",
            responseType: [Todo].self,
            decodePath: "listTodos.items"
        )
        let response = try await plugin(transport).query(request: request)
        #expect(try response.get() == [Todo(id: "1", name: "a"), Todo(id: "2", name: "b")])
    }

    @Test func stringResponsesAreTheRawJSON() async throws {
        let transport = InMemoryTransport(body: #"{"data":{"getTodo":{"name":"n","id":"1"}}}"#)
        let request = GraphQLRequest<String>(
            document: "{ getTodo { id name } }",
            responseType: String.self,
            decodePath: "getTodo"
        )
        #expect(try await plugin(transport).query(request: request).get() == #"{"id":"1","name":"n"}"#)
    }
}

/// The six model request builders sent through the plugin: the wire body, and the decoded models.
@Suite struct ModelRequestTests {
    init() {
        AmplifyModels().registerModels(registry: ModelRegistry.self)
    }

    let tag = BlogTag(id: "t1", label: "swift")
    static let tagJSON =
        #"{"id":"t1","label":"swift","createdAt":"2024-01-02T03:04:05.000Z","updatedAt":"2024-01-02T03:04:05.000Z","__typename":"Tag"}"#

    func plugin(_ transport: InMemoryTransport) throws -> AWSAPIPlugin {
        try makePlugin([.graphQL()], transport: transport)
    }

    /// `request` was sent as exactly `{"query": document, "variables": variables}`.
    func expectSent<R>(_ request: GraphQLRequest<R>, by transport: InMemoryTransport) throws {
        let sent = try #require(transport.requests.last)
        var expected: [String: JSONValue] = ["query": .string(request.document)]
        if let variables = request.variables { expected["variables"] = .object(variables) }
        #expect(sent.json == .object(expected))
        #expect(sent.headers["x-api-key"] == "da2-test-key")
    }

    @Test func create() async throws {
        let transport = InMemoryTransport(body: #"{"data":{"createTag":\#(Self.tagJSON)}}"#)
        let request = try GraphQLRequest<BlogTag>.create(tag)
        let created = try await plugin(transport).mutate(request: request).get()
        #expect(created.id == "t1" && created.label == "swift")
        try expectSent(request, by: transport)
        #expect(transport.requests.first?.json?.variables == ["input": ["id": "t1", "label": "swift"]])
    }

    @Test func update() async throws {
        let transport = InMemoryTransport(body: #"{"data":{"updateTag":\#(Self.tagJSON)}}"#)
        let request = try GraphQLRequest<BlogTag>.update(tag, where: BlogTag.keys.label == "old")
        _ = try await plugin(transport).mutate(request: request).get()
        try expectSent(request, by: transport)
        #expect(transport.requests.first?.json?.variables?.condition == ["label": ["eq": "old"]])
    }

    @Test func delete() async throws {
        let transport = InMemoryTransport(body: #"{"data":{"deleteTag":\#(Self.tagJSON)}}"#)
        let request = try GraphQLRequest<BlogTag>.delete(tag)
        #expect(try await plugin(transport).mutate(request: request).get().id == "t1")
        try expectSent(request, by: transport)
        #expect(transport.requests.first?.json?.variables == ["input": ["id": "t1"]])
    }

    @Test func getFoundAndMissing() async throws {
        let transport = InMemoryTransport([
            .json(#"{"data":{"getTag":\#(Self.tagJSON)}}"#), .json(#"{"data":{"getTag":null}}"#),
        ])
        let request = GraphQLRequest<BlogTag?>.get(BlogTag.self, byId: "t1")
        let plugin = try plugin(transport)
        #expect(try await plugin.query(request: request).get()?.label == "swift")
        try expectSent(request, by: transport)
        #expect(try await plugin.query(request: request).get() == nil)
    }

    @Test func subscriptionDocumentIsSentAsIs() async throws {
        let transport = InMemoryTransport(body: #"{"data":{"onCreateTag":\#(Self.tagJSON)}}"#)
        let request = GraphQLRequest<BlogTag>.subscription(of: BlogTag.self, type: .onCreate)
        #expect(try await plugin(transport).query(request: request).get().label == "swift")
        try expectSent(request, by: transport)
    }

    @Test func listFollowsNextTokenToTheLastPage() async throws {
        let page = { (ids: [String], token: String?) in
            let items = ids.map { #"{"id":"\#($0)","label":"l\#($0)","__typename":"Tag"}"# }.joined(separator: ",")
            let next = token.map { #""\#($0)""# } ?? "null"
            return APIResponse.json(#"{"data":{"listTags":{"items":[\#(items)],"nextToken":\#(next)}}}"#)
        }
        let transport = InMemoryTransport([page(["1", "2"], "token-2"), page(["3"], "token-3"), page([], nil)])
        let plugin = try plugin(transport)
        var labels: [String] = []
        var request = GraphQLRequest<List<BlogTag>>.list(
            BlogTag.self,
            where: BlogTag.keys.label.beginsWith("l"),
            limit: 2
        )
        var pages = 0
        while true {
            let list = try await plugin.query(request: request).get()
            pages += 1
            labels += list.map(\.label)
            guard list.hasNextPage(), let token = list.nextToken else { break }
            request = .list(BlogTag.self, where: BlogTag.keys.label.beginsWith("l"), limit: 2, nextToken: token)
        }
        #expect(pages == 3)
        #expect(labels == ["l1", "l2", "l3"])
        #expect(
            transport.requests.map { $0.json?.variables?.nextToken } == [nil, "token-2", "token-3"]
        )
        #expect(transport.requests.allSatisfy { $0.json?.variables?.limit == 2 })
        #expect(transport.requests.allSatisfy { $0.json?.variables?.filter == ["label": ["beginsWith": "l"]] })
    }
}
