import Foundation
import StratusCodegen
import Synchronization
import Testing

@testable import StratusServer

/// `Stratus-Transaction: atomic`: a request's generated mutations are applied all or nothing,
/// each reading the ones before it, idempotent by key, and heard by subscribers after the commit.
@Suite struct AtomicTransactionTests {
    static let schema = """
        type Account @model @aws_api_key {
          id: ID!
          owner: String!
          balance: Int!
        }
        type Note @model @aws_api_key {
          id: ID!
          text: String!
          tag: String
        }
        """

    /// A server behind a real socket, closed at the end of `body`.
    static func withEndpoint(
        _ configuration: ServerConfiguration = ServerConfiguration(),
        _ body: (URL, StratusServer) async throws -> Void
    ) async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await TestStore.server(
            schema: try SchemaParser().parse(schema),
            configuration: configuration,
            directory: directory
        )
        let authorization = ServerAuthorization(defaultMode: .apiKey, apiKeys: [APIKey(value: "da2-valid")])
        try await withHTTPEndpoint(server, authorization: authorization) { url in try await body(url, server) }
    }

    static func post(
        _ url: URL,
        _ query: String,
        _ variables: JSON = .object([:]),
        atomic: String? = "atomic",
        key: String? = nil
    ) async throws -> (status: Int, headers: [String: String], body: String) {
        var headers = ["x-api-key": "da2-valid", "content-type": "application/json"]
        if let atomic { headers["Stratus-Transaction"] = atomic }
        if let key { headers["Idempotency-Key"] = key }
        let body = JSON.object(["query": .string(query), "variables": variables]).text
        return try await HTTPEndpointTests.exchange(url, body: body, headers: headers)
    }

    static func json(_ response: (status: Int, headers: [String: String], body: String)) throws -> JSON {
        try JSON(parsing: Data(response.body.utf8))
    }

    static func account(_ url: URL, _ id: String) async throws -> JSON {
        let response = try await post(url, "{ getAccount(id: \"\(id)\") { id balance _version } }", atomic: nil)
        return try json(response)["data"]?["getAccount"] ?? .null
    }

    static let transfer = """
        mutation Transfer($from: UpdateAccountInput!, $to: UpdateAccountInput!) {
          debit: updateAccount(input: $from, condition: {balance: {ge: 30}}) { id balance }
          credit: updateAccount(input: $to) { id balance }
        }
        """

    @Test func everyMutationIsAppliedAndEachReadsTheOnesBefore() async throws {
        try await Self.withEndpoint { url, _ in
            let response = try await Self.post(
                url,
                """
                mutation {
                  a: createAccount(input: {id: "a", owner: "ann", balance: 100}) { id balance _version }
                  b: createAccount(input: {id: "b", owner: "bob", balance: 0}) { id balance _version }
                  moved: updateAccount(input: {id: "a", balance: 70, _version: 1}) { id balance _version }
                }
                """
            )
            #expect(response.status == 200)
            #expect(
                response.body
                    == #"{"data":{"a":{"id":"a","balance":100,"_version":1},"b":{"id":"b","balance":0,"#
                    + #""_version":1},"moved":{"id":"a","balance":70,"_version":2}}}"#
            )
            #expect(try await Self.account(url, "a") == .object(["id": "a", "balance": 70, "_version": 2]))
            #expect(try await Self.account(url, "b") == .object(["id": "b", "balance": 0, "_version": 1]))
        }
    }

    @Test func aFailedConditionWritesNothingAndNamesTheMutation() async throws {
        try await Self.withEndpoint { url, _ in
            _ = try await Self.post(
                url,
                #"mutation { createAccount(input: {id: "a", owner: "ann", balance: 20}) { id } }"#
            )
            let response = try await Self.post(
                url,
                """
                mutation {
                  note: createNote(input: {id: "n1", text: "transfer"}) { id }
                  debit: updateAccount(input: {id: "a", balance: -10}, condition: {balance: {ge: 30}}) { id balance }
                }
                """
            )
            #expect(response.status == 200)
            let body = try Self.json(response)
            #expect(body["data"] == .object(["note": .null, "debit": .null]))
            let errors = try #require(body["errors"]?.arrayValue)
            #expect(errors.count == 2)
            #expect(errors.first?["path"] == .array(["debit"]))
            #expect(errors.first?["errorType"] == "ConditionalCheckFailedException")
            #expect(
                errors.last
                    == .object([
                        "errorType": "DynamoDB:TransactionCanceledException",
                        "message": .string(
                            "Transaction cancelled, please refer cancellation reasons for specific reasons "
                                + "[None, ConditionalCheckFailed]"
                        ),
                    ])
            )
            // The note, which came first and would have been written, is not.
            let note = try await Self.post(url, #"{ getNote(id: "n1") { id } }"#, atomic: nil)
            #expect(note.body == #"{"data":{"getNote":null}}"#)
            #expect(try await Self.account(url, "a") == .object(["id": "a", "balance": 20, "_version": 1]))
        }
    }

    @Test func subscribersHearTheWritesAfterTheCommitInOrder() async throws {
        try await Self.withEndpoint { url, server in
            let heard = Mutex<[String]>([])
            let listener = server.events.addListener { event in
                heard.withLock { $0.append("\(event.kind) \(event.item.item.values["id"]?.stringValue ?? "?")") }
            }
            defer { server.events.removeListener(listener) }
            for kind in WriteEvent.Kind.allCases {
                server.events.subscribe(listener, to: .init(model: "Note", kind: kind))
            }
            let failed = try await Self.post(
                url,
                """
                mutation {
                  first: createNote(input: {id: "n1", text: "one"}) { id }
                  again: createNote(input: {id: "n1", text: "two"}) { id }
                }
                """
            )
            #expect(try Self.json(failed)["data"] == .object(["first": .null, "again": .null]))
            let response = try await Self.post(
                url,
                """
                mutation {
                  a: createNote(input: {id: "n1", text: "one"}) { id }
                  b: createNote(input: {id: "n2", text: "two"}) { id }
                  c: deleteNote(input: {id: "n1", _version: 1}) { id }
                }
                """
            )
            #expect(try Self.json(response)["errors"] == nil, "\(response.body)")
            // A store shared by several servers delivers its announcements from its journal.
            let deadline = ContinuousClock.now + .seconds(10)
            while heard.withLock({ $0.count }) < 3, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(heard.withLock { $0 } == ["create n1", "create n2", "delete n1"])
        }
    }

    @Test func aRepeatWithTheSameKeyIsAnsweredAgainWithoutWriting() async throws {
        try await Self.withEndpoint { url, _ in
            _ = try await Self.post(
                url,
                """
                mutation {
                  a: createAccount(input: {id: "a", owner: "ann", balance: 100}) { id }
                  b: createAccount(input: {id: "b", owner: "bob", balance: 0}) { id }
                }
                """
            )
            let variables: JSON = [
                "from": ["id": "a", "balance": 60, "_version": 1], "to": ["id": "b", "balance": 40, "_version": 1],
            ]
            let first = try await Self.post(url, Self.transfer, variables, key: "transfer-1")
            #expect(first.body == #"{"data":{"debit":{"id":"a","balance":60},"credit":{"id":"b","balance":40}}}"#)
            let repeated = try await Self.post(url, Self.transfer, variables, key: "transfer-1")
            #expect(repeated.headers["idempotent-replayed"] == "true")
            #expect(repeated.body == first.body)
            #expect(try await Self.account(url, "a")["_version"] == 2)
            #expect(try await Self.account(url, "b")["_version"] == 2)
        }
    }

    @Test func concurrentTransactionsOverTheSameItemsNeverInterleave() async throws {
        try await Self.withEndpoint(ServerConfiguration(conflictDetection: false)) { url, _ in
            _ = try await Self.post(
                url,
                """
                mutation {
                  x: createNote(input: {id: "x", text: "start"}) { id }
                  y: createNote(input: {id: "y", text: "start"}) { id }
                }
                """
            )
            // Each transaction writes the text of both notes, in one order or the other, keeping
            // their tags as it read them; meanwhile single mutations set the tag of `x`, one after
            // another. No transaction may put back a tag it read before a later single mutation.
            try await withThrowingTaskGroup(of: String.self) { group in
                for round in 0..<16 {
                    let (first, second) = round.isMultiple(of: 2) ? ("x", "y") : ("y", "x")
                    group.addTask {
                        try await Self.post(
                            url,
                            """
                            mutation {
                              one: updateNote(input: {id: "\(first)", text: "t\(round)"}) { id }
                              two: updateNote(input: {id: "\(second)", text: "t\(round)"}) { id }
                            }
                            """
                        ).body
                    }
                }
                group.addTask {
                    for tag in 0..<24 {
                        let body = try await Self.post(
                            url,
                            #"mutation { updateNote(input: {id: "x", tag: "s\#(tag)"}) { id } }"#,
                            atomic: nil
                        ).body
                        #expect(!body.contains("errors"), "\(body)")
                    }
                    return ""
                }
                for try await body in group {
                    #expect(!body.contains("errors"), "\(body)")
                }
            }
            let both = try await Self.post(
                url,
                #"{ x: getNote(id: "x") { text tag } y: getNote(id: "y") { text } }"#,
                atomic: nil
            )
            let notes = try Self.json(both)["data"]
            #expect(notes?["x"]?["tag"] == "s23")
            #expect(notes?["x"]?["text"] == notes?["y"]?["text"])
        }
    }

    @Test func aBatchHoldsItsLocksUntilReleasedAndNeverWaitsForAnother() async throws {
        let locks = WriteLocks()
        let batch = AtomicWrites(locks: locks, holding: [])
        #expect(try await batch.withLock("Note:[\"x\"]") { 1 } == 1)
        // The lock outlives the write: a single mutation of `x` waits for the batch's commit.
        #expect(await locks.tryLock("Note:[\"x\"]") == false)
        #expect(await locks.tryLock("Note:[\"y\"]"))
        // Held by someone else, a lock is wanted, not waited for; nothing after it runs.
        await #expect(throws: AtomicWrites.LockHeld.self) { try await batch.withLock("Note:[\"y\"]") { 2 } }
        await #expect(throws: AtomicWrites.LockHeld.self) { try await batch.withLock("Note:[\"x\"]") { 3 } }
        #expect(batch.held == ["Note:[\"x\"]"])
        #expect(batch.wanted == ["Note:[\"y\"]"])
        await locks.unlock(all: batch.held)
        #expect(await locks.tryLock("Note:[\"x\"]"))
    }

    @Test func requestsThatCannotRunAtomicallyAreRefusedWithTheReason() async throws {
        try await Self.withEndpoint { url, _ in
            let unknown = try await Self.post(
                url,
                #"mutation { createNote(input: {text: "a"}) { id } }"#,
                atomic: "yes"
            )
            #expect(unknown.status == 400)
            #expect(
                unknown.body
                    == #"{"errors":[{"errorType":"BadRequestException","message":"The request's Stratus-Transaction "#
                    + #"header is 'yes'. Send 'Stratus-Transaction: atomic' to apply the request's mutations all or "#
                    + #"nothing, or no header."}]}"#
            )
            let query = try await Self.post(url, "{ listNotes { items { id } } }")
            #expect(query.status == 400)
            #expect(query.body.contains("must run a mutation, and this one runs a query"), "\(query.body)")
            let fragment = try await Self.post(
                url,
                #"mutation { ... on Mutation { createNote(input: {text: "a"}) { id } } }"#
            )
            #expect(fragment.status == 400)
            #expect(fragment.body.contains("without fragments"), "\(fragment.body)")
            let notes = try await Self.post(url, "{ listNotes { items { id } } }", atomic: nil)
            #expect(notes.body == #"{"data":{"listNotes":{"items":[]}}}"#)
        }
    }
}
