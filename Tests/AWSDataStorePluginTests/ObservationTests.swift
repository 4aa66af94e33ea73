import Amplify
import Foundation
import Testing

@testable import AWSDataStorePlugin

#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif

/// `observe`, `observeQuery` and `publisher(for:)` report committed changes.
@Suite struct ObservationTests {
    @Test func observeReportsEachChangeOfItsModelInOrder() async throws {
        let store = try TestStore(AmplifyModels())
        let events = store.plugin.observe(Post.self)
        var post = try await store.plugin.save(Post(id: "p1", title: "First", rating: 1, status: "active"))
        try await store.plugin.save(User(id: "u1", username: "not a post"))
        post.title = "Edited"
        try await store.plugin.save(post)
        try await store.plugin.delete(post)
        var received: [MutationEvent] = []
        for try await event in events {
            received.append(event)
            if received.count == 3 { break }
        }
        #expect(received.map(\.mutationType) == ["create", "update", "delete"])
        #expect(received.map(\.modelId) == ["p1", "p1", "p1"])
        #expect(try received[1].decodeModel(as: Post.self).title == "Edited")
        #expect(try received[2].decodeModel(as: Post.self).title == "Edited")
    }

    @Test func stopEndsObservation() async throws {
        let store = try TestStore(AmplifyModels())
        let events = store.plugin.observe(Post.self)
        try await store.plugin.save(Post(id: "p1", title: "First", rating: 1, status: "active"))
        try await store.plugin.stop()
        var count = 0
        for try await _ in events { count += 1 }
        #expect(count == 1)
        #expect(try await store.plugin.query(Post.self).count == 1)
    }

    @Test func observeQueryStartsWithTheCurrentResultThenFollowsChanges() async throws {
        let store = try TestStore(AmplifyModels())
        try await store.plugin.save(Post(id: "p1", title: "Good", rating: 5, status: "active"))
        try await store.plugin.save(Post(id: "p2", title: "Bad", rating: 1, status: "active"))
        let p = Post.keys
        var snapshots = store.plugin.observeQuery(for: Post.self, where: p.rating > 3, sort: .descending(p.rating))
            .makeAsyncIterator()
        let first = try #require(try await snapshots.next())
        #expect(first.items.map(\.id) == ["p1"])
        #expect(first.isSynced)

        try await store.plugin.save(Post(id: "p3", title: "Better", rating: 9, status: "active"))
        #expect(try await snapshots.next()?.items.map(\.id) == ["p3", "p1"])

        // A change to a record that neither matches nor is shown gives no snapshot.
        try await store.plugin.save(Post(id: "p2", title: "Still bad", rating: 2, status: "active"))
        var p1 = try #require(try await store.plugin.query(Post.self, byId: "p1"))
        p1.rating = 0
        try await store.plugin.save(p1)
        #expect(try await snapshots.next()?.items.map(\.id) == ["p3"])

        try await store.plugin.delete(Post.self, withId: "p3")
        #expect(try await snapshots.next()?.items.map(\.id) == [])

        try await store.plugin.save(Post(id: "p4", title: "New", rating: 4, status: "active"))
        #expect(try await snapshots.next()?.items.map(\.id) == ["p4"])
        try await store.plugin.clear()
        #expect(try await snapshots.next()?.items.map(\.id) == [])
    }

    @Test func observeQueryWithAnInvalidPredicateFails() async throws {
        let store = try TestStore(AmplifyModels())
        var snapshots = store.plugin.observeQuery(for: Post.self, where: field("nope") == 1).makeAsyncIterator()
        let error = await #expect(throws: DataStoreError.self) { _ = try await snapshots.next() }
        #expect(error?.message.hasPrefix("Post has no field 'nope'") == true)
    }

    @Test func observersAreRemovedWhenTheirStreamEnds() async throws {
        let store = try TestStore(AmplifyModels())
        let engine = try store.engine
        do {
            var snapshots = store.plugin.observeQuery(for: Post.self).makeAsyncIterator()
            _ = try await snapshots.next()
            var events = store.plugin.observe(Post.self).makeAsyncIterator()
            try await store.plugin.save(Post(id: "p1", title: "x", rating: 1, status: "a"))
            _ = try await events.next()
            #expect(engine.hub.observerCount == 2)
        }
        try await waitUntil { engine.hub.observerCount == 0 }
    }

