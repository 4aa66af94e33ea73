import AWSAPIPlugin
import Amplify
import Foundation
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sets a header.
struct HeaderInterceptor: URLRequestInterceptor {
    let name: String
    let value: String

    func intercept(_ request: URLRequest) throws -> URLRequest {
        var request = request
        request.setValue(value, forHTTPHeaderField: name)
        return request
    }
}

/// Records the headers it sees, then sets one.
final class SpyInterceptor: URLRequestInterceptor {
    let header: (name: String, value: String)?
    private let seen = Mutex<[[String: String]]>([])

    init(setting header: (name: String, value: String)? = nil) {
        self.header = header
    }

    /// The headers of each request it intercepted, names in lower case.
    var seenHeaders: [[String: String]] { seen.withLock { $0 } }

    func intercept(_ request: URLRequest) async throws -> URLRequest {
        seen.withLock { $0.append(InMemoryTransport.Recorded(request).headers) }
        guard let header else { return request }
        var request = request
        request.setValue(header.value, forHTTPHeaderField: header.name)
        return request
    }
}

/// The order of the stages: auth prelude, request headers, interceptors in order, SigV4 last.
@Suite struct InterceptorTests {
    @Test func stagesRunInOrderAndSigV4SignsWhatTheInterceptorsAdded() async throws {
        let transport = InMemoryTransport(body: "{}")
        let plugin = try makePlugin([.rest(authorizationType: .awsIAM)], transport: transport)
        let first = SpyInterceptor(setting: ("x-stage", "first"))
        let second = SpyInterceptor(setting: ("x-stage", "second"))
        try plugin.add(interceptor: first, for: "items")
        try plugin.add(interceptor: second, for: "items")
        _ = try await plugin.post(
            request: RESTRequest(path: "/items", headers: ["x-request": "header"], body: Data("{}".utf8))
        )
        // The first interceptor sees the prelude and the request's headers, unsigned.
        #expect(first.seenHeaders == [["content-type": "application/json", "x-request": "header"]])
        // The second sees what the first added.
        #expect(
            second.seenHeaders == [["content-type": "application/json", "x-request": "header", "x-stage": "first"]]
        )
        let sent = try #require(transport.requests.first).headers
        #expect(sent["x-stage"] == "second")
        #expect(sent["x-amz-date"] == "20231114T221320Z")
        #expect(
            sent["authorization"]?.contains(
                "SignedHeaders=content-type;host;x-amz-date;x-amz-security-token;x-request;x-stage,"
            ) == true
        )
    }

    @Test func interceptorsSeeTheTokenAndCanReplaceIt() async throws {
        let transport = InMemoryTransport(body: #"{"data":{}}"#)
        let plugin = try makePlugin([.graphQL(authorizationType: .openIDConnect, apiKey: nil)], transport: transport)
        let spy = SpyInterceptor(setting: ("authorization", "Bearer replaced"))
        try plugin.add(interceptor: spy, for: "blog")
        _ = try await plugin.query(request: GraphQLRequest(document: "{ ping }", responseType: JSONValue.self))
        #expect(spy.seenHeaders == [["content-type": "application/json", "authorization": "oidc-token"]])
        #expect(transport.requests.first?.headers["authorization"] == "Bearer replaced")
    }

    /// With AWS_IAM, an `authorization` an interceptor sets is replaced by the signature.
    @Test func sigV4ComesAfterTheInterceptors() async throws {
        let transport = InMemoryTransport(body: #"{"data":{}}"#)
        let plugin = try makePlugin([.graphQL(authorizationType: .awsIAM, apiKey: nil)], transport: transport)
        try plugin.add(interceptor: HeaderInterceptor(name: "x-stage", value: "interceptor"), for: "blog")
        _ = try await plugin.query(
            request: GraphQLRequest(document: "query { ping }", responseType: JSONValue.self)
        )
        // botocore's SigV4Auth signs the same request to this signature.
        #expect(
            transport.requests.first?.headers["authorization"]
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20231114/us-east-1/appsync/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-security-token;x-stage, Signature=4c93868cb4e8a1bf3dc60bbee07fa3c2d865030130a4c9b7a5daae0be049e407"
        )
    }

    @Test func requestHeadersOverrideThePrelude() async throws {
        let transport = InMemoryTransport(body: "{}")
        let plugin = try makePlugin([.rest(authorizationType: .apiKey, apiKey: "key")], transport: transport)
        _ = try await plugin.put(
            request: RESTRequest(path: "/items/1", headers: ["Content-Type": "text/plain"], body: Data("x".utf8))
        )
        #expect(transport.requests.first?.headers == ["content-type": "text/plain", "x-api-key": "key"])
    }

    @Test func interceptorsAreKeptPerAPI() async throws {
        let transport = InMemoryTransport(body: #"{"data":{}}"#)
        let plugin = try makePlugin([.graphQL(), .rest(authorizationType: .none)], transport: transport)
        try plugin.add(interceptor: HeaderInterceptor(name: "x-api", value: "rest"), for: "items")
        _ = try await plugin.query(request: GraphQLRequest(document: "{ ping }", responseType: JSONValue.self))
        _ = try await plugin.get(request: RESTRequest())
        #expect(transport.requests.map { $0.headers["x-api"] } == [nil, "rest"])
    }

    @Test func aFailingInterceptorFailsTheRequest() async throws {
        struct Refusing: URLRequestInterceptor {
            struct Refused: Error {}
            func intercept(_ request: URLRequest) throws -> URLRequest { throw Refused() }
        }
        let transport = InMemoryTransport(body: "{}")
        let plugin = try makePlugin([.rest(authorizationType: .none)], transport: transport)
        try plugin.add(interceptor: Refusing(), for: "items")
        #expect(
            await thrownMessage { _ = try await plugin.get(request: RESTRequest()) }
                == "The interceptor Refusing of the API 'items' failed: Refused(). Fix the interceptor, or remove it."
        )
        #expect(transport.requests.isEmpty)
    }

    @Test func interceptorsRunAgainForEachRetry() async throws {
        let transport = InMemoryTransport([
            .json("{}", status: 503, headers: ["retry-after": "0"]), .json("{}"),
        ])
        let plugin = try makePlugin(
            [.rest(authorizationType: .none)],
            transport: transport,
            retryPolicy: RetryPolicy(maximumAttempts: 2)
        )
        let spy = SpyInterceptor()
        try plugin.add(interceptor: spy, for: "items")
        _ = try await plugin.get(request: RESTRequest())
        #expect(spy.seenHeaders.count == 2)
        #expect(transport.requests.count == 2)
    }
}
