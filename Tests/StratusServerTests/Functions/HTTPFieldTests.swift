import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import StratusCodegen
import StratusServer
import StratusTesting
import Synchronization
import Testing

/// `@http` fields and HTTP data sources against a real HTTP server on port 0: the request
/// AppSync's HTTP data source sends (method, path, query, headers, body), and the answers and
/// errors Amplify's response template makes of the response.
@Suite struct HTTPFieldTests {
    static let schema = """
        type Post @model { id: ID! title: String author: Author @http(url: "https://api.example.com/authors/${ctx.source.id}") }
        type Author { id: String name: String }
        type Query {
          post(id: ID!, lang: String): Author @http(url: "https://api.example.com/posts/:id")
          search(term: String!, limit: Int, tags: [String]): [Author] @http(url: "https://${env}.example.com/search", headers: [{key: "X-Key", value: "k-${env}"}])
          page(n: Int): AWSJSON
        }
        type Mutation {
          publish(id: ID!, title: String!, draft: Boolean): Author @http(method: POST, url: "https://api.example.com/posts/:id", headers: [{key: "X-Key", value: "secret"}])
          remove(id: ID!, reason: String): String @http(method: DELETE, url: "https://api.example.com/posts/:id")
        }
        """

    /// One request the endpoint received.
    struct Received: Sendable {
        var method: String
        var path: String
        /// By name in lower case.
        var headers: [String: String]
        var body: String
    }

    /// An HTTP server on port 0 that records each request and answers with `answer`.
    final class Endpoint: Sendable {
        /// The requests received, in order.
        final class Recorder: Sendable {
            let requests = Mutex<[Received]>([])
        }

        let recorder = Recorder()
        let port: Int
        private let task: Task<Void, any Error>

        init(
            answer: @escaping @Sendable (Received) async throws -> (HTTPResponse.Status, String, String)
        ) async throws {
            let received = recorder
            let router = Router()
            router.on("**", method: .get) { request, _ in try await Self.respond(request, received, answer) }
            router.on("**", method: .post) { request, _ in try await Self.respond(request, received, answer) }
            router.on("**", method: .put) { request, _ in try await Self.respond(request, received, answer) }
            router.on("**", method: .delete) { request, _ in try await Self.respond(request, received, answer) }
            let (ports, continuation) = AsyncStream<Int>.makeStream()
            let application = Application(
                router: router,
                configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: { channel in
                    continuation.yield(channel.localAddress?.port ?? 0)
                    continuation.finish()
                }
            )
            task = Task { try await application.runService() }
            var iterator = ports.makeAsyncIterator()
            port = await iterator.next() ?? 0
        }

        var origin: URL { URL(string: "http://127.0.0.1:\(port)")! }

        var received: [Received] { recorder.requests.withLock { $0 } }

        private static func respond(
            _ request: Request,
            _ received: Recorder,
            _ answer: @Sendable (Received) async throws -> (HTTPResponse.Status, String, String)
        ) async throws -> Response {
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            let body = try await request.body.collect(upTo: 1 << 20)
            let one = Received(
                method: request.method.rawValue,
                path: request.uri.description,
                headers: headers,
                body: String(buffer: body)
            )
            received.requests.withLock { $0.append(one) }
            let (status, contentType, text) = try await answer(one)
            return Response(
                status: status,
                headers: [.contentType: contentType],
                body: ResponseBody(byteBuffer: ByteBuffer(string: text))
            )
        }

        deinit { task.cancel() }
    }

    static func configuration(_ endpoint: Endpoint) -> ServerConfiguration {
        var configuration = ServerConfiguration(environmentName: "dev")
        configuration.httpOrigins = [
            "https://api.example.com": endpoint.origin, "https://dev.example.com": endpoint.origin,
        ]
        return configuration
    }

