import Amplify
import BlogModels
import Foundation
import Testing

@testable import AWSDataStorePlugin

/// Subscriptions of different models deliver in no common order: a record the backend sends
/// before its parent waits for it instead of being dropped.
@Suite struct ReconcileOrderTests {
    static func post(_ id: String, blog: String, title: String, version: Int) throws -> JSONValue {
        try JSONValue(
            parsing: Data(
                #"{"id":"\#(id)","title":"\#(title)","blogID":"\#(blog)","status":"DRAFT","_version":\#(version),"_deleted":null,"_lastChangedAt":1}"#
                    .utf8
            )
        )
    }

    static func blog(_ id: String, deleted: Bool = false, version: Int = 1) throws -> JSONValue {
        try JSONValue(
            parsing: Data(
                #"{"id":"\#(id)","name":"Travels","_version":\#(version),"_deleted":\#(deleted),"_lastChangedAt":1}"#
                    .utf8
            )
        )
    }

    @Test func aChildBeforeItsParentIsAppliedWhenTheParentArrives() async throws {
        let store = try TestStore()
        let engine = try store.engine
        let early = try await engine.reconcile(
            [try Self.post("p1", blog: "b1", title: "First", version: 1)],
            modelName: "Post"
        )
        #expect(early.refused.isEmpty)
        #expect(early.applied.isEmpty)
        // A newer version of the waiting record replaces it; an older one does not.
        _ = try await engine.reconcile(
            [try Self.post("p1", blog: "b1", title: "Second", version: 3)],
            modelName: "Post"
        )
        _ = try await engine.reconcile([try Self.post("p1", blog: "b1", title: "Stale", version: 2)], modelName: "Post")
        #expect(try await store.plugin.query(BlogPost.self, byId: "p1") == nil)

        let arrived = try await engine.reconcile([try Self.blog("b1")], modelName: "Blog")
        #expect(arrived.refused.isEmpty)
        #expect(
            arrived.applied.map { "\($0.modelName) \($0.modelId) \($0.mutationType)" } == [
                "Blog b1 create", "Post p1 create",
            ]
        )
        #expect(try await store.plugin.query(BlogPost.self, byId: "p1")?.title == "Second")
        // Applied once: the waiting record is gone.
        let again = try await engine.reconcile([try Self.blog("b1", version: 2)], modelName: "Blog")
        #expect(again.applied.map(\.modelName) == ["Blog"])
        try await store.plugin.stop()
    }

    @Test func aChildOfADeletedParentIsForgotten() async throws {
        let store = try TestStore()
        let engine = try store.engine
        _ = try await engine.reconcile(
            [try Self.post("p2", blog: "b2", title: "Orphan", version: 1)],
            modelName: "Post"
        )
        let deleted = try await engine.reconcile([try Self.blog("b2", deleted: true)], modelName: "Blog")
        #expect(deleted.applied.isEmpty)
        // The parent created again later (a new record with the same id) brings nothing old.
        let recreated = try await engine.reconcile([try Self.blog("b2", version: 2)], modelName: "Blog")
        #expect(recreated.applied.map(\.modelName) == ["Blog"])
        #expect(try await store.plugin.query(BlogPost.self, byId: "p2") == nil)
        try await store.plugin.stop()
    }
}
