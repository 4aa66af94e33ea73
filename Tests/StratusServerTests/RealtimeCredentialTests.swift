import AWSPluginsCore
import Foundation
import StratusCodegen
import Testing

@testable import StratusCognito
@testable import StratusServer

/// Real-time connections and subscriptions authorized with a token end when it expires or is
/// revoked: a WebSocket opened before `GlobalSignOut` or before its token's `exp` heard events
/// and accepted new subscriptions for as long as it stayed open.
@Suite struct RealtimeCredentialTests {
    static let expired =
        #"{"type":"connection_error","payload":{"errors":[{"errorType":"UnauthorizedException","#
        + #""message":"Token has expired.","errorCode":401}]}}"#
    static let revoked =
        #"{"type":"connection_error","payload":{"errors":[{"errorType":"UnauthorizedException","#
        + #""message":"You are not authorized to make this call.","errorCode":401}]}}"#

    /// A server whose API trusts the local user pool of `fixture`, on `clock`.
    struct Endpoint: Sendable {
        let server: StratusServer
        let fixture: CognitoUserPoolTests.Fixture
        let port: Int

        var host: String { "127.0.0.1:\(port)" }

        /// A socket authorized by `token`, with `connection_ack` read.
        func connect(token: String) async throws -> RealtimeSocket {
            let header: JSON = ["host": .string(host), "Authorization": .string(token)]
            let socket = RealtimeSocket(
                url: "ws://\(host)/graphql/realtime?header=\(Data(header.text.utf8).base64EncodedString())&payload=e30="
            )
            socket.send(#"{"type":"connection_init"}"#)
            #expect(try await socket.next()?.hasPrefix(#"{"type":"connection_ack""#) == true)
            return socket
        }

        /// Alice's ID token, signed in now.
        func idToken() async throws -> String {
            try #require(try await fixture.signIn()["IdToken"]?.stringValue)
        }

        /// Signs Alice out everywhere with `accessToken`.
        func signOut(_ accessToken: String) async {
            #expect(await fixture.call("GlobalSignOut", ["AccessToken": .string(accessToken)]).status == 200)
        }

        func create(_ id: String) async {
            _ = await server.execute(
                query: #"mutation { createPost(input: {id: "\#(id)", title: "t", rating: 1, status: DRAFT}) { id } }"#,
                identity: .apiKey
            )
        }
    }

    static func withEndpoint(
        clock: TestClock = TestClock(),
        checkInterval: Duration,
        _ body: (Endpoint) async throws -> Void
    ) async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = try await CognitoUserPoolTests.Fixture(clock: clock)
        let server = try await TestStore.server(
            schema: try SchemaParser().parse(
                postSchemaForEveryMode + """

                    type Subscription {
                      onAnyPost: Post @aws_subscribe(mutations: ["createPost"]) @aws_api_key @aws_cognito_user_pools
                    }
                    """
            ),
            directory: directory
        )
        let http = StratusHTTPServer(
            server: server,
            authorization: ServerAuthorization(
                defaultMode: .amazonCognitoUserPools,
                additionalModes: [.apiKey, .awsIAM],
                apiKeys: [APIKey(value: "da2-valid")]
            ),
            realtimeLimits: RealtimeLimits(credentialCheckInterval: checkInterval),
            cognito: fixture.pool,
            clock: { clock.now },
            log: { _ in }
        )
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task { try await http.run(port: 0) { continuation.yield($0) } }
        defer { task.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        try await body(Endpoint(server: server, fixture: fixture, port: port))
        task.cancel()
        _ = await task.result
        try server.close()
    }

    static let subscribe = RealtimeTests.start("s", "subscription { onCreatePost { id } }")

    @Test func aConnectionIsClosedWhenItsTokenExpires() async throws {
        let clock = TestClock()
        try await Self.withEndpoint(clock: clock, checkInterval: .milliseconds(50)) { endpoint in
            let socket = try await endpoint.connect(token: try await endpoint.idToken())
            socket.send(Self.subscribe)
            #expect(try await socket.next() == #"{"id":"s","type":"start_ack"}"#)
            await endpoint.create("p1")
            #expect(
                try await socket.next() == #"{"id":"s","type":"data","payload":{"data":{"onCreatePost":{"id":"p1"}}}}"#
            )
            // Past the hour the local pool's tokens live.
            clock.advance(milliseconds: 3_601_000)
            #expect(try await socket.next() == Self.expired)
            #expect(await socket.waitUntilClosed())
        }
    }

