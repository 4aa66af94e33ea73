import AWSWire
import Foundation
import HTTPTypes
import StratusCodegen
import StratusServer
import Synchronization
import Testing

/// The real-time endpoint over real sockets: §6's connection auth carriers, messages, error
/// bodies, limits, filters and exactly-once delivery.
@Suite struct RealtimeTests {
    /// A running server for real-time tests.
    struct Endpoint: Sendable {
        let server: StratusServer
        let port: Int

        var host: String { "127.0.0.1:\(port)" }
        var realtimeURL: String { "ws://127.0.0.1:\(port)/graphql/realtime" }
        var graphQLURL: URL { URL(string: "http://127.0.0.1:\(port)/graphql")! }

        /// The URL with the connection's header object in the query, as gql and Amplify send it.
        func realtimeURL(header: JSON) -> String {
            realtimeURL + "?header=" + Data(header.text.utf8).base64EncodedString() + "&payload=e30="
        }

        /// A socket authorized by the API key in the query, with `connection_ack` read.
        func connect() async throws -> RealtimeSocket {
            let socket = RealtimeSocket(url: realtimeURL(header: ["host": .string(host), "x-api-key": "da2-valid"]))
            socket.send(#"{"type":"connection_init","payload":{}}"#)
            let ack = try await socket.next()
            #expect(ack == #"{"type":"connection_ack","payload":{"connectionTimeoutMs":300000}}"#)
            return socket
        }

        @discardableResult
        func create(id: String, title: String = "Hello", rating: Int = 1) async -> String {
            await server.execute(
                query: "mutation($input: CreatePostInput!) { createPost(input: $input) { id title rating status } }",
                variables: [
                    "input": [
                        "id": .string(id), "title": .string(title), "rating": .int(rating), "status": "DRAFT",
                    ]
                ],
                identity: .apiKey
            ).text
        }
    }

    static let authorization = ServerAuthorization(
        defaultMode: .apiKey,
        additionalModes: [.awsIAM, .function],
        apiKeys: [APIKey(value: "da2-valid")],
        iamCredentials: [HTTPEndpointTests.accessKey],
        lambdaAuthorizer: { token in LambdaAuthorization(isAuthorized: token == "allow") }
    )

    /// A server on a free port with a temporary data directory, stopped at the end of `body`.
    static func withEndpoint(
        authorization: ServerAuthorization = authorization,
        limits: RealtimeLimits = RealtimeLimits(),
        schema: String? = nil,
        configuration: ServerConfiguration = ServerConfiguration(),
        requestHistory: RequestHistory? = nil,
        liveMonitor: LiveMonitor? = nil,
        _ body: (Endpoint) async throws -> Void
    ) async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Without a schema: the post schema; an API of mode NONE alone has no directive to name,
        // the others admit their additional modes on the model.
        let schema = schema ?? (authorization.modes == [.none] ? postSchema : postSchemaForEveryMode)
        let server = try await TestStore.server(
            schema: try SchemaParser().parse(schema),
            configuration: configuration,
            directory: directory
        )
        let http = StratusHTTPServer(
            server: server,
            authorization: authorization,
            realtimeLimits: limits,
            log: { _ in },
            requestHistory: requestHistory,
            liveMonitor: liveMonitor
        )
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task { try await http.run(port: 0) { continuation.yield($0) } }
        defer { task.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        try await body(Endpoint(server: server, port: port))
        task.cancel()
        _ = await task.result
        try server.close()
    }

    static func start(_ id: String, _ query: String, variables: JSON = [:]) -> JSON {
        let data: JSON = ["query": .string(query), "variables": variables]
        return ["id": .string(id), "type": "start", "payload": ["data": .string(data.text), "extensions": [:]]]
    }

    // MARK: - Connection authorization

    enum Carrier: String, CaseIterable, Sendable {
        case query, subprotocol, upgradeHeaders
    }

