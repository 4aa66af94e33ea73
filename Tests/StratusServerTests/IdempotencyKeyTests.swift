import Crypto
import Foundation
import GRDB
import StratusCodegen
import Testing

@testable import StratusServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `Idempotency-Key` on mutations over HTTP: a repeat gets the first response and writes
/// nothing, another body gets 422, a repeat under way 409, malformed keys 400; keys live in the
/// data directory, per caller, until they expire.
@Suite struct IdempotencyKeyTests {
    static let schema = """
        type Note @model @aws_api_key @aws_iam {
          id: ID!
          text: String!
        }
        """
    static let create = #"{"query":"mutation { createNote(input: {text: \"hello\"}) { id text _version } }"}"#
    static let count = #"{"query":"{ listNotes { items { id } } }"}"#

    /// A server on `directory` behind a real socket, closed at the end of `body`.
    static func withEndpoint(
        directory: URL,
        configuration: ServerConfiguration = ServerConfiguration(),
        _ body: (URL) async throws -> Void
    ) async throws {
        let schema = try SchemaParser().parse(Self.schema)
        let server = try await TestStore.server(schema: schema, configuration: configuration, directory: directory)
        let authorization = ServerAuthorization(
            defaultMode: .apiKey,
            additionalModes: [.awsIAM],
            apiKeys: [APIKey(value: "da2-valid")],
            iamCredentials: [HTTPEndpointTests.accessKey]
        )
        try await withHTTPEndpoint(server, authorization: authorization, body)
    }

