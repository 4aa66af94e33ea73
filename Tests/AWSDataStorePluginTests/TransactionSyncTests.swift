import AWSAPIPlugin
import Amplify
import BlogModels
import Foundation
import StratusTesting
import Synchronization
import Testing

@testable import AWSDataStorePlugin

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transaction synced with the local backend: each change is its own mutation, sent in the
/// transaction's order whatever the outbox's concurrency, and a change the backend refuses is
/// undone and reported alone.
@Suite struct TransactionSyncTests {
    @Test func aTransactionsChangesReachTheBackendInItsOrder() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let sent = MutationLog()
        let device = try SyncDevice(backend: backend, interceptor: sent) { $0.outboxConcurrency = 4 }
        let other = try SyncDevice(backend: backend)
        try await device.startAndWaitUntilReady()
        try await other.startAndWaitUntilReady()

        let blog = Blog(id: "b1", name: "Travels")
        try await device.plugin.transaction { tx in
            try tx.save(blog)
            for index in 1...4 {
                try tx.save(BlogPost(id: "p\(index)", title: "Post \(index)", blog: blog, status: .draft))
            }
            try tx.save(BlogPost(id: "p1", title: "Post 1, edited", blog: blog, status: .draft))
            try tx.delete(BlogPost.self, withId: "p2")
        }
        try await device.waitUntilOutboxIsEmpty()
        #expect(
            sent.values == [
                "createBlog b1", "createPost p1", "createPost p2", "createPost p3", "createPost p4", "updatePost p1",
                "deletePost p2",
            ]
        )
        try await other.waitUntil("the transaction on the other device") {
            try await other.plugin.query(BlogPost.self).map { "\($0.id) \($0.title)" }.sorted() == [
                "p1 Post 1, edited", "p3 Post 3", "p4 Post 4",
            ]
        }
        #expect(device.errors.values.isEmpty, "\(device.diagnostics)")
        try await device.plugin.stop()
        try await other.plugin.stop()
    }

    /// What a partially refused transaction does: the backend applies the changes it accepts, in
    /// order; each refused one reaches `errorHandler` and the Hub's `outboxMutationFailed`, and
    /// its record returns to the backend's state (a refused create is removed); the changes
    /// after it are still sent.
    @Test func aRefusedChangeIsUndoneAloneAndReported() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let sent = MutationLog()
        let device = try SyncDevice(backend: backend, interceptor: sent)
        try await device.startAndWaitUntilReady()

        let blog = Blog(id: "b1", name: "Blog")
        try await device.plugin.save(blog)
        try await device.waitUntilOutboxIsEmpty()
        try await device.plugin.transaction { tx in
            try tx.save(BlogPost(id: "p1", title: "Good", blog: blog, status: .draft))
            // AWSEmail is checked by the backend only.
            try tx.save(BlogPost(id: "p2", title: "Bad", blog: blog, status: .draft, contactEmail: "not an email"))
            try tx.save(Blog(id: "b1", name: "Blog, renamed"))
        }
        try await device.waitUntilOutboxIsEmpty()
        #expect(sent.values == ["createBlog b1", "createPost p1", "createPost p2", "updateBlog b1"])
        try await waitUntil("the refused post removed") {
            try await device.plugin.query(BlogPost.self, byId: "p2") == nil
        }
        #expect(try await device.plugin.query(BlogPost.self).map(\.id) == ["p1"])
        #expect(try await device.plugin.query(Blog.self, byId: "b1")?.name == "Blog, renamed")
        let failed = device.events.values.filter {
            $0.eventName == HubPayload.EventName.DataStore.outboxMutationFailed
        }
        #expect(failed.count == 1)
        #expect(device.errors.values.count == 1)
        #expect(device.errors.values.first?.message.contains("refused the create of Post 'p2'") == true)
        try await device.plugin.stop()
    }
}

/// A transaction synced whole with `stratus serve` (``DataStoreConfiguration/TransactionSync/atomic``):
/// one request, applied all or nothing.
@Suite struct AtomicTransactionSyncTests {
    @Test func aTransactionReachesTheBackendInOneRequest() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let sent = MutationLog()
        let device = try SyncDevice(backend: backend, interceptor: sent) { $0.transactionSync = .atomic }
        let other = try SyncDevice(backend: backend)
        try await device.startAndWaitUntilReady()
        try await other.startAndWaitUntilReady()