    @Test(arguments: Carrier.allCases)
    func apiKeyFromEachCarrierIsAccepted(carrier: Carrier) async throws {
        try await Self.withEndpoint { endpoint async throws in
            let header: JSON = ["host": .string(endpoint.host), "x-api-key": "da2-valid"]
            let socket: RealtimeSocket
            switch carrier {
            case .query:
                socket = RealtimeSocket(url: endpoint.realtimeURL(header: header))
            case .subprotocol:
                let encoded = Data(header.text.utf8).base64EncodedString()
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                    .replacingOccurrences(of: "=", with: "")
                socket = RealtimeSocket(url: endpoint.realtimeURL, subprotocols: ["graphql-ws", "header-\(encoded)"])
            case .upgradeHeaders:
                socket = RealtimeSocket(url: endpoint.realtimeURL, headers: [HTTPField.Name("x-api-key")!: "da2-valid"])
            }
            socket.send(#"{"type":"connection_init"}"#)
            #expect(try await socket.next() == #"{"type":"connection_ack","payload":{"connectionTimeoutMs":300000}}"#)
            #expect(try await socket.next(keepAlives: true) == #"{"type":"ka"}"#)
            await socket.close()
        }
    }

    @Test func aWrongKeyGetsConnectionErrorAndTheConnectionCloses() async throws {
        try await Self.withEndpoint { endpoint async throws in
            let socket = RealtimeSocket(
                url: endpoint.realtimeURL(header: ["host": .string(endpoint.host), "x-api-key": "da2-wrong"])
            )
            socket.send(#"{"type":"connection_init"}"#)
            #expect(
                try await socket.next()
                    == #"{"type":"connection_error","payload":{"errors":[{"errorType":"UnauthorizedException","message":"You are not authorized to make this call.","errorCode":401}]}}"#
            )
            #expect(await socket.waitUntilClosed())
        }
    }

    @Test func lambdaTokensAreHandedToTheAuthorizer() async throws {
        try await Self.withEndpoint { endpoint async throws in
            let allowed = RealtimeSocket(
                url: endpoint.realtimeURL(header: ["host": .string(endpoint.host), "Authorization": "allow"])
            )
            allowed.send(#"{"type":"connection_init"}"#)
            #expect(try await allowed.next()?.hasPrefix(#"{"type":"connection_ack""#) == true)
            await allowed.close()
            let denied = RealtimeSocket(
                url: endpoint.realtimeURL(header: ["host": .string(endpoint.host), "Authorization": "deny"])
            )
            denied.send(#"{"type":"connection_init"}"#)
            #expect(try await denied.next()?.hasPrefix(#"{"type":"connection_error""#) == true)
        }
    }

    @Test func noneNeedsNoCredentials() async throws {
        try await Self.withEndpoint(authorization: ServerAuthorization(defaultMode: .none)) { endpoint async throws in
            let socket = RealtimeSocket(url: endpoint.realtimeURL)
            socket.send(#"{"type":"connection_init"}"#)
            #expect(try await socket.next()?.hasPrefix(#"{"type":"connection_ack""#) == true)
            socket.send(Self.start("1", "subscription { onCreatePost { id } }"))
            #expect(try await socket.next() == #"{"id":"1","type":"start_ack"}"#)
            await endpoint.create(id: "p1")
            #expect(
                try await socket.next() == #"{"id":"1","type":"data","payload":{"data":{"onCreatePost":{"id":"p1"}}}}"#
            )
            await socket.close()
        }
    }

    /// Header objects signed with SigV4 as AppSync clients sign them: the connection over
    /// `POST /graphql/connect` with body `{}`, each start over `POST /graphql` with its `data`.
    static func signedHeaders(
        url: URL,
        body: String,
        secret: String = HTTPEndpointTests.accessKey.secretAccessKey
    )
        -> JSON
    {
        let key = HTTPEndpointTests.accessKey
        let signed = SignedRequests.post(
            body,
            to: url,
            headers: [
                "host": "\(url.host!):\(url.port!)",
                "accept": "application/json, text/javascript", "content-encoding": "amz-1.0",
                "content-type": "application/json; charset=UTF-8",
            ],
            credentials: AWSCredentials(
                accessKeyId: key.accessKeyId,
                secretAccessKey: secret,
                sessionToken: key.sessionToken
            )
        )
        return .object(JSONObject(signed.headers.map { ($0.name, JSON.string($0.value)) }))
    }

    @Test func iamSignedConnectionsAndStartsAreVerified() async throws {
        try await Self.withEndpoint { endpoint async throws in
            let connect = endpoint.graphQLURL.appending(path: "connect")
            let socket = RealtimeSocket(url: endpoint.realtimeURL(header: Self.signedHeaders(url: connect, body: "{}")))
            socket.send(#"{"type":"connection_init"}"#)
            #expect(try await socket.next()?.hasPrefix(#"{"type":"connection_ack""#) == true)

            let data: JSON = ["query": "subscription { onCreatePost { id title } }", "variables": [:]]
            let signed: JSON = [
                "id": "s", "type": "start",
                "payload": [
                    "data": .string(data.text),
                    "extensions": ["authorization": Self.signedHeaders(url: endpoint.graphQLURL, body: data.text)],
                ],
            ]
            socket.send(signed)
            #expect(try await socket.next() == #"{"id":"s","type":"start_ack"}"#)
            let forged: JSON = [
                "id": "f", "type": "start",
                "payload": [
                    "data": .string(data.text),
                    "extensions": [
                        "authorization": Self.signedHeaders(url: endpoint.graphQLURL, body: data.text, secret: "wrong")
                    ],
                ],
            ]
            socket.send(forged)
            let refused = try #require(try await socket.next())
            #expect(refused.hasPrefix(#"{"id":"f","type":"error","payload":{"errors":[{"errorType":"#))
            #expect(refused.contains("does not match"))
            await endpoint.create(id: "p1", title: "Signed")
            #expect(
                try await socket.next()
                    == #"{"id":"s","type":"data","payload":{"data":{"onCreatePost":{"id":"p1","title":"Signed"}}}}"#
            )
            await socket.close()

            let tampered = RealtimeSocket(
                url: endpoint.realtimeURL(header: Self.signedHeaders(url: connect, body: "{\"x\":1}"))
            )
            tampered.send(#"{"type":"connection_init"}"#)
            #expect(try await tampered.next()?.hasPrefix(#"{"type":"connection_error""#) == true)
        }
    }

    // MARK: - Messages and errors

    @Test func stopIsAnsweredWithCompleteAndEndsDelivery() async throws {
        try await Self.withEndpoint { endpoint async throws in
            let socket = try await endpoint.connect()
            socket.send(Self.start("a", "subscription { onCreatePost { id } }"))
            socket.send(Self.start("b", "subscription Named { created: onCreatePost { title rating __typename } }"))
            #expect(try await socket.next() == #"{"id":"a","type":"start_ack"}"#)
            #expect(try await socket.next() == #"{"id":"b","type":"start_ack"}"#)
            await endpoint.create(id: "p1", title: "One", rating: 4)
            let first = [try await socket.next(), try await socket.next()].compactMap { $0 }.sorted()
            #expect(
                first == [
                    #"{"id":"a","type":"data","payload":{"data":{"onCreatePost":{"id":"p1"}}}}"#,
                    #"{"id":"b","type":"data","payload":{"data":{"created":{"title":"One","rating":4,"__typename":"Post"}}}}"#,
                ]
            )
            socket.send(#"{"id":"a","type":"stop"}"#)
            #expect(try await socket.next() == #"{"id":"a","type":"complete"}"#)
            await endpoint.create(id: "p2", title: "Two")
            #expect(
                try await socket.next()
                    == #"{"id":"b","type":"data","payload":{"data":{"created":{"title":"Two","rating":1,"__typename":"Post"}}}}"#
            )
            await socket.close()
        }
    }

    @Test(
        arguments: [
            (
                "subscription { onCreatePost { nope } }",
                #"{"id":"1","type":"error","payload":{"errors":[{"errorType":"ValidationError","message":"Validation error of type FieldUndefined: Field 'nope' in type 'Post' is undefined @ 'onCreatePost/nope'"}]}}"#
            ),
            (
                "query { listPosts { items { id } } }",
                #"{"id":"1","type":"error","payload":{"errors":[{"errorType":"UnsupportedOperation","message":"query not supported through the realtime channel"}]}}"#
            ),
            (
                #"subscription { onCreatePost(filter: {rating: {in: [1, 2, 3, 4, 5, 6]}}) { id } }"#,
                #"{"id":"1","type":"error","payload":{"errors":[{"errorType":"ValidationException","message":"The filter operator 'in' takes at most 5 values; it got 6."}]}}"#
            ),
        ]
    )
    func invalidStartsGetAnErrorMessage(query: String, expected: String) async throws {
        try await Self.withEndpoint { endpoint async throws in
            let socket = try await endpoint.connect()
            socket.send(Self.start("1", query))
            #expect(try await socket.next() == expected)
            await socket.close()
        }
    }

    /// Variables that cannot be read would, read as none, widen the filter: the start is refused.
    @Test func unreadableVariablesRefuseTheStart() async throws {
        try await Self.withEndpoint { endpoint async throws in
            let socket = try await endpoint.connect()
            let query = "subscription S($f: ModelSubscriptionPostFilterInput) { onCreatePost(filter: $f) { id } }"
            socket.send(Self.start("1", query, variables: "{not json"))
            #expect(
                try await socket.next()
                    == #"{"id":"1","type":"error","payload":{"errors":[{"errorType":"MalformedHttpRequestException","message":"Unable to parse GraphQL query."}]}}"#
            )
            await socket.close()
        }
    }

    @Test func aStartBeforeConnectionInitIsRefused() async throws {
        try await Self.withEndpoint { endpoint async throws in
            let socket = RealtimeSocket(
                url: endpoint.realtimeURL(header: ["host": .string(endpoint.host), "x-api-key": "da2-valid"])
            )
            socket.send(Self.start("early", "subscription { onCreatePost { id } }"))
            #expect(
                try await socket.next()
                    == #"{"id":"early","type":"error","payload":{"errors":[{"errorType":"BadRequestException","message":"The connection is not initialized. Send connection_init and wait for connection_ack before start."}]}}"#
            )
            await socket.close()
        }
    }

    @Test func theHundredAndFirstSubscriptionIsRefused() async throws {
        try await Self.withEndpoint { endpoint async throws in
            let socket = try await endpoint.connect()
            for index in 1...101 {
                socket.send(Self.start("s\(index)", "subscription { onCreatePost { id } }"))
            }
            for index in 1...100 {
                #expect(try await socket.next() == #"{"id":"s\#(index)","type":"start_ack"}"#)
            }
            #expect(
                try await socket.next()
                    == #"{"id":"s101","type":"error","payload":{"errors":[{"errorType":"MaxSubscriptionsReachedError","message":"Max number of 100 subscriptions reached. Stop a subscription before starting another."}]}}"#
            )
            socket.send(#"{"id":"s1","type":"stop"}"#)
            #expect(try await socket.next() == #"{"id":"s1","type":"complete"}"#)
            socket.send(Self.start("s101", "subscription { onCreatePost { id } }"))
            #expect(try await socket.next() == #"{"id":"s101","type":"start_ack"}"#)
            await socket.close()
        }
    }

    @Test func oversizedStartsAreRefused() async throws {
        try await Self.withEndpoint(limits: RealtimeLimits(maxPayloadBytes: 1000)) { endpoint async throws in
            let socket = try await endpoint.connect()
            let padding = String(repeating: " ", count: 1200)
            socket.send(Self.start("big", "subscription {\(padding) onCreatePost { id } }"))
            #expect(
                try await socket.next()
                    == #"{"id":"big","type":"error","payload":{"errors":[{"errorType":"LimitExceededError","message":"The message is larger than 1000 bytes, the largest a subscription payload may be."}]}}"#
            )
            await socket.close()
        }
    }