    @Test func publisherDeliversEventsUntilCancelled() async throws {
        let store = try TestStore(AmplifyModels())
        let received = Recorder<String>()
        let subscription = store.plugin.publisher(for: Post.self)
            .sink(receiveCompletion: { _ in received.append("completed") }) { received.append($0.modelId) }
        try await store.plugin.save(Post(id: "p1", title: "One", rating: 1, status: "active"))
        try await store.plugin.save(Post(id: "p2", title: "Two", rating: 2, status: "active"))
        try await waitUntil { received.count == 2 }
        subscription.cancel()
        try await store.plugin.save(Post(id: "p3", title: "Three", rating: 3, status: "active"))
        try await Task.sleep(for: .milliseconds(100))
        #expect(received.values == ["p1", "p2"])
    }

    @Test func publisherHonoursDemand() async throws {
        let store = try TestStore(AmplifyModels())
        let received = Recorder<String>()
        let subscriber = DemandingSubscriber(received: received)
        store.plugin.publisher(for: Post.self).subscribe(subscriber)
        for index in 1...3 {
            try await store.plugin.save(Post(id: "p\(index)", title: "x", rating: 1, status: "active"))
        }
        try await waitUntil { received.count == 1 }
        try await Task.sleep(for: .milliseconds(100))
        #expect(received.values == ["p1"])
        subscriber.request(2)
        try await waitUntil { received.count == 3 }
        #expect(received.values == ["p1", "p2", "p3"])
        subscriber.cancel()
    }

    @Test func publisherEndsWhenTheStoreStops() async throws {
        let store = try TestStore(AmplifyModels())
        let received = Recorder<String>()
        let subscription = store.plugin.publisher(for: Post.self)
            .sink(receiveCompletion: { _ in received.append("finished") }) { received.append($0.modelId) }
        try await store.plugin.start()
        try await store.plugin.stop()
        try await waitUntil { received.count == 1 }
        #expect(received.values == ["finished"])
        subscription.cancel()
    }
}

/// A subscriber that asks for one event, then for what the test requests.
final class DemandingSubscriber: Subscriber, @unchecked Sendable {
    typealias Input = MutationEvent
    typealias Failure = DataStoreError

    let received: Recorder<String>
    private let lock = NSLock()
    private var subscription: (any Subscription)?

    init(received: Recorder<String>) {
        self.received = received
    }

    func receive(subscription: any Subscription) {
        lock.withLock { self.subscription = subscription }
        subscription.request(.max(1))
    }

    func receive(_ input: MutationEvent) -> Subscribers.Demand {
        received.append(input.modelId)
        return .none
    }

    func receive(completion: Subscribers.Completion<DataStoreError>) {}

    func request(_ count: Int) {
        lock.withLock { subscription }?.request(.max(count))
    }

    func cancel() {
        lock.withLock { subscription }?.cancel()
    }
}

/// The completion-handler forms report through their handlers.
@Suite struct CompletionHandlerTests {
    @Test func everyFormCallsItsHandler() async throws {
        let store = try TestStore(AmplifyModels())
        let dataStore: any DataStoreCategory = store.plugin
        let saved = try await withCheckedThrowingContinuation { continuation in
            dataStore.save(Post(id: "p1", title: "Callback", rating: 4, status: "active")) {
                continuation.resume(with: $0)
            }
        }
        #expect(saved.id == "p1")
        let byId = try await withCheckedThrowingContinuation { continuation in
            dataStore.query(Post.self, byId: "p1") { continuation.resume(with: $0) }
        }
        #expect(byId?.title == "Callback")
        let p = Post.keys
        let matching = try await withCheckedThrowingContinuation { continuation in
            dataStore.query(Post.self, where: { p.rating > 3 }) { continuation.resume(with: $0) }
        }
        #expect(matching.map(\.id) == ["p1"])
        let failure = await withCheckedContinuation { continuation in
            dataStore.save(Post(id: "p2", title: "x", rating: 1, status: "a"), where: p.rating > 3) {
                continuation.resume(returning: $0)
            }
        }
        guard case .failure(let error) = failure else {
            Issue.record("A condition on a create succeeded.")
            return
        }
        #expect(error.code == .invalidCondition)
        #expect(error.localizedDescription == error.message)
        try await withCheckedThrowingContinuation { continuation in
            dataStore.delete(Post.self, withId: "p1") { continuation.resume(with: $0) }
        }
        #expect(try await dataStore.query(Post.self).isEmpty)
    }
}
