import Foundation
import StratusCodegen
import Testing

@testable import StratusServer

/// DynamoDB's 400 KB item limit, on every path that writes an item: a create, an update, an
/// automerge of a stale update, a conflict handler's item, with the direct mutations and
/// with the executor. An item over it is refused with DynamoDB's error and nothing is written.
@Suite struct ItemSizeLimitTests {
    /// The error of a mutation `field` whose item is too large, located at line 1, `column`.
    static func tooLarge(_ field: String, column: Int = 40) -> String {
        #"{"data":{"\#(field)":null},"errors":[{"path":["\#(field)"],"data":null,"#
            + #""errorType":"DynamoDB:DynamoDbException","errorInfo":null,"#
            + #""locations":[{"line":1,"column":\#(column),"sourceName":null}],"#
            + #""message":"Item size has exceeded the maximum allowed size (Service: DynamoDb, Status Code: 400)"}]}"#
    }

    static let create = "mutation C($input: CreateNoteInput!) { createNote(input: $input) { id } }"
    static let update = "mutation U($input: UpdateNoteInput!) { updateNote(input: $input) { id _version } }"

    /// A string of `bytes` bytes.
    static func text(_ bytes: Int) -> JSON { .string(String(repeating: "x", count: bytes)) }

    /// Runs `query` directly or through the executor.
    static func run(_ server: TestServer, _ query: String, _ variables: JSONObject, direct: Bool) async -> String {
        await server.server.execute(
            query: query,
            variables: variables,
            operationName: nil,
            identity: .apiKey,
            direct: direct
        ).response.text
    }

    @Test func theSizeFollowsDynamoDBsRule() {
        let item = StoredItem(
            values: ["id": "n1", "tags": ["ab", "c"], "rating": 12345, "done": true, "address": ["city": "Paris"]],
            version: 2,
            deleted: nil,
            lastChangedAt: 1_700_000_000_000
        )
        // id 2+2, tags 4+(3+1+2+1+1), rating 6+(1+3), done 4+1, address 7+(3+1+4+5),
        // _version 8+(1+1), _lastChangedAt 14+(1+1): DynamoDB keeps no trailing zeros (17e11).
        #expect(item.size == 4 + 12 + 10 + 5 + 20 + 10 + 16)
    }

    @Test(arguments: [true, false])
    func aCreateOverTheLimitIsRefusedAndNothingIsWritten(direct: Bool) async throws {
        let server = try await TestServer(noteSchema)
        let input: JSON = ["id": "n1", "title": "t", "body": Self.text(StoredItem.maximumSize)]
        #expect(await Self.run(server, Self.create, ["input": input], direct: direct) == Self.tooLarge("createNote"))
        #expect(await server.run("{ listNotes { items { id } } }") == #"{"data":{"listNotes":{"items":[]}}}"#)
        // Just under the limit, the item is stored.
        let fits: JSON = ["id": "n1", "title": "t", "body": Self.text(StoredItem.maximumSize - 200)]
        #expect(
            await Self.run(server, Self.create, ["input": fits], direct: direct)
                == #"{"data":{"createNote":{"id":"n1"}}}"#
        )
    }

    @Test(arguments: [true, false])
    func anUpdateOverTheLimitIsRefusedAndTheItemKept(direct: Bool) async throws {
        let server = try await TestServer(noteSchema)
        _ = await server.run(Self.create, ["input": ["id": "n1", "title": "t", "body": Self.text(300 * 1024)]])
        let input: JSON = ["id": "n1", "_version": 1, "title": .string(String(repeating: "y", count: 150 * 1024))]
        #expect(await Self.run(server, Self.update, ["input": input], direct: direct) == Self.tooLarge("updateNote"))
        #expect(
            await server.run(#"{ getNote(id: "n1") { title _version } }"#)
                == #"{"data":{"getNote":{"title":"t","_version":1}}}"#
        )
    }

    /// Stale updates automerge by appending lists: without the limit, each one grew the item
    /// until its owner could no longer read it.
    @Test(arguments: [true, false])
    func automergeStopsAppendingAtTheLimit(direct: Bool) async throws {
        let server = try await TestServer(noteSchema)
        /// A tag of 100 KB, each another.
        func tag(_ index: Int) -> JSON { .string("\(index)" + String(repeating: "x", count: 100 * 1024)) }
        _ = await server.run(Self.create, ["input": ["id": "n1", "title": "t", "tags": [tag(0)]]])
        var answers: [String] = []
        for index in 1...4 {
            // Always the first version: each update conflicts, and automerge appends its list.
            answers.append(
                await Self.run(
                    server,
                    Self.update,
                    ["input": ["id": "n1", "_version": 1, "tags": [tag(index)]]],
                    direct: direct
                )
            )
        }
        #expect(
            answers == [
                #"{"data":{"updateNote":{"id":"n1","_version":2}}}"#,
                #"{"data":{"updateNote":{"id":"n1","_version":3}}}"#,
                #"{"data":{"updateNote":{"id":"n1","_version":4}}}"#,
                Self.tooLarge("updateNote"),
            ]
        )
        let item = await server.json(#"{ getNote(id: "n1") { tags _version } }"#)
        // The first update replaced the list (its version was current); the next two appended.
        #expect(item["data"]?["getNote"]?["tags"]?.arrayValue?.count == 3)
        #expect(item["data"]?["getNote"]?["_version"] == 4)
    }

    @Test func aConflictHandlersItemOverTheLimitIsRefused() async throws {
        let handler: ConflictHandler = { context in
            var item = context.newItem
            item["body"] = Self.text(StoredItem.maximumSize)
            return .resolve(item)
        }
        let server = try await TestServer(
            noteSchema,
            configuration: ServerConfiguration(conflictResolution: .custom(handler))
        )
        _ = await server.run(Self.create, ["input": ["id": "n1", "title": "t"]])
        _ = await server.run(Self.update, ["input": ["id": "n1", "_version": 1, "title": "u"]])
        #expect(
            await server.run(Self.update, ["input": ["id": "n1", "_version": 1, "title": "v"]])
                == Self.tooLarge("updateNote")
        )
        #expect(
            await server.run(#"{ getNote(id: "n1") { title body _version } }"#)
                == #"{"data":{"getNote":{"title":"u","body":null,"_version":2}}}"#
        )
    }

    @Test func anItemOverTheLimitCanStillBeDeleted() async throws {
        let server = try await TestServer(noteSchema)
        // Written before the limit existed: stored as it is.
        let model = try #require(server.server.api.schema.models.first { $0.name == "Note" })
        let item = StoredItem(
            values: ["id": "n1", "title": "t", "body": Self.text(StoredItem.maximumSize)],
            version: 1,
            deleted: nil,
            lastChangedAt: 0
        )
        let written = try await server.server.store.write(
            ItemWrite(
                model: model.name,
                key: ["n1"],
                expectation: .absent,
                condition: nil,
                action: .put(item),
                journalExpiresAt: nil,
                now: 0
            )
        )
        #expect(written == .written)
        #expect(
            await server.run(#"mutation { deleteNote(input: {id: "n1", _version: 1}) { id _deleted } }"#)
                == #"{"data":{"deleteNote":{"id":"n1","_deleted":true}}}"#
        )
    }
}