    // Timing tests allow a minute: other suites may hold the concurrency pool's threads.

    @Test func keepAlivesArriveEveryInterval() async throws {
        let limits = RealtimeLimits(keepAliveInterval: .milliseconds(100))
        try await Self.withEndpoint(limits: limits) { endpoint async throws in
            let socket = try await endpoint.connect()
            for _ in 0..<3 {
                #expect(try await socket.next(timeout: .seconds(60), keepAlives: true) == #"{"type":"ka"}"#)
            }
            await socket.close()
        }
    }

    @Test func aSilentConnectionIsClosedAfterTheTimeout() async throws {
        // 3 s, so that a loaded machine acknowledges the connection well within it.
        let limits = RealtimeLimits(connectionTimeout: .seconds(3))
        try await Self.withEndpoint(limits: limits) { endpoint async throws in
            let socket = RealtimeSocket(
                url: endpoint.realtimeURL(header: ["host": .string(endpoint.host), "x-api-key": "da2-valid"])
            )
            socket.send(#"{"type":"connection_init"}"#)
            let began = ContinuousClock.now
            #expect(await socket.waitUntilClosed(timeout: .seconds(60)))
            #expect(ContinuousClock.now - began >= .milliseconds(2900))
            #expect(try await socket.next() == #"{"type":"connection_ack","payload":{"connectionTimeoutMs":3000}}"#)
        }
    }

    // MARK: - Filters

    @Test(
        arguments: [
            (#"{rating: {gt: 3}}"#, ["b", "d"]),
            (#"{title: {beginsWith: "Sw"}, rating: {le: 4}}"#, ["b"]),
            (#"{or: [{rating: {eq: 1}}, {title: {contains: "ft"}}]}"#, ["a", "b", "d"]),
            (#"{or: [{rating: {between: [2, 4]}}, {title: {eq: "Soft"}}]}"#, ["a", "b", "c"]),
            (#"{and: [{rating: {ne: 1}}, {title: {notContains: "w"}}], status: {eq: "DRAFT"}}"#, ["c", "d"]),
            (#"{rating: {in: [1, 3]}}"#, ["a", "c"]),
            (#"{rating: {notIn: [1, 3]}}"#, ["b", "d"]),
        ]
    )
    func filtersSelectTheEvents(filter: String, expected: [String]) async throws {
        try await Self.withEndpoint { endpoint async throws in
            let socket = try await endpoint.connect()
            socket.send(Self.start("f", "subscription { onCreatePost(filter: \(filter)) { id } }"))
            socket.send(Self.start("end", #"subscription { onCreatePost(filter: {title: {eq: "End"}}) { id } }"#))
            #expect(try await socket.next() == #"{"id":"f","type":"start_ack"}"#)
            #expect(try await socket.next() == #"{"id":"end","type":"start_ack"}"#)
            await endpoint.create(id: "a", title: "Soft", rating: 1)
            await endpoint.create(id: "b", title: "Swift", rating: 4)
            await endpoint.create(id: "c", title: "Sand", rating: 3)
            await endpoint.create(id: "d", title: "Draft", rating: 5)
            await endpoint.create(id: "z", title: "End", rating: 0)
            var received: [String] = []
            while let message = try await socket.next() {
                let json = try JSON(parsing: message)
                let id = json["payload"]?["data"]?["onCreatePost"]?["id"]?.stringValue ?? ""
                if json["id"]?.stringValue == "end" { break }
                // The closing event may also match the filter under test.
                if id != "z" { received.append(id) }
            }
            #expect(received == expected)
            await socket.close()
        }
    }

    @Test func updatesAndDeletesReachTheirSubscriptionsWithTheStoredItem() async throws {
        try await Self.withEndpoint { endpoint async throws in
            let socket = try await endpoint.connect()
            socket.send(
                Self.start("u", "subscription { onUpdatePost(filter: {rating: {ge: 2}}) { id title rating _version } }")
            )
            socket.send(Self.start("d", "subscription { onDeletePost { id title _deleted _version } }"))
            #expect(try await socket.next() == #"{"id":"u","type":"start_ack"}"#)
            #expect(try await socket.next() == #"{"id":"d","type":"start_ack"}"#)
            await endpoint.create(id: "p", title: "Before", rating: 1)
            _ = await endpoint.server.execute(
                query:
                    #"mutation { updatePost(input: {id: "p", rating: 2, _version: 1}) { id title rating _version } }"#,
                identity: .apiKey
            )
            #expect(
                try await socket.next()
                    == #"{"id":"u","type":"data","payload":{"data":{"onUpdatePost":{"id":"p","title":"Before","rating":2,"_version":2}}}}"#
            )
            // The delete does not select the title: subscribers get it as null, as from AppSync.
            // Aliases in the mutation's selection name the same fields.
            _ = await endpoint.server.execute(
                query: #"mutation { deletePost(input: {id: "p", _version: 2}) { id gone: _deleted v: _version } }"#,
                identity: .apiKey
            )
            #expect(
                try await socket.next()
                    == #"{"id":"d","type":"data","payload":{"data":{"onDeletePost":{"id":"p","title":null,"_deleted":true,"_version":3}}}}"#
            )
            await socket.close()
        }
    }

    // MARK: - Delivery

    @Test func everyCommittedMutationReachesEachSubscriberExactlyOnceInOrder() async throws {
        try await Self.withEndpoint { endpoint async throws in
            let sockets = [try await endpoint.connect(), try await endpoint.connect()]
            for socket in sockets {
                socket.send(Self.start("c", "subscription { onCreatePost { id } }"))
                socket.send(Self.start("u", "subscription { onUpdatePost { id rating } }"))
                #expect(try await socket.next() == #"{"id":"c","type":"start_ack"}"#)
                #expect(try await socket.next() == #"{"id":"u","type":"start_ack"}"#)
            }
            let count = 300
            let server = endpoint.server
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<count {
                    group.addTask {
                        await endpoint.create(id: "p\(index % 30)-\(index)", rating: 0)
                    }
                }
                // Concurrent updates of one item: their events arrive in commit order.
                group.addTask {
                    await endpoint.create(id: "hot", rating: 0)
                    for version in 1...30 {
                        _ = await server.execute(
                            query:
                                "mutation { updatePost(input: {id: \"hot\", rating: \(version), _version: \(version)}) { id rating } }",
                            identity: .apiKey
                        )
                    }
                }
            }
            for socket in sockets {
                var created: [String: Int] = [:]
                var ratings: [Int] = []
                while created.values.reduce(0, +) < count + 1 || ratings.count < 30 {
                    let message = try #require(try await socket.next())
                    let json = try JSON(parsing: message)
                    if let id = json["payload"]?["data"]?["onCreatePost"]?["id"]?.stringValue {
                        created[id, default: 0] += 1
                    } else if let rating = json["payload"]?["data"]?["onUpdatePost"]?["rating"]?.intValue {
                        ratings.append(rating)
                    }
                }
                #expect(created.count == count + 1)
                #expect(created.values.allSatisfy { $0 == 1 })
                #expect(ratings == Array(1...30))
                await #expect(throws: RealtimeSocketTimeout.self) { try await socket.next(timeout: .milliseconds(300)) }
                await socket.close()
            }
        }
    }
}
