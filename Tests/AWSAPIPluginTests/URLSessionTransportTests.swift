import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import Foundation
import StratusTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The URLSession transport over real connections to a server on 127.0.0.1.
@Suite struct URLSessionTransportTests {
    func plugin(
        _ endpoints: [AWSAPIPluginConfiguration.Endpoint],
        retryPolicy: RetryPolicy = .never,
        clock: APIClock = .system
    ) throws -> AWSAPIPlugin {
        let plugin = AWSAPIPlugin(
            apiAuthProviderFactory: TestAuthProviderFactory(),
            credentialsProvider: testCredentials,
            retryPolicy: retryPolicy,
            clock: clock
        )
        try plugin.configure(AWSAPIPluginConfiguration(endpoints: endpoints))
        return plugin
    }

    /// Cancelling the task that sends cancels the request: a send held by a black hole ends
    /// with `URLError(.cancelled)`. Sends cancelled while their answers arrive all end too:
    /// `URLSession.data(for:)` on Linux could stop for good there (its cancellation held the
    /// task's lock while waiting for the session's queue, which waited for that lock), and the
    /// AppSync client's suite hung on it.
    @Test(.timeLimit(.minutes(1)))
    func cancellingTheSenderCancelsTheRequestAndNeverHangs() async throws {
        let server = try LoopbackHTTPServer { _, _ in
            .init(status: 200, headers: ["Content-Type": "application/json"], body: "{}")
        }
        defer { server.stop() }
        let proxy = try await FaultProxy.start(targetPort: server.port)
        let transport = URLSessionTransport()
        var request = URLRequest(url: proxy.url(proxying: URL(string: "http://127.0.0.1:\(server.port)/")!))
        request.httpMethod = "POST"
        request.httpBody = Data("{}".utf8)
        proxy.blackHole()
        let held = Task { try await transport.send(request) }
        try await Task.sleep(for: .milliseconds(200))
        held.cancel()
        let outcome = await held.result
        guard case .failure(let error) = outcome else {
            Issue.record("a cancelled send was answered: \(outcome)")
            await proxy.stop()
            return
        }
        #expect((error as? URLError)?.code == .cancelled, "\(error)")
        proxy.resume()
        #expect(try await transport.send(request).statusCode == 200)
        for attempt in 0..<200 {
            let send = Task { try await transport.send(request) }
            if attempt % 2 == 0 { await Task.yield() }
            send.cancel()
            _ = await send.result
        }
        await proxy.stop()
    }

    /// A GraphQL request signed with AWS_IAM verifies on the server side as it arrived.
    @Test func iamSignatureVerifiesAsReceived() async throws {
        let server = try LoopbackHTTPServer { _, _ in
            .init(
                status: 200,
                headers: ["Content-Type": "application/json", "x-amzn-RequestId": "r1"],
                body: #"{"data":{"a":1}}"#
            )
        }
        defer { server.stop() }
        let url = URL(string: "http://127.0.0.1:\(server.port)/graphql")!
        let plugin = try plugin([.graphQL(url: url, authorizationType: .awsIAM, apiKey: nil)])
        try plugin.add(interceptor: HeaderInterceptor(name: "x-stage", value: "signed"), for: "blog")
        let response = try await plugin.query(request: GraphQLRequest(document: "{ a }", responseType: JSONValue.self))
        #expect(try response.get() == ["a": 1])

        let received = try #require(server.requests.first)
        #expect(received.method == "POST")
        #expect(received.target == "/graphql")
        #expect(received.header("x-stage") == "signed")
        #expect(received.header("content-type") == "application/json")
        let verifier = SigV4Verifier(service: "appsync", region: "us-east-1") { accessKeyId in
            accessKeyId == "AKIDEXAMPLE"
                ? (secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", sessionToken: "session-token") : nil
        }
        let identity = try verifier.verify(
            method: received.method,
            path: received.target,
            query: nil,
            headers: SigV4Request.Headers(received.headers.map { .init(name: $0.name, value: $0.value) }),
            body: received.body
        )
        #expect(identity.accessKeyId == "AKIDEXAMPLE")
    }

    @Test func restStatusHeadersAndEncodedURL() async throws {
        let server = try LoopbackHTTPServer { _, _ in
            .init(status: 201, headers: ["Location": "/items/9", "X-Custom": "yes"], body: #"{"id":9}"#)
        }
        defer { server.stop() }
        let url = URL(string: "http://127.0.0.1:\(server.port)/dev")!
        let plugin = try plugin([.rest(url: url, authorizationType: .apiKey, apiKey: "rest-key")])
        let response = try await plugin.send(
            .post,
            request: RESTRequest(path: "/items/a b", queryParameters: ["q": "café & co"], body: Data(#"{"n":1}"#.utf8))
        )
        #expect(response.statusCode == 201)
        #expect(response.headers["location"] == "/items/9")
        #expect(response.headers["x-custom"] == "yes")
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"id":9}"#)
        let received = try #require(server.requests.first)
        #expect(received.target == "/dev/items/a%20b?q=caf%C3%A9%20%26%20co")
        #expect(received.header("x-api-key") == "rest-key")
        #expect(received.body == Data(#"{"n":1}"#.utf8))
    }

    @Test func retriesOverTheWire() async throws {
        let server = try LoopbackHTTPServer { _, index in
            index == 0
                ? .init(status: 503, headers: ["Retry-After": "1"]) : .init(status: 200, body: #"{"data":{"a":2}}"#)
        }
        defer { server.stop() }
        let clock = TestClock()
        let url = URL(string: "http://127.0.0.1:\(server.port)/graphql")!
        let plugin = try plugin([.graphQL(url: url)], retryPolicy: .standard, clock: clock.clock)
        let response = try await plugin.query(request: GraphQLRequest(document: "{ a }", responseType: JSONValue.self))
        #expect(try response.get() == ["a": 2])
        #expect(server.requests.count == 2)
        #expect(clock.recordedWaits == [.seconds(1)])
    }

    @Test func aRefusedConnectionIsANetworkError() async throws {
        let server = try LoopbackHTTPServer { _, _ in .init(status: 200) }
        let port = server.port
        server.stop()
        let plugin = try plugin([.graphQL(url: URL(string: "http://127.0.0.1:\(port)/graphql")!)])
        do {
            _ = try await plugin.query(request: GraphQLRequest(document: "{ a }", responseType: JSONValue.self))
            Issue.record("expected an error")
        } catch APIError.networkError(let message, let underlying) {
            #expect(
                message
                    == "The request to http://127.0.0.1:\(port)/graphql could not connect to the server; check that it is running."
            )
            #expect((underlying as? URLError)?.code == .cannotConnectToHost)
        }
    }
}