        let blog = Blog(id: "b1", name: "Travels")
        try await device.plugin.transaction { tx in
            try tx.save(blog)
            for index in 1...3 {
                try tx.save(BlogPost(id: "p\(index)", title: "Post \(index)", blog: blog, status: .draft))
            }
            try tx.save(BlogPost(id: "p1", title: "Post 1, edited", blog: blog, status: .draft))
            try tx.delete(BlogPost.self, withId: "p2")
        }
        try await device.plugin.save(Blog(id: "b2", name: "Alone"))
        try await device.waitUntilOutboxIsEmpty()
        // `b2` is another record: it may be sent before the transaction or after it.
        #expect(
            sent.values.sorted() == [
                "atomic: createBlog b1, createPost p1, createPost p2, createPost p3, updatePost p1, deletePost p2",
                "createBlog b2",
            ]
        )
        try await other.waitUntil("the transaction on the other device") {
            try await other.plugin.query(BlogPost.self).map { "\($0.id) \($0.title)" }.sorted() == [
                "p1 Post 1, edited", "p3 Post 3",
            ]
        }
        // The device holds the backend's versions: a later change is accepted as it is.
        try await device.plugin.save(BlogPost(id: "p1", title: "Post 1, again", blog: blog, status: .draft))
        try await device.waitUntilOutboxIsEmpty()
        try await other.waitUntil("the later change on the other device") {
            try await other.plugin.query(BlogPost.self, byId: "p1")?.title == "Post 1, again"
        }
        #expect(device.errors.values.isEmpty, "\(device.diagnostics)")
        try await device.plugin.stop()
        try await other.plugin.stop()
    }

    /// A refused change cancels the whole transaction on the backend: every change is undone on
    /// the device and reported through `errorHandler` and the Hub.
    @Test func aRefusedChangeCancelsTheWholeTransaction() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let sent = MutationLog()
        let device = try SyncDevice(backend: backend, interceptor: sent) { configuration in
            configuration.transactionSync = .atomic
            configuration.syncExpressions = [
                .syncExpression(BlogPost.schema, where: { BlogPost.keys.title != "hidden" })
            ]
        }
        // The backend has a post `p2` the device does not sync: the device's create of `p2` is refused.
        let api = try backend.makeAPIPlugin()
        let blog = Blog(id: "b1", name: "Blog")
        _ = try await api.mutate(request: .create(blog)).get()
        _ = try await api.mutate(request: .create(BlogPost(id: "p2", title: "hidden", blog: blog, status: .draft)))
            .get()
        try await device.startAndWaitUntilReady()
        #expect(try await device.plugin.query(BlogPost.self).isEmpty)

        try await device.plugin.transaction { tx in
            try tx.save(BlogPost(id: "p1", title: "Good", blog: blog, status: .draft))
            try tx.save(Blog(id: "b1", name: "Blog, renamed"))
            try tx.save(BlogPost(id: "p2", title: "Late", blog: blog, status: .draft))
        }
        try await device.waitUntilOutboxIsEmpty()
        #expect(sent.values == ["atomic: createPost p1, updateBlog b1, createPost p2"])
        // Nothing was applied: each record is the backend's again (the refused `p2` is the
        // backend's own).
        try await waitUntil("the transaction undone") {
            try await device.plugin.query(BlogPost.self).map { "\($0.id) \($0.title)" } == ["p2 hidden"]
        }
        #expect(try await device.plugin.query(Blog.self, byId: "b1")?.name == "Blog")
        let backendBlog = try await api.query(request: .get(Blog.self, byId: "b1")).get()
        #expect(backendBlog?.name == "Blog")
        let events = device.events.values.map(\.eventName)
        #expect(events.filter { $0 == HubPayload.EventName.DataStore.outboxMutationFailed }.count == 2)
        #expect(events.filter { $0 == HubPayload.EventName.DataStore.conditionalSaveFailed }.count == 1)
        let messages = device.errors.values.map(\.message)
        #expect(messages.count == 3, "\(messages)")
        #expect(
            messages.allSatisfy { $0.contains("The backend cancelled the transaction of 3 changes, applying none") }
        )
        #expect(messages.first?.hasSuffix("the create of Post 'p2' was refused.") == true, "\(messages)")
        #expect(messages.last?.contains("it refused this change: ") == true, "\(messages)")
        try await device.plugin.stop()
    }
}

/// Records each mutation sent, in order, as `field id` (`createPost p1`), and each atomic
/// transaction as `atomic: ` and its mutations.
final class MutationLog: URLRequestInterceptor {
    private let entries = Mutex<[String]>([])

    var values: [String] { entries.withLock { $0 } }

    func intercept(_ request: URLRequest) async throws -> URLRequest {
        if request.value(forHTTPHeaderField: "Stratus-Transaction") == "atomic",
            let body = request.httpBody,
            let object = try JSONSerialization.jsonObject(with: body) as? [String: Any],
            let query = object["query"] as? String,
            let variables = object["variables"] as? [String: Any]
        {
            let fields = query.matches(of: /m(\d+): ((create|update|delete)[A-Z][A-Za-z]*)\(/).map { match in
                let input = variables["input\(match.output.1)"] as? [String: Any]
                return "\(match.output.2) \(input?["id"] as? String ?? "?")"
            }
            entries.withLock { $0.append("atomic: " + fields.joined(separator: ", ")) }
            return request
        }
        guard let body = request.httpBody,
            let object = try JSONSerialization.jsonObject(with: body) as? [String: Any],
            let query = object["query"] as? String, query.contains("mutation"),
            let match = query.firstMatch(of: /(create|update|delete)[A-Z][A-Za-z]*(?=\()/),
            let variables = object["variables"] as? [String: Any],
            let input = variables["input"] as? [String: Any],
            let id = input["id"] as? String
        else { return request }
        entries.withLock { $0.append("\(match.output.0) \(id)") }
        return request
    }
}