    @Test func theServedAPIDeclaresTheArgumentsAmplifyRewrites() throws {
        let sdl = ServerAPI(schema: try SchemaParser().parse(Self.schema)).sdl
        for line in [
            "  author: Author",
            "  page(n: Int): AWSJSON",
            "  post(params: QueryPostParamsInput!, query: QueryPostQueryInput): Author",
            "  search(query: QuerySearchQueryInput!): [Author]",
            "  publish(params: MutationPublishParamsInput!, query: MutationPublishQueryInput, "
                + "body: MutationPublishBodyInput): Author",
            "  remove(params: MutationRemoveParamsInput!, query: MutationRemoveQueryInput): String",
            "input QueryPostParamsInput {\n  id: String!\n}",
            "input QueryPostQueryInput {\n  lang: String\n}",
            "input QuerySearchQueryInput {\n  term: String!\n  limit: Int\n  tags: [String]\n}",
            "input MutationPublishQueryInput {\n  title: String\n  draft: Boolean\n}",
            "input MutationPublishBodyInput {\n  title: String\n  draft: Boolean\n}",
            "input MutationRemoveQueryInput {\n  reason: String\n}",
        ] {
            #expect(sdl.contains(line + "\n"), "missing: \(line)\n\(sdl)")
        }
        // Rewritten root fields move to the end of their type, as the transformer puts them.
        let query = try #require(sdl.range(of: "type Query {").map { sdl[$0.lowerBound...] })
        let names = query.prefix { $0 != "}" }.split(separator: "\n").dropFirst().map {
            String($0.drop { $0 == " " }.prefix { $0 != "(" && $0 != ":" })
        }
        #expect(Array(names.suffix(3)) == ["page", "post", "search"])
    }

