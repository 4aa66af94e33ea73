import AWSWire
import Foundation
import StratusServer
import Testing

/// The `Host` header must name the server: a page of another site reaching it through a name
/// of its own (DNS rebinding) is refused, over HTTP, WebSocket upgrades and SigV4 signatures.
@Suite struct HostCheckTests {
    /// A `POST /graphql` with the API key, naming `host`, on a connection closed after it.
    static func request(host: String) -> String {
        let body = #"{"query":"{ getPost(id: \"1\") { id } }"}"#
        return "POST /graphql HTTP/1.1\r\nHost: \(host)\r\nContent-Type: application/json\r\nx-api-key: da2-valid\r\n"
            + "Connection: close\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
    }

    /// The message refusing `authority`, whose name is `name`.
    static func message(_ authority: String, name: String) -> String {
        #"The Host header '\#(authority)' does not name this server: a page of another site may be reaching it "#
            + #"through a name of its own (DNS rebinding). If clients reach the server as '\#(name)', start it with "#
            + #"--allowed-host \#(name) (or list it in \"allowedHosts\" in the --config file)."#
    }

    /// The body of the refusal of `authority`.
    static func refusal(_ authority: String, name: String) -> String {
        #"{"errors":[{"errorType":"BadRequestException","message":"\#(message(authority, name: name))"}]}"#
    }

    @Test func aRequestNamingAnotherHostIsRefused() async throws {
        try await HTTPEndpointTests.withEndpoint { url in
            let port = try #require(url.port)
            let socket = try RawSocket(port: port)
            socket.write(Self.request(host: "rebind.attacker.example:\(port)"))
            let answer = try #require(await socket.answer(within: .seconds(30)))
            #expect(answer.hasPrefix("HTTP/1.1 421 Misdirected Request\r\n"))
            #expect(
                answer.hasSuffix(
                    "\r\n\r\n" + Self.refusal("rebind.attacker.example:\(port)", name: "rebind.attacker.example")
                )
            )
        }
    }

    @Test(arguments: ["127.0.0.1", "localhost", "LOCALHOST.", "[::1]", "10.1.2.3"])
    func theServersOwnNamesAndAddressesAreAnswered(host: String) async throws {
        try await HTTPEndpointTests.withEndpoint { url in
            let port = try #require(url.port)
            let socket = try RawSocket(port: port)
            socket.write(Self.request(host: "\(host):\(port)"))
            let answer = try #require(await socket.answer(within: .seconds(30)))
            #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(answer.hasSuffix(#"{"data":{"getPost":null}}"#))
        }
    }

    @Test func aConfiguredNameIsAnswered() async throws {
        try await HTTPEndpointTests.withEndpoint(allowedHosts: ["api.example.com"]) { url in
            let port = try #require(url.port)
            let allowed = try RawSocket(port: port)
            allowed.write(Self.request(host: "API.example.com"))
            #expect(try #require(await allowed.answer(within: .seconds(30))).hasPrefix("HTTP/1.1 200 OK\r\n"))
            let other = try RawSocket(port: port)
            other.write(Self.request(host: "www.example.com"))
            let answer = try #require(await other.answer(within: .seconds(30)))
            #expect(answer.hasPrefix("HTTP/1.1 421 Misdirected Request\r\n"))
            #expect(answer.hasSuffix(Self.refusal("www.example.com", name: "www.example.com")))
        }
    }

    /// An upgrade naming another host gets the refusal as `connection_error`, and nothing it
    /// sends is read.
    @Test func aWebSocketUpgradeNamingAnotherHostIsRefused() async throws {
        try await HTTPEndpointTests.withEndpoint { url in
            let socket = try RawSocket(port: try #require(url.port))
            let header = Data(#"{"host":"127.0.0.1","x-api-key":"da2-valid"}"#.utf8).base64EncodedString()
            socket.write(
                "GET /graphql/realtime?header=\(header)&payload=e30= HTTP/1.1\r\nHost: rebind.attacker.example\r\n"
                    + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: graphql-ws\r\n\r\n"
            )
            socket.writeWebSocketText(#"{"type":"connection_init"}"#)
            let refusal =
                #"{"type":"connection_error","payload":{"errors":[{"errorType":"BadRequestException","#
                + #""message":"\#(Self.message("rebind.attacker.example", name: "rebind.attacker.example"))","#
                + #""errorCode":421}]}}"#
            let answer = try #require(await socket.answer(within: .seconds(30)))
            #expect(answer.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
            #expect(answer.contains(refusal))
            #expect(!answer.contains("connection_ack"))
        }
    }

    /// A signature made for another server, an AppSync API with the same credentials, is not
    /// accepted when replayed here: the real-time header object names the signed host.
    @Test func aSignatureForAnotherHostIsRefused() async throws {
        try await RealtimeTests.withEndpoint { endpoint async throws in
            let foreign = try #require(URL(string: "https://example.appsync-api.us-east-1.amazonaws.com:443/graphql"))
            let header = RealtimeTests.signedHeaders(url: foreign.appending(path: "connect"), body: "{}")
            let socket = RealtimeSocket(url: endpoint.realtimeURL(header: header))
            socket.send(#"{"type":"connection_init"}"#)
            #expect(
                try await socket.next()
                    == #"{"type":"connection_error","payload":{"errors":[{"errorType":"InvalidSignatureException","#
                    + #""message":"The request is signed for the host 'example.appsync-api.us-east-1.amazonaws.com:443', "#
                    + #"which is not this server. Sign it for the host the server is reached by.","errorCode":403}]}}"#
            )
            #expect(await socket.waitUntilClosed())

            // The same connection signed for the server is accepted.
            let own = RealtimeSocket(
                url: endpoint.realtimeURL(
                    header: RealtimeTests.signedHeaders(url: endpoint.graphQLURL.appending(path: "connect"), body: "{}")
                )
            )
            own.send(#"{"type":"connection_init"}"#)
            #expect(try await own.next()?.hasPrefix(#"{"type":"connection_ack""#) == true)
            await own.close()
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var listening: String
        var configured: [String] = []
        var authority: String?
        var allowed: Bool
        var testDescription: String { "\(authority ?? "none") on \(listening) \(configured): \(allowed)" }
    }

    @Test(
        arguments: [
            Case(listening: "127.0.0.1", authority: "127.0.0.1:20002", allowed: true),
            Case(listening: "127.0.0.1", authority: "localhost", allowed: true),
            Case(listening: "127.0.0.1", authority: "[::1]:20002", allowed: true),
            Case(listening: "127.0.0.1", authority: "::1", allowed: true),
            Case(listening: "127.0.0.1", authority: nil, allowed: true),
            Case(listening: "127.0.0.1", authority: "devbox", allowed: false),
            Case(listening: "127.0.0.1", authority: "localhost.attacker.example", allowed: false),
            Case(listening: "0.0.0.0", authority: "devbox:20002", allowed: true),
            Case(listening: "0.0.0.0", authority: "devbox.attacker.example", allowed: false),
            Case(listening: "stratus.internal", authority: "stratus.internal:20002", allowed: true),
            Case(listening: "127.0.0.1", configured: ["*"], authority: "anything.example", allowed: true),
        ]
    )
    func theAllowedNames(_ test: Case) {
        let hosts = AllowedHosts(listeningOn: test.listening, configured: test.configured, machineName: "devbox")
        #expect(hosts.allows(test.authority) == test.allowed)
    }
}