    /// Like ``withEndpoint(directory:configuration:_:)`` on a temporary directory.
    static func withEndpoint(
        configuration: ServerConfiguration = ServerConfiguration(),
        _ body: (URL) async throws -> Void
    ) async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withEndpoint(directory: directory, configuration: configuration, body)
    }

    static func post(
        _ url: URL,
        _ body: String,
        key: String?
    ) async throws -> (status: Int, headers: [String: String], body: String) {
        var headers = ["x-api-key": "da2-valid", "content-type": "application/json"]
        if let key { headers["Idempotency-Key"] = key }
        return try await HTTPEndpointTests.exchange(url, body: body, headers: headers)
    }

    static func noteCount(_ url: URL) async throws -> Int {
        let response = try await post(url, count, key: nil)
        let json = try JSON(parsing: Data(response.body.utf8))
        return try #require(json["data"]?["listNotes"]?["items"]?.arrayValue?.count, "\(response.body)")
    }

    @Test func aRepeatGetsTheFirstResponseAndWritesNothing() async throws {
        try await Self.withEndpoint { url in
            let first = try await Self.post(url, Self.create, key: "8e03978e-40d5-43e8-bc93-6894a57f9324")
            #expect(first.status == 200)
            #expect(first.headers["idempotent-replayed"] == nil)
            #expect(first.body.hasPrefix(#"{"data":{"createNote":{"id":""#), "\(first.body)")
            let repeated = try await Self.post(url, Self.create, key: "8e03978e-40d5-43e8-bc93-6894a57f9324")
            #expect(repeated.status == 200)
            #expect(repeated.headers["idempotent-replayed"] == "true")
            #expect(repeated.body == first.body)
            // A structured-field string is the same key.
            let quoted = try await Self.post(url, Self.create, key: #""8e03978e-40d5-43e8-bc93-6894a57f9324""#)
            #expect(quoted.body == first.body)
            #expect(try await Self.noteCount(url) == 1)
        }
    }

    @Test func theSameKeyWithAnotherBodyIsRefusedWith422() async throws {
        try await Self.withEndpoint { url in
            _ = try await Self.post(url, Self.create, key: "key-1")
            let other = #"{"query":"mutation { createNote(input: {text: \"other\"}) { id } }"}"#
            let refused = try await Self.post(url, other, key: "key-1")
            #expect(refused.status == 422)
            #expect(
                refused.body
                    == #"{"errors":[{"errorType":"IdempotencyKeyReusedException","message":"The Idempotency-Key "#
                    + #"'key-1' was already used for a request with another body. Send the same body to get the "#
                    + #"first response again, or use a new key for a new mutation."}]}"#
            )
            #expect(try await Self.noteCount(url) == 1)
        }
    }

    @Test func queriesAndMutationsWithoutAKeyRunAsBefore() async throws {
        try await Self.withEndpoint { url in
            _ = try await Self.post(url, Self.create, key: nil)
            _ = try await Self.post(url, Self.create, key: nil)
            // A query ignores the header, even a malformed one.
            let query = try await Self.post(url, Self.count, key: "two words")
            #expect(query.status == 200)
            #expect(query.headers["idempotent-replayed"] == nil)
            let again = try await Self.post(url, Self.count, key: "two words")
            #expect(again.headers["idempotent-replayed"] == nil)
            #expect(try await Self.noteCount(url) == 2)
        }
    }

    static let advice = "Send 1 to 255 visible ASCII characters, such as a UUID, unique to the mutation."

    @Test(
        arguments: [
            ("Idempotency-Key: \r\n", "The Idempotency-Key header is empty. \(advice)"),
            ("Idempotency-Key: \"\"\r\n", "The Idempotency-Key header is empty. \(advice)"),
            (
                "Idempotency-Key: \(String(repeating: "k", count: 256))\r\n",
                "The Idempotency-Key header is 256 bytes long, more than 255. \(advice)"
            ),
            (
                "Idempotency-Key: two words\r\n",
                "The Idempotency-Key header has a character that is not visible ASCII at position 4. \(advice)"
            ),
            (
                "Idempotency-Key: \"unterminated\r\n",
                "The Idempotency-Key header starts with a quote but is not a quoted string. \(advice)"
            ),
            (
                "Idempotency-Key: a\r\nIdempotency-Key: b\r\n",
                "The request has 2 Idempotency-Key headers. Send one key per request."
            ),
        ]
    )
    func malformedKeysAreRefusedWith400(header: String, message: String) async throws {
        try await Self.withEndpoint { url in
            let socket = try RawSocket(port: url.port!)
            let body = Self.create
            socket.write(
                "POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: da2-valid\r\nContent-Type: application/json\r\n"
                    + header + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
            )
            // Answered at once; the long limit only allows for a machine busy with other tests.
            let answer = try #require(await socket.answer(within: .seconds(30)))
            #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(answer)")
            let expected = JSON.object([
                "errors": .array([.object(["errorType": "BadRequestException", "message": .string(message)])])
            ]).text
            #expect(answer.hasSuffix("\r\n\r\n" + expected), "\(answer)")
            #expect(try await Self.noteCount(url) == 0)
        }
    }

    /// Ten copies of one request at once: one runs, the others get its response or `409`.
    @Test func tenConcurrentRepeatsWriteOnce() async throws {
        try await Self.withEndpoint { url in
            let responses = try await withThrowingTaskGroup(of: (Int, [String: String], String).self) { group in
                for _ in 0..<10 {
                    group.addTask { try await Self.post(url, Self.create, key: "concurrent") }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let answered = responses.filter { $0.0 == 200 }
            let busy = responses.filter { $0.0 == 409 }
            #expect(answered.count + busy.count == 10, "\(responses)")
            #expect(answered.count >= 1)
            #expect(Set(answered.map(\.2)).count == 1, "every 200 carries the first response")
            #expect(answered.filter { $0.1["idempotent-replayed"] == nil }.count == 1)
            for response in busy {
                #expect(
                    response.2
                        == #"{"errors":[{"errorType":"IdempotencyKeyInUseException","message":"A request with the "#
                        + #"Idempotency-Key 'concurrent' is still being processed. Send the request again once it "#
                        + #"has been answered to get its response."}]}"#
                )
            }
            #expect(try await Self.noteCount(url) == 1)
            let after = try await Self.post(url, Self.create, key: "concurrent")
            #expect(after.status == 200)
            #expect(after.body == answered.first?.2)
        }
    }

    @Test func keysSurviveARestart() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var first = ""
        try await Self.withEndpoint(directory: directory) { url in
            first = try await Self.post(url, Self.create, key: "restart").body
        }
        try await Self.withEndpoint(directory: directory) { url in
            let repeated = try await Self.post(url, Self.create, key: "restart")
            #expect(repeated.status == 200)
            #expect(repeated.headers["idempotent-replayed"] == "true")
            #expect(repeated.body == first)
            #expect(try await Self.noteCount(url) == 1)
        }
    }

    /// The server stopped after the mutation's write and before it recorded the response: the
    /// key was written with the item, so a repeat does not write again.
    @Test func aWriteWhoseResponseWasLostIsNotRunAgain() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let body = Self.create
        do {
            let server = try await TestServer(Self.schema, directory: directory)
            let claim = IdempotencyClaim(
                scope: Identity.apiKey.idempotencyScope,
                key: "lost",
                digest: SHA256.hash(data: Data(body.utf8)).map { String(format: "%02x", $0) }.joined(),
                expiresAt: Int(Date().timeIntervalSince1970 * 1000) + 60_000
            )
            let written = await server.server.execute(
                query: "mutation { createNote(input: {text: \"hello\"}) { id text _version } }",
                variables: [:],
                operationName: nil,
                identity: .apiKey,
                direct: true,
                idempotency: claim
            )
            #expect(written.response.body["data"]?["createNote"]?["text"] == "hello")
            try server.server.close()
        }
        try await Self.withEndpoint(directory: directory) { url in
            let repeated = try await Self.post(url, body, key: "lost")
            #expect(repeated.status == 200)
            #expect(repeated.headers["idempotent-replayed"] == "true")
            #expect(
                repeated.body
                    == #"{"data":null,"errors":[{"errorType":"IdempotentResponseLostException","message":"The "#
                    + #"mutation sent with the Idempotency-Key 'lost' was applied, but the server stopped before it "#
                    + #"recorded the response. Read the items it wrote for their current state; do not send the "#
                    + #"mutation again."}]}"#
            )
            #expect(try await Self.noteCount(url) == 1)
            // Another key runs.
            _ = try await Self.post(url, body, key: "fresh")
            #expect(try await Self.noteCount(url) == 2)
        }
    }

    /// A failed mutation (nothing written) is answered again too: the first complete response
    /// is the one kept.
    @Test func aRefusedMutationIsAnsweredAgainWithoutRunning() async throws {
        try await Self.withEndpoint { url in
            let update = #"{"query":"mutation { updateNote(input: {id: \"n1\", text: \"x\", _version: 1}) { id } }"}"#
            let first = try await Self.post(url, update, key: "update-1")
            #expect(first.body.contains("ConditionalCheckFailedException"), "\(first.body)")
            let create = #"{"query":"mutation { createNote(input: {id: \"n1\", text: \"a\"}) { id } }"}"#
            _ = try await Self.post(url, create, key: nil)
            let repeated = try await Self.post(url, update, key: "update-1")
            #expect(repeated.body == first.body)
            #expect(repeated.headers["idempotent-replayed"] == "true")
        }
    }

    /// Runs `statements` on the store of `directory`, behind the server's back.
    static func alterStore(_ statements: [String], in directory: URL) async throws {
        if TestStore.isPostgres {
            for sql in statements { _ = try await PostgresTestDatabases.shared.strings(sql, in: directory) }
        } else {
            let database = try DatabaseQueue(path: directory.appending(path: "stratus.sqlite").path)
            try await database.write { db in for sql in statements { try db.execute(sql: sql) } }
            try database.close()
        }
    }

    /// The store failed under the mutation (its database restarting, its connection cut): the
    /// answer is a 500, which clients send again with the same key, not a 200 that they take
    /// for a refusal of the write and drop. The repeat, once the store is back, runs the
    /// mutation, which wrote nothing the first time.
    @Test func aMutationTheStoreFailedIsA500AndItsRepeatRuns() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Self.withEndpoint(directory: directory) { url in
            let create = #"{"query":"mutation { createNote(input: {id: \"n1\", text: \"hello\"}) { id text } }"}"#
            try await Self.alterStore(
                TestStore.isPostgres
                    ? [
                        "CREATE FUNCTION \"fail_notes\"() RETURNS trigger LANGUAGE plpgsql AS "
                            + "$$ BEGIN RAISE EXCEPTION 'the disk is gone'; END $$",
                        "CREATE TRIGGER \"fail_notes\" BEFORE INSERT ON \"Note\" FOR EACH ROW EXECUTE FUNCTION \"fail_notes\"()",
                    ]
                    : [
                        "CREATE TRIGGER \"fail_notes\" BEFORE INSERT ON \"Note\" "
                            + "BEGIN SELECT RAISE(ABORT, 'the disk is gone'); END"
                    ],
                in: directory
            )
            let failed = try await Self.post(url, create, key: "create-n1")
            #expect(failed.status == 500)
            #expect(
                failed.body
                    == #"{"data":{"createNote":null},"errors":[{"path":["createNote"],"data":null,"#
                    + #""errorType":"InternalFailure","errorInfo":null,"locations":[{"line":1,"column":12,"#
                    + #""sourceName":null}],"message":"An internal failure occurred while resolving this field. "#
                    + #"The server log has the details."}]}"#
            )
            try await Self.alterStore(
                [TestStore.isPostgres ? "DROP TRIGGER \"fail_notes\" ON \"Note\"" : "DROP TRIGGER \"fail_notes\""],
                in: directory
            )
            let repeated = try await Self.post(url, create, key: "create-n1")
            #expect(repeated.status == 200)
            #expect(repeated.headers["idempotent-replayed"] == nil)
            #expect(repeated.body == #"{"data":{"createNote":{"id":"n1","text":"hello"}}}"#)
            #expect(try await Self.noteCount(url) == 1)
        }
    }

    @Test func keysExpireAndArePurged() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = ServerConfiguration(idempotencyKeyTTL: .milliseconds(300))
        try await Self.withEndpoint(directory: directory, configuration: configuration) { url in
            _ = try await Self.post(url, Self.create, key: "short-lived")
            try await Task.sleep(for: .milliseconds(400))
            let again = try await Self.post(url, Self.create, key: "short-lived")
            #expect(again.headers["idempotent-replayed"] == nil)
            #expect(try await Self.noteCount(url) == 2)
            try await Task.sleep(for: .milliseconds(400))
            _ = try await Self.post(url, Self.create, key: "other")
            let sql = #"SELECT "key" FROM "_stratus_idempotency" ORDER BY "key""#
            if TestStore.isPostgres {
                #expect(try await PostgresTestDatabases.shared.strings(sql, in: directory) == ["other"])
            } else {
                let database = try DatabaseQueue(path: directory.appending(path: "stratus.sqlite").path)
                let keys = try await database.read { db in try String.fetchAll(db, sql: sql) }
                #expect(keys == ["other"])
                try database.close()
            }
        }
    }

    @Test func theDefaultTTLIs24Hours() {
        #expect(ServerConfiguration().idempotencyKeyTTL == .seconds(86_400))
    }

    /// Python's `requests` (not our client) sends the header: the repeat gets the first response;
    /// gql signing with IAM, another caller, does not see the API key's response for the same key.
    @Test func pythonClientsSendingTheHeader() async throws {
        try await Self.withEndpoint { url in
            let key = HTTPEndpointTests.accessKey
            let result = try await GQLInteropTests.run([
                "python3", Self.script.path, url.absoluteString, "\(url.host!):\(url.port!)", "da2-valid",
                key.accessKeyId, key.secretAccessKey, key.sessionToken ?? "",
            ])
            try #require(
                result.status == 0,
                "python failed (install: python3 -m pip install requests 'gql[aiohttp,botocore]'):\n\(result.output)"
            )
            let lines = result.output.split(separator: "\n")
            let json = try JSON(parsing: Data(lines.last!.utf8))
            #expect(json["first"]?["status"] == 200)
            #expect(json["repeat"]?["status"] == 200)
            #expect(json["repeat"]?["replayed"] == "true")
            #expect(json["repeat"]?["body"] == json["first"]?["body"])
            #expect(json["other"]?["status"] == 422)
            #expect(json["other"]?["body"]?["errors"]?[0]?["errorType"] == "IdempotencyKeyReusedException")
            let apiKeyID = json["first"]?["body"]?["data"]?["createNote"]?["id"]
            let iamID = json["iam"]?["createNote"]?["id"]
            #expect(iamID != nil && iamID != apiKeyID, "\(result.output)")
            #expect(try await Self.noteCount(url) == 2)
        }
    }

    static let script = URL(filePath: #filePath).deletingLastPathComponent()
        .appending(path: "Interop/idempotency_key.py")
}