    @Test func aGetSendsThePathParametersTheQueryAndTheConfiguredHeaders() async throws {
        let endpoint = try await Endpoint { request in
            request.path.hasPrefix("/search")
                ? (.ok, "application/json", #"[{"id":"a1","name":"Ada"}]"#)
                : (.ok, "application/json", #"{"name":"Ada"}"#)
        }
        let server = try await TestServer(Self.schema, configuration: Self.configuration(endpoint))
        #expect(
            await server.run(#"{ search(query: {term: "a b&c", limit: 2, tags: ["x", "y"]}) { id name } }"#)
                == #"{"data":{"search":[{"id":"a1","name":"Ada"}]}}"#
        )
        #expect(
            await server.run(#"{ post(params: {id: "7/8"}, query: {lang: "nb"}) { name } }"#)
                == #"{"data":{"post":{"name":"Ada"}}}"#
        )
        let requests = endpoint.received
        try #require(requests.count == 2)
        #expect(requests[0].method == "GET")
        #expect(requests[0].path == "/search?term=a%20b%26c&limit=2&tags=x&tags=y")
        #expect(requests[0].headers["x-key"] == "k-dev")
        #expect(requests[0].headers["accept-encoding"] == "application/json")
        #expect(requests[0].headers["content-type"] == nil)
        #expect(requests[0].body == "")
        #expect(requests[1].path == "/posts/7%2F8?lang=nb")
    }

    @Test func aPostSendsTheBodyAsJSONAndAcceptsCreated() async throws {
        let endpoint = try await Endpoint { _ in (.created, "application/json", #"{"id":"7","name":"T"}"#) }
        let server = try await TestServer(Self.schema, configuration: Self.configuration(endpoint))
        #expect(
            await server.run(#"mutation { publish(params: {id: "7"}, body: {title: "T", draft: true}) { id name } }"#)
                == #"{"data":{"publish":{"id":"7","name":"T"}}}"#
        )
        let request = try #require(endpoint.received.first)
        #expect(request.method == "POST")
        #expect(request.path == "/posts/7")
        #expect(request.body == #"{"title":"T","draft":true}"#)
        #expect(request.headers["content-type"] == "application/json")
        #expect(request.headers["x-key"] == "secret")
    }

    @Test func aNonNullArgumentInNeitherQueryNorBodyIsRefusedBeforeTheRequest() async throws {
        let endpoint = try await Endpoint { _ in (.ok, "application/json", "{}") }
        let server = try await TestServer(Self.schema, configuration: Self.configuration(endpoint))
        #expect(
            await server.run(#"mutation { publish(params: {id: "7"}, body: {draft: true}) { id } }"#)
                == #"{"data":{"publish":null},"errors":[{"path":["publish"],"data":null,"errorType":null,"#
                + #""errorInfo":null,"locations":[{"line":1,"column":12,"sourceName":null}],"message":"An argument "#
                + #"you marked as Non-Null is not present in the query nor the body of your request."}]}"#
        )
        #expect(endpoint.received.isEmpty)
    }

    @Test func aDeleteSendsNeitherQueryNorBody() async throws {
        let endpoint = try await Endpoint { _ in (.ok, "application/json", #""gone""#) }
        let server = try await TestServer(Self.schema, configuration: Self.configuration(endpoint))
        #expect(
            await server.run(#"mutation { remove(params: {id: "3"}, query: {reason: "spam"}) }"#)
                == #"{"data":{"remove":"gone"}}"#
        )
        let request = try #require(endpoint.received.first)
        #expect(request.method == "DELETE")
        #expect(request.path == "/posts/3")
    }

    @Test func aStatusOtherThanSuccessIsAnErrorTypedWithTheStatusAndTheBodyAsMessage() async throws {
        let endpoint = try await Endpoint { request in
            request.path.hasPrefix("/posts/404")
                ? (.notFound, "application/json", #"{"error":"no post"}"#) : (.created, "application/json", "{}")
        }
        let server = try await TestServer(Self.schema, configuration: Self.configuration(endpoint))
        #expect(
            await server.run(#"{ post(params: {id: "404"}) { name } }"#)
                == #"{"data":{"post":null},"errors":[{"path":["post"],"data":null,"errorType":"404","errorInfo":null,"#
                + #""locations":[{"line":1,"column":3,"sourceName":null}],"message":"{\"error\":\"no post\"}"}]}"#
        )
        // 201 is a success for methods with a body only.
        #expect(
            await server.run(#"{ post(params: {id: "1"}) { name } }"#)
                == #"{"data":{"post":null},"errors":[{"path":["post"],"data":null,"errorType":"201","errorInfo":null,"#
                + #""locations":[{"line":1,"column":3,"sourceName":null}],"message":"{}"}]}"#
        )
    }

    @Test func aBodyThatIsNotJSONIsAMappingTemplateError() async throws {
        let endpoint = try await Endpoint { _ in (.ok, "text/plain", "hello") }
        let server = try await TestServer(Self.schema, configuration: Self.configuration(endpoint))
        let answer = await server.json(#"{ post(params: {id: "1"}) { name } }"#)
        #expect(answer["errors"]?[0]?["errorType"] == "MappingTemplate")
        let message = try #require(answer["errors"]?[0]?["message"]?.stringValue)
        #expect(message.hasPrefix("GET http://127.0.0.1:\(endpoint.port)/posts/1 answered a body that is not JSON"))
        #expect(message.hasSuffix(": hello"))
    }

    @Test func aTimeoutAndARefusedConnectionAreErrorsThatNameTheURL() async throws {
        let endpoint = try await Endpoint { _ in
            try await Task.sleep(for: .seconds(1))
            return (.ok, "application/json", "{}")
        }
        var configuration = Self.configuration(endpoint)
        configuration.httpTimeout = .milliseconds(200)
        let server = try await TestServer(Self.schema, configuration: configuration)
        // The endpoint answers after a second: the answer is the timeout's error, not its data.
        let slow = await server.json(#"{ post(params: {id: "1"}) { name } }"#)
        #expect(
            slow["errors"]?[0]?["message"]
                == .string(
                    "GET http://127.0.0.1:\(endpoint.port)/posts/1 for Query.post got no answer within 0.20 seconds."
                )
        )
        configuration.httpOrigins["https://api.example.com"] = URL(string: "http://127.0.0.1:1")!
        let refused = try await TestServer(Self.schema, configuration: configuration)
        let answer = await refused.json(#"{ post(params: {id: "1"}) { name } }"#)
        let message = try #require(answer["errors"]?[0]?["message"]?.stringValue)
        #expect(message.hasPrefix("GET http://127.0.0.1:1/posts/1 for Query.post failed: "))
        #expect(message.hasSuffix("Check that the server at this URL is running."))
    }

    @Test func anHTTPFieldOfAModelReadsItsParentInTheURL() async throws {
        let endpoint = try await Endpoint { request in
            (.ok, "application/json", #"{"name":"author of \#(request.path)"}"#)
        }
        let server = try await TestServer(Self.schema, configuration: Self.configuration(endpoint))
        _ = await server.run(#"mutation { createPost(input: {id: "p1", title: "A"}) { id } }"#)
        _ = await server.run(#"mutation { createPost(input: {id: "p2", title: "B"}) { id } }"#)
        #expect(
            await server.run("{ listPosts { items { id author { name } } } }")
                == #"{"data":{"listPosts":{"items":[{"id":"p1","author":{"name":"author of /authors/p1"}},"#
                + #"{"id":"p2","author":{"name":"author of /authors/p2"}}]}}}"#
        )
    }

    @Test func anHTTPDataSourcePostsAppSyncsContextObject() async throws {
        let endpoint = try await Endpoint { _ in (.ok, "application/json", #"{"n":2}"#) }
        var configuration = Self.configuration(endpoint)
        configuration.resolvers["Query.page"] = .http(endpoint.origin.appending(path: "page"))
        let server = try await TestServer(Self.schema, configuration: configuration)
        let page = await server.run("{ page(n: 2) }")
        #expect(page == #"{"data":{"page":"{\"n\":2}"}}"#)
        let request = try #require(endpoint.received.first)
        #expect(request.method == "POST")
        #expect(request.path == "/page")
        #expect(request.headers["content-type"] == "application/json")
        let event = try JSON(parsing: request.body)
        #expect(event["arguments"] == ["n": 2])
        #expect(event["info"]?["fieldName"] == "page")
        #expect(event["info"]?["parentTypeName"] == "Query")
    }

    @Test func httpOriginsMustNameAnOriginTheSchemaCalls() async throws {
        var configuration = ServerConfiguration()
        configuration.httpOrigins = ["https://other.example.com": URL(string: "http://127.0.0.1:8080")!]
        do {
            _ = try await TestServer(Self.schema, configuration: configuration)
            Issue.record("the configuration was accepted")
        } catch {
            #expect(
                "\(error)".contains(
                    "httpOrigins maps 'https://other.example.com', which no @http field calls. Map one of the origins "
                        + "the schema's @http URLs start with: 'https://api.example.com', 'https://${env}.example.com'."
                ),
                "\(error)"
            )
        }
    }

    @Test func gqlGetsTheFieldAndTheEndpointGetsTheClientsHeaders() async throws {
        let endpoint = try await Endpoint { _ in (.ok, "application/json", #"{"id":"9","name":"Grace"}"#) }
        let interop = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "Interop")
        try await HTTPEndpointTests.withEndpoint(schema: Self.schema, configuration: Self.configuration(endpoint)) {
            url in
            let result = try await ChildProcess.run(
                [
                    "python3", interop.appending(path: "gql_query.py").path, url.absoluteString,
                    "\(url.host!):\(url.port!)", "da2-valid",
                    #"{ post(params: {id: "9"}, query: {lang: "en"}) { id name } }"#,
                ]
            )
            try #require(
                result.status == .exited(0),
                "install them with: python3 -m pip install -r Tests/requirements.txt\n\(result.errorText)"
            )
            let answers = try JSON(parsing: result.outputText)
            #expect(answers[0]?["data"] == ["post": ["id": "9", "name": "Grace"]])
        }
        let request = try #require(endpoint.received.first)
        #expect(request.path == "/posts/9?lang=en")
        // AppSync copies the client's headers, but the hop-by-hop ones and Content-Length.
        #expect(request.headers["x-api-key"] == "da2-valid")
        #expect(request.headers["accept-encoding"] == "application/json")
    }
}
