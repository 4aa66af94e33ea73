import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StratusBackend
import StratusCodegen
import StratusCognito
import StratusConsole
import StratusServer
import Testing

/// The Stratus Console and its admin API: who may use them, and what they answer.
@Suite struct ConsoleTests {
    static let schema = """
        type Note @model @auth(rules: [{ allow: owner }, { allow: public }]) { id: ID! text: String }
        """
    static let secret = "console-test-secret"

    /// A backend with the console on a data directory of its own, listening on a free port.
    final class Served {
        let backend: Backend
        let serving: Backend.Serving
        let directory: URL
        var origin: String { "http://127.0.0.1:\(serving.port)" }

        /// `authorization` replaces the API key (and user pools with `cognito`) of the other tests.
        init(
            schema: String = ConsoleTests.schema,
            secret: String? = ConsoleTests.secret,
            console: Bool = true,
            authorization: ServerAuthorization? = nil,
            cognito: Bool = false,
            server: ServerConfiguration = ServerConfiguration(),
            localOpenIDConnect: Bool = false,
            clock: @escaping @Sendable () -> Date = { Date() }
        ) async throws {
            directory = FileManager.default.temporaryDirectory.appending(path: "stratus-console-\(UUID().uuidString)")
            var configuration =
                Backend.Configuration(
                    schema: try SchemaParser().parse(schema),
                    store: .dataDirectory(directory),
                    server: server,
                    authorization: authorization
                        ?? ServerAuthorization(
                            defaultMode: .apiKey,
                            additionalModes: cognito ? [.amazonCognitoUserPools] : []
                        ),
                    usesStoredAPIKey: true,
                    cognito: cognito ? CognitoConfiguration() : nil,
                    clock: clock,
                    log: { _ in },
                    cognitoLog: { _ in },
                    console: console ? Backend.ConsoleSettings(secret: secret) : nil
                )
            configuration.localOpenIDConnect = localOpenIDConnect
            backend = try await Backend.open(configuration)
            serving = try await backend.start()
        }

        func stop() async {
            await serving.stop()
            try? backend.close()
            try? FileManager.default.removeItem(at: directory)
        }

        /// Sends a request to `path`; no redirect is followed.
        func send(
            _ method: HTTPMethod = .GET,
            _ path: String,
            body: String? = nil,
            headers: [(String, String)] = []
        ) async throws -> (status: Int, headers: HTTPHeaders, body: String) {
            var request = HTTPClientRequest(url: origin + path)
            request.method = method
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            if let body {
                request.headers.add(name: "content-type", value: "application/json")
                request.body = .bytes(ByteBuffer(string: body))
            }
            // Generous: creating a user hashes its password (scrypt), slow in a debug build on a busy
            // machine; a passing test does not wait for it.
            let response = try await ConsoleTests.client.execute(request, timeout: .seconds(60))
            let bytes = try await response.body.collect(upTo: 1 << 20)
            return (Int(response.status.code), response.headers, String(buffer: bytes))
        }
    }