    @Test func aConnectionIsClosedWhenItsTokenIsRevokedBySignOut() async throws {
        try await Self.withEndpoint(checkInterval: .milliseconds(50)) { endpoint in
            let tokens = try await endpoint.fixture.signIn()
            let socket = try await endpoint.connect(token: try #require(tokens["IdToken"]?.stringValue))
            socket.send(Self.subscribe)
            #expect(try await socket.next() == #"{"id":"s","type":"start_ack"}"#)
            await endpoint.signOut(try #require(tokens["AccessToken"]?.stringValue))
            #expect(try await socket.next() == Self.revoked)
            #expect(await socket.waitUntilClosed())
        }
    }

    /// A `start` on the connection's credentials checks them again, whenever the connection's
    /// next periodic check would come.
    @Test func aStartAfterSignOutIsRefusedAndTheConnectionClosed() async throws {
        try await Self.withEndpoint(checkInterval: .seconds(3600)) { endpoint in
            let tokens = try await endpoint.fixture.signIn()
            let socket = try await endpoint.connect(token: try #require(tokens["IdToken"]?.stringValue))
            await endpoint.signOut(try #require(tokens["AccessToken"]?.stringValue))
            socket.send(Self.subscribe)
            #expect(try await socket.next() == Self.revoked)
            #expect(await socket.waitUntilClosed())
        }
    }

    /// A subscription started with a token of its own on an API key connection stops when that
    /// token is revoked; the connection and its other subscriptions go on. The same for a
    /// hand-written subscription (`@aws_subscribe`) and a model one.
    @Test(arguments: ["onCreatePost", "onAnyPost"])
    func aSubscriptionStartedWithARevokedTokenStops(field: String) async throws {
        try await Self.withEndpoint(checkInterval: .milliseconds(50)) { endpoint in
            let header: JSON = ["host": .string(endpoint.host), "x-api-key": "da2-valid"]
            let socket = RealtimeSocket(
                url: "ws://\(endpoint.host)/graphql/realtime?header=\(Data(header.text.utf8).base64EncodedString())"
                    + "&payload=e30="
            )
            socket.send(#"{"type":"connection_init"}"#)
            #expect(try await socket.next()?.hasPrefix(#"{"type":"connection_ack""#) == true)
            let tokens = try await endpoint.fixture.signIn()
            let data: JSON = ["query": .string("subscription { \(field) { id } }"), "variables": [:]]
            let start: JSON = [
                "id": "user", "type": "start",
                "payload": [
                    "data": .string(data.text),
                    "extensions": [
                        "authorization": [
                            "host": .string(endpoint.host),
                            "Authorization": .string(try #require(tokens["IdToken"]?.stringValue)),
                        ]
                    ],
                ],
            ]
            socket.send(start)
            #expect(try await socket.next() == #"{"id":"user","type":"start_ack"}"#)
            socket.send(RealtimeTests.start("key", "subscription { onCreatePost { id } }"))
            #expect(try await socket.next() == #"{"id":"key","type":"start_ack"}"#)
            await endpoint.signOut(try #require(tokens["AccessToken"]?.stringValue))
            #expect(
                try await socket.next()
                    == #"{"id":"user","type":"error","payload":{"errors":[{"errorType":"UnauthorizedException","#
                    + #""message":"You are not authorized to make this call.","errorCode":401}]}}"#
            )
            await endpoint.create("p1")
            #expect(
                try await socket.next()
                    == #"{"id":"key","type":"data","payload":{"data":{"onCreatePost":{"id":"p1"}}}}"#
            )
            await socket.close()
        }
    }

    /// A connection opened with identity-pool credentials ends when they stop holding: their
    /// user deleted (or disabled), or the credentials expired, as an HTTP request with them is
    /// refused.
    @Test func aConnectionWithIdentityPoolCredentialsEndsWhenItsUserIsDeleted() async throws {
        let clock = TestClock()
        try await Self.withEndpoint(clock: clock, checkInterval: .milliseconds(50)) { endpoint in
            let fixture = endpoint.fixture
            let poolId = try #require(fixture.pool.configuration.identityPoolId)
            let idToken = try await endpoint.idToken()
            let logins: JSON = .object([fixture.pool.loginKey: .string(idToken)])
            let identityId = try #require(
                await fixture.identity("GetId", ["IdentityPoolId": .string(poolId), "Logins": logins])
                    .body["IdentityId"]?.stringValue
            )
            let issued = await fixture.identity(
                "GetCredentialsForIdentity",
                ["IdentityId": .string(identityId), "Logins": logins]
            ).body["Credentials"]
            let credentials = AWSCredentials(
                accessKeyId: try #require(issued?["AccessKeyId"]?.stringValue),
                secretAccessKey: try #require(issued?["SecretKey"]?.stringValue),
                sessionToken: issued?["SessionToken"]?.stringValue
            )
            let connect = try #require(URL(string: "http://\(endpoint.host)/graphql/connect"))
            let signed = SignedRequests.post(
                "{}",
                to: connect,
                headers: ["host": endpoint.host, "content-type": "application/json; charset=UTF-8"],
                credentials: credentials,
                date: clock.now
            )
            var header = JSONObject()
            for field in signed.headers { header[field.name] = .string(field.value) }
            let socket = RealtimeSocket(
                url: "ws://\(endpoint.host)/graphql/realtime?header="
                    + "\(Data(JSON.object(header).text.utf8).base64EncodedString())&payload=e30="
            )
            socket.send(#"{"type":"connection_init"}"#)
            #expect(try await socket.next()?.hasPrefix(#"{"type":"connection_ack""#) == true)
            try await fixture.pool.deleteUser("alice")
            #expect(
                try await socket.next()
                    == #"{"type":"connection_error","payload":{"errors":[{"errorType":"UnrecognizedClientException","#
                    + #""message":"The security token included in the request is invalid.","errorCode":403}]}}"#
            )
            #expect(await socket.waitUntilClosed())
        }
    }
}
