import Foundation
import StratusServer
import Synchronization
import Testing

/// Conflict detection and the three strategies of backend.md §3.
@Suite struct ConflictTests {
    static let updateTitle = """
        mutation U($input: UpdatePostInput!) {
          updatePost(input: $input) {
            id
            _version
            _deleted
            _lastChangedAt
            __typename
          }
        }
        """

    /// p1 at version 2 (created, then updated once).
    static func server(_ configuration: ServerConfiguration) async throws -> TestServer {
        let server = try await TestServer(postSchema, configuration: configuration)
        _ = await server.run(
            #"mutation { createPost(input: {id: "p1", title: "A", rating: 1, status: DRAFT}) { id } }"#
        )
        server.clock.advance(milliseconds: 1000)
        _ = await server.run(#"mutation { updatePost(input: {id: "p1", title: "B", _version: 1}) { id } }"#)
        server.clock.advance(milliseconds: 1000)
        return server
    }

    @Test func optimisticConcurrencyRejectsAStaleVersionWithTheServerItem() async throws {
        let server = try await Self.server(ServerConfiguration(conflictResolution: .optimisticConcurrency))
        #expect(
            await server.run(Self.updateTitle, ["input": ["id": "p1", "title": "C", "_version": 1]])
                == #"{"data":{"updatePost":null},"errors":[{"path":["updatePost"],"#
                + #""data":{"id":"p1","_version":2,"_deleted":null,"_lastChangedAt":1700000001000,"__typename":"Post"},"#
                + #""errorType":"ConflictUnhandled","errorInfo":null,"#
                + #""locations":[{"line":2,"column":3,"sourceName":null}],"#
                + #""message":"Conflict resolver rejects mutation."}]}"#
        )
        #expect(
            await server.run(Self.updateTitle, ["input": ["id": "p1", "title": "C", "_version": 2]])
                == #"{"data":{"updatePost":{"id":"p1","_version":3,"_deleted":null,"_lastChangedAt":1700000002000,"#
                + #""__typename":"Post"}}}"#
        )
    }

    @Test func aMissingVersionNeverSilentlyOverwrites() async throws {
        let server = try await Self.server(ServerConfiguration(conflictResolution: .optimisticConcurrency))
        let body = await server.json(Self.updateTitle, ["input": ["id": "p1", "title": "C"]])
        #expect(body["errors"]?[0]?["errorType"] == "ConflictUnhandled")
        #expect(await server.run(#"{ getPost(id: "p1") { title } }"#) == #"{"data":{"getPost":{"title":"B"}}}"#)
    }

    @Test func theConflictDataFollowsTheSelectionSetWithAliasesAndFragments() async throws {
        let server = try await Self.server(ServerConfiguration(conflictResolution: .optimisticConcurrency))
        let query = """
            mutation {
              updatePost(input: {id: "p1", title: "C", _version: 1}) {
                heading: title
                ...Meta
                comments: rating
              }
            }
            fragment Meta on Post { _version __typename }
            """
        let body = await server.json(query)
        #expect(
            body["errors"]?[0]?["data"] == ["heading": "B", "_version": 2, "__typename": "Post", "comments": 1],
            "\(body.text)"
        )
    }

    @Test func automergeKeepsServerScalarsAppendsListsAndTakesAbsentFields() async throws {
        let server = try await TestServer(noteSchema)
        #expect(ServerConfiguration().conflictDetection)
        _ = await server.run(
            #"mutation { createNote(input: {id: "n1", title: "Server", tags: ["a"], rating: 1, address: {city: "Paris"}}) { id } }"#
        )
        _ = await server.run(#"mutation { updateNote(input: {id: "n1", rating: 2, _version: 1}) { id } }"#)
        let stale: JSON = [
            "id": "n1", "_version": 1, "title": "Client", "tags": ["b"], "body": "from client", "rating": 2,
            "address": ["city": "Lyon", "street": "Main"],
        ]
        #expect(
            await server.run(
                #"mutation U($input: UpdateNoteInput!) { updateNote(input: $input) { title tags body rating address { city street } _version } }"#,
                ["input": stale]
            )
                == #"{"data":{"updateNote":{"title":"Server","tags":["a","b"],"body":"from client","rating":2,"#
                + #""address":{"city":"Paris","street":"Main"},"_version":3}}}"#
        )
    }

    @Test func automergeRejectsADeleteWithoutTheCurrentVersion() async throws {
        let server = try await Self.server(ServerConfiguration())
        for input: JSON in [["id": "p1"], ["id": "p1", "_version": 1]] {
            let body = await server.json(
                "mutation D($input: DeletePostInput!) { deletePost(input: $input) { id _version } }",
                ["input": input]
            )
            #expect(body["data"] == ["deletePost": nil])
            #expect(body["errors"]?[0]?["errorType"] == "ConflictUnhandled")
            #expect(body["errors"]?[0]?["data"] == ["id": "p1", "_version": 2])
        }
        #expect(await server.run(#"{ getPost(id: "p1") { _deleted } }"#) == #"{"data":{"getPost":{"_deleted":null}}}"#)
    }

    @Test func automergeDoesNotReviveATombstone() async throws {
        let server = try await Self.server(ServerConfiguration())
        _ = await server.run(#"mutation { deletePost(input: {id: "p1", _version: 2}) { id } }"#)
        let body = await server.json(Self.updateTitle, ["input": ["id": "p1", "title": "C", "_version": 3]])
        #expect(body["errors"]?[0]?["errorType"] == "ConflictUnhandled")
        #expect(body["errors"]?[0]?["data"]?["_deleted"] == true)
    }

    /// A delete of a tombstone at its current `_version` is refused like a stale one, with the
    /// tombstone, and leaves its version and the delta journal as they were.
    @Test(arguments: [ConflictResolutionStrategy.automerge, .optimisticConcurrency])
    func aTombstoneIsNotDeletedAgain(_ strategy: ConflictResolutionStrategy) async throws {
        let server = try await Self.server(ServerConfiguration(conflictResolution: strategy))
        _ = await server.run(#"mutation { deletePost(input: {id: "p1", _version: 2}) { id } }"#)
        #expect(
            await server.run(
                #"mutation { deletePost(input: {id: "p1", _version: 3}) { id _version _deleted } }"#
            )
                == #"{"data":{"deletePost":null},"errors":[{"path":["deletePost"],"#
                + #""data":{"id":"p1","_version":3,"_deleted":true},"errorType":"ConflictUnhandled","#
                + #""errorInfo":null,"locations":[{"line":1,"column":12,"sourceName":null}],"#
                + #""message":"Conflict resolver rejects mutation."}]}"#
        )
        let sync = await server.json("{ syncPosts(lastSync: 1699999999000) { items { id _version _deleted } } }")
        #expect(
            sync["data"]?["syncPosts"]?["items"]
                == [
                    ["id": "p1", "_version": 1, "_deleted": nil], ["id": "p1", "_version": 2, "_deleted": nil],
                    ["id": "p1", "_version": 3, "_deleted": true],
                ]
        )
    }

    @Test func aCustomHandlerSeesBothItemsAndResolves() async throws {
        let seen = Mutex<ConflictContext?>(nil)
        let handler: ConflictHandler = { context in
            seen.withLock { $0 = context }
            var item = context.existingItem
            item["title"] = .string("merged \(context.newItem["title"]?.stringValue ?? "")")
            return .resolve(item)
        }
        let server = try await Self.server(ServerConfiguration(modelConflictResolution: ["Post": .custom(handler)]))
        #expect(
            await server.run(
                "mutation U($input: UpdatePostInput!) { updatePost(input: $input) { id title rating _version } }",
                ["input": ["id": "p1", "title": "C", "_version": 1]],
                identity: Identity(authorizationMode: .amazonCognitoUserPools, claims: ["sub": "u1"])
            ) == #"{"data":{"updatePost":{"id":"p1","title":"merged C","rating":1,"_version":3}}}"#
        )
        let context = try #require(seen.withLock { $0 })
        #expect(context.typeName == "Post")
        #expect(context.resolver == "updatePost")
        #expect(context.newItem == ["id": "p1", "title": "C", "_version": 1])
        #expect(
            context.existingItem
                == [
                    "id": "p1", "title": "B", "rating": 1, "status": "DRAFT", "createdAt": "2023-11-14T22:13:20.000Z",
                    "updatedAt": "2023-11-14T22:13:21.000Z", "_version": 2, "_deleted": nil,
                    "_lastChangedAt": 1_700_000_001_000, "__typename": "Post",
                ]
        )
        #expect(context.arguments == ["input": ["id": "p1", "title": "C", "_version": 1]])
        #expect(context.identity.claims == ["sub": "u1"])
    }

    @Test func aCustomHandlerRejects() async throws {
        let server = try await Self.server(ServerConfiguration(conflictResolution: .custom { _ in .reject }))
        #expect(
            await server.run(Self.updateTitle, ["input": ["id": "p1", "title": "C", "_version": 1]])
                == #"{"data":{"updatePost":null},"errors":[{"path":["updatePost"],"#
                + #""data":{"id":"p1","_version":2,"_deleted":null,"_lastChangedAt":1700000001000,"__typename":"Post"},"#
                + #""errorType":"ConflictUnhandled","errorInfo":null,"#
                + #""locations":[{"line":2,"column":3,"sourceName":null}],"#
                + #""message":"Conflict resolver rejects mutation."}]}"#
        )
    }

    /// A delete without `_version` keeps AppSync's error and data, and says in `errorInfo` which
    /// field is missing and how to get it.
    @Test func aDeleteWithoutVersionSaysWhatIsMissing() async throws {
        let server = try await Self.server(ServerConfiguration())
        let body = await server.run(#"mutation { deletePost(input: {id: "p1"}) { id _version } }"#)
        #expect(
            body
                == #"{"data":{"deletePost":null},"errors":[{"path":["deletePost"],"data":{"id":"p1","_version":2},"#
                + #""errorType":"ConflictUnhandled","errorInfo":{"missingField":"_version","hint":"Conflict "#
                + #"detection is on for Post: a write without the item's current _version is rejected (a delete) "#
                + #"or merged keeping the stored values (an update). Query getPost(…) { _version } and send it in "#
                + #"the input, or turn conflict detection off for the model in stratus.json: \"models\": {\"Post\": "#
                + #"{\"conflictDetection\": false}}."},"#
                + #""locations":[{"line":1,"column":12,"sourceName":null}],"#
                + #""message":"Conflict resolver rejects mutation."}]}"#
        )
    }

    @Test func aThrowingCustomHandlerRejects() async throws {
        struct Refusal: Error {}
        let server = try await Self.server(ServerConfiguration(conflictResolution: .custom { _ in throw Refusal() }))
        let body = await server.json(Self.updateTitle, ["input": ["id": "p1", "title": "C", "_version": 1]])
        #expect(body["errors"]?[0]?["errorType"] == "ConflictUnhandled")
    }

    @Test func aCustomHandlerRemoves() async throws {
        let server = try await Self.server(ServerConfiguration(conflictResolution: .custom { _ in .remove }))
        #expect(
            await server.run(Self.updateTitle, ["input": ["id": "p1", "title": "C", "_version": 1]])
                == #"{"data":{"updatePost":{"id":"p1","_version":3,"_deleted":true,"_lastChangedAt":1700000002000,"#
                + #""__typename":"Post"}}}"#
        )
        #expect(
            await server.run(#"{ getPost(id: "p1") { title _deleted } }"#)
                == #"{"data":{"getPost":{"title":"B","_deleted":true}}}"#
        )
    }

    @Test func strategiesAreChosenPerModel() async throws {
        let configuration = ServerConfiguration(
            conflictResolution: .optimisticConcurrency,
            modelConflictResolution: ["Post": .automerge]
        )
        let server = try await Self.server(configuration)
        #expect(
            await server.run(Self.updateTitle, ["input": ["id": "p1", "title": "C", "_version": 1]])
                == #"{"data":{"updatePost":{"id":"p1","_version":3,"_deleted":null,"_lastChangedAt":1700000002000,"#
                + #""__typename":"Post"}}}"#
        )
    }

    @Test func concurrentStaleWritesAreSettledOneAtATime() async throws {
        let server = try await Self.server(ServerConfiguration())
        let bodies = await withTaskGroup(of: JSON.self) { group in
            for number in 0..<16 {
                group.addTask {
                    await server.json(
                        Self.updateTitle,
                        ["input": ["id": "p1", "title": .string("T\(number)"), "_version": 2]]
                    )
                }
            }
            return await group.reduce(into: [JSON]()) { $0.append($1) }
        }
        #expect(bodies.allSatisfy { $0["errors"] == nil }, "\(bodies.map(\.text))")
        #expect(Set(bodies.compactMap { $0["data"]?["updatePost"]?["_version"]?.intValue }) == Set(3...18))
    }

    @Test func concurrentWritesOfOneVersionLetExactlyOneThroughUnderOptimisticConcurrency() async throws {
        let server = try await Self.server(ServerConfiguration(conflictResolution: .optimisticConcurrency))
        let bodies = await withTaskGroup(of: JSON.self) { group in
            for number in 0..<16 {
                group.addTask {
                    await server.json(
                        Self.updateTitle,
                        ["input": ["id": "p1", "title": .string("T\(number)"), "_version": 2]]
                    )
                }
            }
            return await group.reduce(into: [JSON]()) { $0.append($1) }
        }
        #expect(bodies.filter { $0["errors"] == nil }.count == 1)
        #expect(bodies.filter { $0["errors"]?[0]?["errorType"] == "ConflictUnhandled" }.count == 15)
        #expect(await server.run(#"{ getPost(id: "p1") { _version } }"#) == #"{"data":{"getPost":{"_version":3}}}"#)
    }
}