    /// A client that follows no redirect, to see the console's own answers.
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// Each route of the console and of its admin API.
    static let routes: [(method: HTTPMethod, path: String, body: String?)] = [
        (.GET, "/console", nil),
        (.GET, "/console/console.js", nil),
        (.GET, "/console/api/models", nil),
        (.GET, "/console/api/identities", nil),
        (.GET, "/console/api/requests", nil),
        (.GET, "/console/api/live", nil),
        (.POST, "/console/api/graphql", #"{"query":"{ listNotes { items { id text } } }"}"#),
        (.POST, "/console/api/credentials", #"{"identity":{"type":"API_KEY"},"path":"/graphql/connect"}"#),
        (.GET, "/console/api/users", nil),
        (.GET, "/console/api/inbox", nil),
        (.POST, "/console/api/users", #"{"username":"carol","password":"Carol-pass1!"}"#),
        (.POST, "/console/api/users/confirm", #"{"username":"alice"}"#),
        (.POST, "/console/api/users/disable", #"{"username":"alice"}"#),
        (.POST, "/console/api/users/enable", #"{"username":"alice"}"#),
        (.POST, "/console/api/users/delete", #"{"username":"alice"}"#),
        (.POST, "/console/api/users/groups", #"{"username":"alice","group":"admins","member":false}"#),
        (.POST, "/console/api/users/password", #"{"username":"alice","password":"Other-pass1!"}"#),
        (.GET, "/console/api/functions", nil),
        (.POST, "/console/api/devices", #"{"path":"/tmp/stratus-console-no-device.sqlite"}"#),
    ]

    /// The routes that change nothing, answered 200 however often they are called.
    static let readRoutes = 0..<10
    /// The Users page's routes, which answer with a local Cognito only.
    static let usersRoutes = 8..<17

    static let unauthorizedAPIBody =
        #"{"errors":[{"errorType":"UnauthorizedException","message":"The console needs the admin secret: open the "#
        + #"Console URL stratus serve printed (it sets a session cookie), or send Authorization: Bearer <secret>."}]}"#

    /// Each route, with a user the Users routes would change: nothing is answered and nothing
    /// changes.
    @Test(arguments: routes.indices) func aRequestWithoutTheSecretGets401AndNoData(route: Int) async throws {
        let (method, path, body) = Self.routes[route]
        let served = try await Served(cognito: Self.usersRoutes.contains(route))
        let pool = served.backend.cognito
        if let pool {
            _ = try await pool.createGroupIfMissing("admins")
            try await pool.addUser(username: "alice", password: "Alice-pass1!", groups: ["admins"])
        }
        let users = try await pool?.listUsers()
        let withoutSecret = try await served.send(method, path, body: body)
        let wrongSecret = try await served.send(method, path, body: body, headers: [("authorization", "Bearer nope")])
        let wrongCookie = try await served.send(
            method,
            path,
            body: body,
            headers: [("cookie", "stratus_console_\(served.serving.port)=0123")]
        )
        let usersAfter = try await pool?.listUsers()
        await served.stop()
        #expect(usersAfter == users)
        for answer in [withoutSecret, wrongSecret, wrongCookie] {
            #expect(answer.status == 401)
            #expect(answer.headers["www-authenticate"] == ["Bearer"])
            if path.hasPrefix("/console/api/") {
                #expect(answer.body == Self.unauthorizedAPIBody)
            } else {
                #expect(
                    answer.body
                        == "The console needs the admin secret: open the Console URL stratus serve printed (it sets "
                        + "a session cookie), or send Authorization: Bearer <secret>."
                )
            }
        }
    }

    @Test(arguments: routes.indices) func aRequestFromAnotherSiteGets403EvenWithTheSecret(route: Int) async throws {
        let served = try await Served(cognito: Self.usersRoutes.contains(route))
        let (method, path, body) = Self.routes[route]
        let bearer = ("authorization", "Bearer \(Self.secret)")
        let otherOrigin = try await served.send(
            method,
            path,
            body: body,
            headers: [bearer, ("origin", "http://evil.example")]
        )
        let otherPort = try await served.send(
            method,
            path,
            body: body,
            headers: [bearer, ("origin", "http://127.0.0.1:1")]
        )
        let crossSite = try await served.send(
            method,
            path,
            body: body,
            headers: [bearer, ("sec-fetch-site", "cross-site")]
        )
        let sameSite = try await served.send(
            method,
            path,
            body: body,
            headers: [bearer, ("sec-fetch-site", "same-site")]
        )
        await served.stop()
        #expect([otherOrigin, otherPort, crossSite, sameSite].map(\.status) == [403, 403, 403, 403])
        #expect(!crossSite.body.contains("Note") && !crossSite.body.contains("items"))
        if path.hasPrefix("/console/api/") {
            #expect(
                otherOrigin.body
                    == #"{"errors":[{"errorType":"AccessDeniedException","message":"The console answers only its own "#
                    + #"pages; this request comes from another site (Origin: http://evil.example)."}]}"#
            )
        }
    }

    @Test(arguments: readRoutes) func aRequestWithTheSecretIsAnswered(route: Int) async throws {
        let served = try await Served(cognito: Self.usersRoutes.contains(route))
        let (method, path, body) = Self.routes[route]
        let own = served.origin
        let bearer = try await served.send(
            method,
            path,
            body: body,
            headers: [("authorization", "Bearer \(Self.secret)")]
        )
        let page = try await served.send(
            method,
            path,
            body: body,
            headers: [
                (
                    "cookie",
                    "other=1; stratus_console_\(served.serving.port)=\(ConsoleAccess(secret: Self.secret).sessionToken)"
                ),
                ("origin", own), ("sec-fetch-site", "same-origin"),
            ]
        )
        await served.stop()
        #expect(bearer.status == 200)
        #expect(page.status == 200)
        #expect(bearer.headers["cache-control"] == ["no-store"] || bearer.headers["cache-control"] == ["no-cache"])
        #expect(bearer.headers["x-frame-options"] == ["DENY"])
    }

    @Test func theConsoleURLTradesTheSecretForASessionCookie() async throws {
        let served = try await Served()
        let url = try #require(served.backend.consoleURL(origin: served.origin))
        #expect(url == "\(served.origin)/console?secret=\(Self.secret)")
        let visit = try await served.send(.GET, "/console?secret=\(Self.secret)", headers: [("sec-fetch-site", "none")])
        let wrong = try await served.send(.GET, "/console?secret=guess")
        let cookie = try #require(visit.headers["set-cookie"].first)
        let session = String(cookie.split(separator: ";")[0])
        let page = try await served.send(.GET, "/console", headers: [("cookie", session)])
        let models = try await served.send(.GET, "/console/api/models", headers: [("cookie", session)])
        await served.stop()
        #expect(visit.status == 303)
        #expect(visit.headers["location"] == ["/console"])
        #expect(
            cookie
                == "stratus_console_\(served.serving.port)=\(ConsoleAccess(secret: Self.secret).sessionToken); "
                + "Path=/console; HttpOnly; SameSite=Strict"
        )
        #expect(!cookie.contains(Self.secret))
        #expect(wrong.status == 401)
        #expect(wrong.headers["set-cookie"].isEmpty)
        #expect(page.status == 200)
        #expect(page.headers["content-type"] == ["text/html; charset=utf-8"])
        for name in ["explorer", "data", "live", "requests"] {
            #expect(page.body.contains(#"data-testid="nav-\#(name)""#))
        }
        #expect(models.status == 200)
    }

    @Test func thePageIsServedWithItsContentTypes() async throws {
        let served = try await Served()
        let bearer = ("authorization", "Bearer \(Self.secret)")
        var types: [String: [String]] = [:]
        for file in ["console.css", "console.js", "explorer.js", "data.js", "api.js", "requests.js", "live.js"] {
            let answer = try await served.send(.GET, "/console/\(file)", headers: [bearer])
            #expect(answer.status == 200, "\(file)")
            types[file] = answer.headers["content-type"]
        }
        let outside = try await served.send(.GET, "/console/..%2Fapi-key", headers: [bearer])
        let missing = try await served.send(.GET, "/console/nothing.js", headers: [bearer])
        await served.stop()
        #expect(types["console.css"] == ["text/css; charset=utf-8"])
        #expect(types["console.js"] == ["text/javascript; charset=utf-8"])
        #expect(outside.status == 404)
        #expect(missing.status == 404)
        #expect(missing.body == "The console has no file at /console/nothing.js.")
    }

    @Test func withoutTheConsoleNothingIsServedAtItsPath() async throws {
        let served = try await Served(console: false)
        let answer = try await served.send(.GET, "/console/api/models")
        let url = served.backend.consoleURL(origin: served.origin)
        await served.stop()
        #expect(answer.status == 404)
        #expect(url == nil)
        // Nothing is kept of the requests either.
        #expect(served.backend.http.requestHistory == nil)
    }

    @Test func theDataDirectoryKeepsTheSecretItMade() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "stratus-console-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        func open() async throws -> Backend {
            try await Backend.open(
                Backend.Configuration(
                    schema: try SchemaParser().parse(Self.schema),
                    store: .dataDirectory(directory),
                    authorization: ServerAuthorization(defaultMode: .apiKey),
                    usesStoredAPIKey: true,
                    log: { _ in },
                    console: Backend.ConsoleSettings()
                )
            )
        }
        let first = try await open()
        let url = try #require(first.consoleURL(origin: "http://h"))
        try first.close()
        let second = try await open()
        defer { try? second.close() }
        let file = directory.appending(path: "console-secret")
        let stored = try String(contentsOf: file, encoding: .utf8)
        #expect(stored.count == 64)
        #expect(url == "http://h/console?secret=\(stored)")
        #expect(second.consoleURL(origin: "http://h") == url)
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func anEmptySecretIsRefused() async throws {
        await #expect {
            try await Served(secret: "")
        } throws: { error in
            "\(error)" == "The console secret is empty. Give one, or leave it out to have one made."
        }
    }

    // MARK: - The admin API

    static func post(_ served: Served, _ body: String) async throws -> String {
        let answer = try await served.send(
            .POST,
            "/console/api/graphql",
            body: body,
            headers: [("authorization", "Bearer \(Self.secret)")]
        )
        #expect(answer.status == 200, "\(answer.body)")
        return answer.body
    }

    @Test func graphQLRunsAsTheAPIKey() async throws {
        let served = try await Served()
        let created = try await Self.post(
            served,
            #"{"query":"mutation { createNote(input: {id: \"n1\", text: \"hi\"}) { id text owner } }","#
                + #""identity":{"type":"API_KEY"}}"#
        )
        let listed = try await Self.post(served, #"{"query":"{ listNotes { items { id text } } }"}"#)
        let unknown = try await served.send(
            .POST,
            "/console/api/graphql",
            body: #"{"query":"{ listNotes { items { id } } }","identity":{"type":"X"}}"#,
            headers: [("authorization", "Bearer \(Self.secret)")]
        )
        await served.stop()
        #expect(created == #"{"status":200,"response":{"data":{"createNote":{"id":"n1","text":"hi","owner":null}}}}"#)
        #expect(listed == #"{"status":200,"response":{"data":{"listNotes":{"items":[{"id":"n1","text":"hi"}]}}}}"#)
        #expect(unknown.status == 400)
        #expect(
            unknown.body
                == #"{"errors":[{"errorType":"BadRequestException","message":"Unknown identity type 'X'. Use API_KEY, "#
                + #"AMAZON_COGNITO_USER_POOLS with a username, AWS_IAM with an accessKeyId or identityPool (guest, or "#
                + #"user with a username), or OPENID_CONNECT or AWS_LAMBDA with a token."}]}"#
        )
    }

    /// Tokens the local pool issues for each user, checked by the API's owner rule like a client's.
    @Test func graphQLRunsAsEachCognitoUserWithTheirOwnTokens() async throws {
        let served = try await Served(cognito: true)
        let pool = try #require(served.backend.cognito)
        try await pool.addUser(username: "alice", password: "Alice-pass1!")
        try await pool.addUser(username: "bob", password: "Bob-pass1!")
        func create(_ id: String, as user: String) async throws -> String {
            try await Self.post(
                served,
                #"{"query":"mutation { createNote(input: {id: \"\#(id)\"}) { id owner } }","#
                    + #""identity":{"type":"AMAZON_COGNITO_USER_POOLS","username":"\#(user)"}}"#
            )
        }
        let alicesNote = try await create("a1", as: "alice")
        _ = try await create("b1", as: "bob")
        let list = #""query":"{ listNotes { items { id owner } } }""#
        let alicesList = try await Self.post(
            served,
            "{\(list),\"identity\":{\"type\":\"AMAZON_COGNITO_USER_POOLS\",\"username\":\"alice\"}}"
        )
        let bobsList = try await Self.post(
            served,
            "{\(list),\"identity\":{\"type\":\"AMAZON_COGNITO_USER_POOLS\",\"username\":\"bob\"}}"
        )
        let nobody = try await served.send(
            .POST,
            "/console/api/graphql",
            body: "{\(list),\"identity\":{\"type\":\"AMAZON_COGNITO_USER_POOLS\",\"username\":\"carol\"}}",
            headers: [("authorization", "Bearer \(Self.secret)")]
        )
        let identities = try await served.send(
            .GET,
            "/console/api/identities",
            headers: [("authorization", "Bearer \(Self.secret)")]
        )
        let subs = Dictionary(uniqueKeysWithValues: try await pool.listUsers().map { ($0.username, $0.sub) })
        let (alice, bob) = (try #require(subs["alice"]) + "::alice", try #require(subs["bob"]) + "::bob")
        await served.stop()
        #expect(
            alicesNote == #"{"status":200,"response":{"data":{"createNote":{"id":"a1","owner":"\#(alice)"}}}}"#
        )
        #expect(
            alicesList
                == #"{"status":200,"response":{"data":{"listNotes":{"items":[{"id":"a1","owner":"\#(alice)"}]}}}}"#
        )
        #expect(
            bobsList == #"{"status":200,"response":{"data":{"listNotes":{"items":[{"id":"b1","owner":"\#(bob)"}]}}}}"#
        )
        #expect(nobody.status == 400)
        #expect(nobody.body.contains("Cannot run as Cognito user 'carol'"))
        #expect(
            identities.body
                == #"{"defaultMode":"API_KEY","identities":[{"type":"API_KEY","label":"API key"},"#
                + #"{"type":"AMAZON_COGNITO_USER_POOLS","username":"alice","label":"Cognito user alice"},"#
                + #"{"type":"AMAZON_COGNITO_USER_POOLS","username":"bob","label":"Cognito user bob"}]}"#
        )
    }

    // MARK: - Requests

    /// bob's update of alice's note, refused by the owner rule: the Requests route shows who
    /// was refused, by which rule, and the request to replay.
    @Test func requestsShowEachDecisionWithTheRuleThatRefused() async throws {
        let served = try await Served(cognito: true)
        let pool = try #require(served.backend.cognito)
        try await pool.addUser(username: "alice", password: "Alice-pass1!")
        try await pool.addUser(username: "bob", password: "Bob-pass1!")
        let bearer = ("authorization", "Bearer \(Self.secret)")
        _ = try await Self.post(
            served,
            #"{"query":"mutation { createNote(input: {id: \"a1\"}) { id } }","#
                + #""identity":{"type":"AMAZON_COGNITO_USER_POOLS","username":"alice"}}"#
        )
        let before = try await served.send(.GET, "/console/api/requests", headers: [bearer])
        let refused = try await Self.post(
            served,
            #"{"query":"mutation Trespass($input: UpdateNoteInput!) { updateNote(input: $input) { id } }","#
                + #""variables":{"input":{"id":"a1","text":"bob's"}},"#
                + #""identity":{"type":"AMAZON_COGNITO_USER_POOLS","username":"bob"}}"#
        )
        let seen = try #require(JSON(parsing: before.body)["requests"]?.arrayValue?.first?["sequence"]?.intValue)
        let after = try await served.send(.GET, "/console/api/requests?after=\(seen)", headers: [bearer])
        let all = try await served.send(.GET, "/console/api/requests", headers: [bearer])
        let wrong = try await served.send(.GET, "/console/api/requests?after=x", headers: [bearer])
        let bobsSub = try #require(try await pool.listUsers().first { $0.username == "bob" }?.sub)
        await served.stop()
        #expect(refused.contains(#""errorType":"Unauthorized""#))
        let newer = try #require(JSON(parsing: after.body)["requests"]?.arrayValue)
        try #require(newer.count == 1, "\(after.body)")
        var record = try #require(newer[0].objectValue)
        #expect(record["sequence"] == .int(seen + 1))
        for varying in ["requestId", "time", "durationMs"] {
            #expect(record[varying] != nil)
            record[varying] = nil
        }
        let expected: JSON = [
            "sequence": .int(seen + 1), "transport": "HTTP", "method": "POST", "path": "/graphql",
            "operationType": "mutation", "operationName": "Trespass", "authorizationMode": "AMAZON_COGNITO_USER_POOLS",
            "identity": "bob",
            "decision": [
                "outcome": "REFUSED",
                "reasons": [
                    "Not Authorized to access updateNote on type Mutation (at updateNote)",
                    .string(
                        "The owner rule on 'owner' refused the item: it holds none of the caller's identities "
                            + "('\(bobsSub)::bob', '\(bobsSub)', 'bob')."
                    ),
                ],
            ],
            "status": 200, "resolverCount": 1,
            "errors": [
                [
                    "path": ["updateNote"], "data": nil, "errorType": "Unauthorized", "errorInfo": nil,
                    "locations": [["line": 1, "column": 47, "sourceName": nil]],
                    "message": "Not Authorized to access updateNote on type Mutation",
                ]
            ],
            "query": "mutation Trespass($input: UpdateNoteInput!) { updateNote(input: $input) { id } }",
            "variables": ["input": ["id": "a1", "text": "bob's"]],
        ]
        #expect(JSON.object(record) == expected, "\(JSON.object(record).text)")
        let everything = try #require(JSON(parsing: all.body).objectValue)
        #expect(everything["capacity"] == 500)
        let decisions = everything["requests"]?.arrayValue?.map { $0["decision"]?["outcome"]?.stringValue ?? "-" }
        #expect(decisions == ["REFUSED", "ALLOWED"])
        #expect(wrong.status == 400)
        #expect(
            wrong.body
                == #"{"errors":[{"errorType":"BadRequestException","message":"The 'after' parameter is 'x'. Give the "#
                + #"sequence number of the last request seen (0 or more)."}]}"#
        )
    }

    // MARK: - Live

    /// A write made through the API is told as it commits, with the item as stored.
    @Test func liveShowsEachCommittedWrite() async throws {
        let served = try await Served()
        let bearer = ("authorization", "Bearer \(Self.secret)")
        let empty = try await served.send(.GET, "/console/api/live", headers: [bearer])
        _ = try await Self.post(
            served,
            #"{"query":"mutation { createNote(input: {id: \"n1\", text: \"hi\"}) { id } }"}"#
        )
        let after = try await served.send(.GET, "/console/api/live?after=0", headers: [bearer])
        let none = try await served.send(.GET, "/console/api/live?after=1", headers: [bearer])
        await served.stop()
        #expect(empty.body == #"{"capacity":200,"deliveries":0,"connections":[],"events":[]}"#)
        let events = try #require(JSON(parsing: after.body)["events"]?.arrayValue)
        try #require(events.count == 1, "\(after.body)")
        var event = try #require(events[0].objectValue)
        #expect(event["time"] != nil)
        event["time"] = nil
        var item = try #require(event["item"]?.objectValue)
        for varying in ["createdAt", "updatedAt", "_lastChangedAt"] {
            #expect(item[varying] != nil, "\(varying)")
            item[varying] = nil
        }
        event["item"] = .object(item)
        #expect(
            JSON.object(event)
                == [
                    "sequence": 1, "model": "Note", "kind": "create", "mutation": "createNote",
                    "item": ["id": "n1", "text": "hi", "_version": 1, "_deleted": nil],
                ],
            "\(JSON.object(event).text)"
        )
        #expect(none.body == #"{"capacity":200,"deliveries":0,"connections":[],"events":[]}"#)
    }
}
