import Foundation
import StratusServer
import Testing

/// Create, get, update and delete, one request each, as backend.md §2 describes them.
@Suite struct MutationTests {
    static let fields = "id title rating status createdAt updatedAt __typename _version _deleted _lastChangedAt"
    static let createP1 = """
        mutation { createPost(input: {id: "p1", title: "Hello", rating: 4, status: DRAFT}) { \(fields) } }
        """

    @Test func createStoresTheItemWithTimestampsAndVersionOne() async throws {
        let server = try await TestServer(postSchema)
        #expect(
            await server.run(Self.createP1)
                == #"{"data":{"createPost":{"id":"p1","title":"Hello","rating":4,"status":"DRAFT","#
                + #""createdAt":"2023-11-14T22:13:20.000Z","updatedAt":"2023-11-14T22:13:20.000Z","__typename":"Post","#
                + #""_version":1,"_deleted":null,"_lastChangedAt":1700000000000}}}"#
        )
        #expect(
            await server.run(#"{ getPost(id: "p1") { id title status _version } }"#)
                == #"{"data":{"getPost":{"id":"p1","title":"Hello","status":"DRAFT","_version":1}}}"#
        )
    }

    @Test func createWithoutAnIdGivesAUUID() async throws {
        let server = try await TestServer(postSchema)
        let body = await server.json(#"mutation { createPost(input: {title: "A", rating: 1, status: DRAFT}) { id } }"#)
        let id = try #require(body["data"]?["createPost"]?["id"]?.stringValue)
        #expect(id.wholeMatch(of: /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/) != nil, "\(id)")
        #expect(
            await server.run("{ getPost(id: \"\(id)\") { id title } }")
                == #"{"data":{"getPost":{"id":""# + id + #"","title":"A"}}}"#
        )
    }

    @Test func createOfAnExistingIdFailsTheCondition() async throws {
        let server = try await TestServer(postSchema)
        _ = await server.run(Self.createP1)
        #expect(
            await server.run(Self.createP1)
                == #"{"data":{"createPost":null},"errors":[{"path":["createPost"],"data":null,"#
                + #""errorType":"ConditionalCheckFailedException","errorInfo":null,"#
                + #""locations":[{"line":1,"column":12,"sourceName":null}],"#
                + #""message":"The conditional request failed (Service: DynamoDb, Status Code: 400)"}]}"#
        )
    }

    @Test func anEmptyIdIsRefusedAsDynamoDBRefusesAnEmptyKey() async throws {
        let server = try await TestServer(postSchema)
        let refused =
            #""errorType":"DynamoDB:DynamoDbException","errorInfo":null,"#
            + #""locations":[{"line":1,"column":12,"sourceName":null}],"#
            + #""message":"One or more parameter values are not valid. The AttributeValue for a key attribute "#
            + #"cannot contain an empty string value. Key: id (Service: DynamoDb, Status Code: 400)"}]}"#
        #expect(
            await server.run(#"mutation { createPost(input: {id: "", title: "T", rating: 1, status: DRAFT}) { id } }"#)
                == #"{"data":{"createPost":null},"errors":[{"path":["createPost"],"data":null,"# + refused
        )
        #expect(
            await server.run(#"mutation { updatePost(input: {id: "", title: "T"}) { id } }"#)
                == #"{"data":{"updatePost":null},"errors":[{"path":["updatePost"],"data":null,"# + refused
        )
        #expect(await server.run("{ listPosts { items { id } } }") == #"{"data":{"listPosts":{"items":[]}}}"#)
    }

    @Test func getOfAnUnknownIdIsNullWithoutError() async throws {
        let server = try await TestServer(postSchema)
        #expect(await server.run(#"{ getPost(id: "nope") { id } }"#) == #"{"data":{"getPost":null}}"#)
    }

    @Test func updateSetsUpdatedAtAndIncrementsTheVersion() async throws {
        let server = try await TestServer(postSchema)
        _ = await server.run(Self.createP1)
        server.clock.advance(milliseconds: 1500)
        #expect(
            await server.run(
                #"mutation { updatePost(input: {id: "p1", rating: 5, _version: 1}) { \#(Self.fields) } }"#
            )
                == #"{"data":{"updatePost":{"id":"p1","title":"Hello","rating":5,"status":"DRAFT","#
                + #""createdAt":"2023-11-14T22:13:20.000Z","updatedAt":"2023-11-14T22:13:21.500Z","__typename":"Post","#
                + #""_version":2,"_deleted":null,"_lastChangedAt":1700000001500}}}"#
        )
    }

    @Test func updateWithNullRemovesTheField() async throws {
        let server = try await TestServer(noteSchema)
        _ = await server.run(#"mutation { createNote(input: {id: "n1", title: "T", body: "B", rating: 2}) { id } }"#)
        #expect(
            await server.run(
                #"mutation U($input: UpdateNoteInput!) { updateNote(input: $input) { id body rating _version } }"#,
                ["input": ["id": "n1", "body": nil, "_version": 1]]
            ) == #"{"data":{"updateNote":{"id":"n1","body":null,"rating":2,"_version":2}}}"#
        )
        #expect(
            await server.run(
                #"{ listNotes(filter: {body: {attributeExists: false}}) { items { id body rating } } }"#
            ) == #"{"data":{"listNotes":{"items":[{"id":"n1","body":null,"rating":2}]}}}"#
        )
    }

    @Test func updateOfAMissingIdFailsTheCondition() async throws {
        let server = try await TestServer(postSchema)
        #expect(
            await server.run(#"mutation { updatePost(input: {id: "nope", title: "x", _version: 1}) { id } }"#)
                == #"{"data":{"updatePost":null},"errors":[{"path":["updatePost"],"data":null,"#
                + #""errorType":"ConditionalCheckFailedException","errorInfo":null,"#
                + #""locations":[{"line":1,"column":12,"sourceName":null}],"#
                + #""message":"The conditional request failed (Service: DynamoDb, Status Code: 400)"}]}"#
        )
    }

    @Test func aFalseConditionRejectsTheUpdateAndATrueOneLetsItThrough() async throws {
        let server = try await TestServer(postSchema)
        _ = await server.run(Self.createP1)
        let update = """
            mutation U($condition: ModelPostConditionInput) {
              updatePost(input: {id: "p1", title: "New", _version: 1}, condition: $condition) { id title _version }
            }
            """
        #expect(
            await server.run(update, ["condition": ["rating": ["gt": 4]]])
                == #"{"data":{"updatePost":null},"errors":[{"path":["updatePost"],"data":null,"#
                + #""errorType":"ConditionalCheckFailedException","errorInfo":null,"#
                + #""locations":[{"line":2,"column":3,"sourceName":null}],"#
                + #""message":"The conditional request failed (Service: DynamoDb, Status Code: 400)"}]}"#
        )
        #expect(
            await server.run(update, ["condition": ["rating": ["ge": 4], "status": ["eq": "DRAFT"]]])
                == #"{"data":{"updatePost":{"id":"p1","title":"New","_version":2}}}"#
        )
    }

    @Test func aCreateConditionIsEvaluatedOnAnItemWithoutFields() async throws {
        let server = try await TestServer(postSchema)
        let create = """
            mutation C($condition: ModelPostConditionInput) {
              createPost(input: {id: "p1", title: "A", rating: 1, status: DRAFT}, condition: $condition) { id }
            }
            """
        let failed = await server.json(create, ["condition": ["title": ["attributeExists": true]]])
        #expect(failed["errors"]?.arrayValue?.first?["errorType"] == "ConditionalCheckFailedException")
        #expect(
            await server.run(create, ["condition": ["title": ["attributeExists": false]]])
                == #"{"data":{"createPost":{"id":"p1"}}}"#
        )
    }

    @Test func deleteLeavesATombstoneThatGetListAndSyncReturn() async throws {
        let server = try await TestServer(postSchema)
        _ = await server.run(Self.createP1)
        server.clock.advance(milliseconds: 10)
        #expect(
            await server.run(#"mutation { deletePost(input: {id: "p1", _version: 1}) { id _version _deleted } }"#)
                == #"{"data":{"deletePost":{"id":"p1","_version":2,"_deleted":true}}}"#
        )
        let selection = "id _version _deleted _lastChangedAt"
        #expect(
            await server.run(#"{ getPost(id: "p1") { \#(selection) } }"#)
                == #"{"data":{"getPost":{"id":"p1","_version":2,"_deleted":true,"_lastChangedAt":1700000000010}}}"#
        )
        #expect(
            await server.run("{ listPosts { items { \(selection) } } }")
                == #"{"data":{"listPosts":{"items":[{"id":"p1","_version":2,"_deleted":true,"#
                + #""_lastChangedAt":1700000000010}]}}}"#
        )
        #expect(
            await server.run("{ syncPosts { items { \(selection) } startedAt } }")
                == #"{"data":{"syncPosts":{"items":[{"id":"p1","_version":2,"_deleted":true,"#
                + #""_lastChangedAt":1700000000010}],"startedAt":1700000000010}}}"#
        )
    }

    @Test func withoutConflictDetectionDeleteRemovesTheItem() async throws {
        let server = try await TestServer(postSchema, configuration: ServerConfiguration(conflictDetection: false))
        #expect(
            await server.run(
                #"mutation { createPost(input: {id: "p1", title: "A", rating: 1, status: DRAFT}) { id } }"#
            )
                == #"{"data":{"createPost":{"id":"p1"}}}"#
        )
        #expect(
            await server.run(#"mutation { updatePost(input: {id: "p1", title: "B"}) { id title } }"#)
                == #"{"data":{"updatePost":{"id":"p1","title":"B"}}}"#
        )
        #expect(
            await server.run(#"mutation { deletePost(input: {id: "p1"}) { id title } }"#)
                == #"{"data":{"deletePost":{"id":"p1","title":"B"}}}"#
        )
        #expect(await server.run(#"{ getPost(id: "p1") { id } }"#) == #"{"data":{"getPost":null}}"#)
        #expect(await server.run("{ listPosts { items { id } } }") == #"{"data":{"listPosts":{"items":[]}}}"#)
    }

    /// A model named in `modelsWithoutConflictDetection` loses the sync metadata, its `sync*`
    /// query and its tombstones; the API's other models keep them.
    @Test func conflictDetectionTurnedOffForOneModel() async throws {
        let schema = postSchema + "\ntype Note @model {\n  id: ID!\n  text: String\n}\n"
        var configuration = ServerConfiguration()
        configuration.modelsWithoutConflictDetection = ["Post"]
        let server = try await TestServer(schema, configuration: configuration)
        #expect(!server.server.api.sdl.contains("syncPosts"))
        #expect(server.server.api.sdl.contains("syncNotes"))
        #expect(
            await server.run(
                #"mutation { createPost(input: {id: "p1", title: "A", rating: 1, status: DRAFT}) { id } }"#
            )
                == #"{"data":{"createPost":{"id":"p1"}}}"#
        )
        #expect(
            await server.run(#"mutation { deletePost(input: {id: "p1"}) { id title } }"#)
                == #"{"data":{"deletePost":{"id":"p1","title":"A"}}}"#
        )
        #expect(await server.run("{ listPosts { items { id } } }") == #"{"data":{"listPosts":{"items":[]}}}"#)
        #expect(
            await server.run(#"mutation { createNote(input: {id: "n1", text: "x"}) { id _version } }"#)
                == #"{"data":{"createNote":{"id":"n1","_version":1}}}"#
        )
        #expect(
            await server.run(#"mutation { deleteNote(input: {id: "n1", _version: 1}) { id _deleted } }"#)
                == #"{"data":{"deleteNote":{"id":"n1","_deleted":true}}}"#
        )
    }

    @Test func defaultsJSONListsAndEmbeddedValuesRoundTrip() async throws {
        let server = try await TestServer(noteSchema)
        let create = """
            mutation C($input: CreateNoteInput!) {
              createNote(input: $input) {
                id tags kinds metadata score done due priority address { city street __typename }
              }
            }
            """
        let input: JSON = [
            "id": "n1", "title": "T", "tags": ["a", "b"], "kinds": ["A", "C"],
            "metadata": #"{"z": 1, "a": [true, null]}"#, "score": 2, "done": false, "due": "2024-02-29",
            "address": ["city": "Paris"],
        ]
        #expect(
            await server.run(create, ["input": input])
                == #"{"data":{"createNote":{"id":"n1","tags":["a","b"],"kinds":["A","C"],"#
                + #""metadata":"{\"z\":1,\"a\":[true,null]}","score":2.0,"done":false,"due":"2024-02-29","#
                + #""priority":3,"address":{"city":"Paris","street":null,"__typename":"Address"}}}}"#
        )
    }

    @Test func nullListElementsAreLeftOutOfResponses() async throws {
        let server = try await TestServer(noteSchema)
        #expect(
            await server.run(
                #"mutation { createNote(input: {id: "n1", title: "T", tags: ["a", null, "b"]}) { tags } }"#
            )
                == #"{"data":{"createNote":{"tags":["a","b"]}}}"#
        )
        #expect(
            await server.run(#"{ listNotes(filter: {tags: {size: {eq: 3}}}) { items { id } } }"#)
                == #"{"data":{"listNotes":{"items":[{"id":"n1"}]}}}"#
        )
    }
}
