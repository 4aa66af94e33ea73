import Amplify
import BlogModels
import Foundation
import Synchronization
import Testing

/// Lists and references decoded with a loader in the decoder's userInfo load on first access.
@Suite struct RelationLoadingTests {
    final class RecordingLoader: ModelRelationLoader {
        let calls = Mutex<[String]>([])
        let records: [String: [JSONValue]]

        init(records: [String: [JSONValue]]) {
            self.records = records
        }

        func load<M: Model>(_ type: M.Type, matching values: [String: JSONValue]) throws -> [M] {
            let description = values.keys.sorted().map { "\($0)=\(values[$0]?.stringValue ?? "?")" }.joined(
                separator: ","
            )
            calls.withLock { $0.append("\(M.modelName)(\(description))") }
            return try (records[M.modelName] ?? [])
                .filter { record in values.allSatisfy { record[$0.key] == $0.value } }
                .map { try $0.decode(as: M.self) }
        }
    }

    func decoder(with loader: RecordingLoader) -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.userInfo[.modelRelationLoader] = loader
        return decoder
    }

    @Test func hasManyLoadsOnFirstAccess() throws {
        let loader = RecordingLoader(records: [
            "Comment": [
                ["id": "c1", "content": "first", "postCommentsId": "p1"],
                ["id": "c2", "content": "other", "postCommentsId": "p2"],
            ]
        ])
        let json: JSONValue = ["id": "p1", "title": "t", "status": "DRAFT"]
        let post = try json.decode(as: Post.self, decoder: decoder(with: loader))
        #expect(loader.calls.withLock { $0 }.isEmpty)
        let comments = try #require(post.comments)
        #expect(!comments.isLoaded)
        #expect(comments.map(\.content) == ["first"])
        #expect(comments.count == 1)
        #expect(loader.calls.withLock { $0 } == ["Comment(postCommentsId=p1)"])
    }

    @Test func belongsToLoadsOnFirstAccess() throws {
        let loader = RecordingLoader(records: ["Post": [["id": "p1", "title": "Loaded", "status": "PUBLISHED"]]])
        let json: JSONValue = ["id": "c1", "content": "hi", "postCommentsId": "p1"]
        let comment = try json.decode(as: BlogModels.Comment.self, decoder: decoder(with: loader))
        #expect(comment.postCommentsId == "p1")
        #expect(comment.post?.title == "Loaded")
        #expect(comment.post?.status == .published)
        #expect(loader.calls.withLock { $0 } == ["Post(id=p1)"])
    }

    @Test func withoutALoaderNothingLoads() throws {
        let json: JSONValue = ["id": "c1", "content": "hi", "postCommentsId": "p1"]
        let comment = try json.decode(as: BlogModels.Comment.self)
        #expect(comment.post == nil)
        #expect(comment.postCommentsId == "p1")
        let post = try (["id": "p1", "title": "t", "status": "DRAFT"] as JSONValue).decode(as: Post.self)
        #expect(post.comments == nil)
    }
}

/// A relation whose load fails is not cached as empty: the failure is reported, and a later
/// access loads. Loads run outside the lists' and references' locks.
@Suite struct RelationLoadFailureTests {
    struct StoreUnavailable: Error, CustomStringConvertible {
        var description: String { "the store is unavailable" }
    }

    /// Fails its first `failures` loads, then serves `records`; records what it was told of
    /// failures. With `rendezvous`, each load waits (up to two seconds) until that many loads
    /// are in flight at once.
    final class ScriptedLoader: ModelRelationLoader {
        let records: [String: [JSONValue]]
        let failuresLeft: Mutex<Int>
        let reported = Mutex<[String]>([])
        let loads = Mutex(0)
        let rendezvous: Int
        let inFlight = Mutex(0)
        let metAll = Mutex(true)

        init(records: [String: [JSONValue]], failures: Int, rendezvous: Int = 0) {
            self.records = records
            self.failuresLeft = Mutex(failures)
            self.rendezvous = rendezvous
        }

        func load<M: Model>(_ type: M.Type, matching values: [String: JSONValue]) throws -> [M] {
            loads.withLock { $0 += 1 }
            if rendezvous > 0 { waitForOthers() }
            let fails = failuresLeft.withLock { left in
                defer { left = max(0, left - 1) }
                return left > 0
            }
            if fails { throw StoreUnavailable() }
            return try (records[M.modelName] ?? [])
                .filter { record in values.allSatisfy { record[$0.key] == $0.value } }
                .map { try $0.decode(as: M.self) }
        }

        func loadFailed(_ error: any Error, loading relation: String) {
            reported.withLock { $0.append("\(relation): \(error)") }
        }

        private func waitForOthers() {
            inFlight.withLock { $0 += 1 }
            let deadline = Date().addingTimeInterval(2)
            while inFlight.withLock({ $0 }) < rendezvous {
                if Date() > deadline {
                    metAll.withLock { $0 = false }
                    return
                }
                Thread.sleep(forTimeInterval: 0.001)
            }
        }
    }

    static let comments: [String: [JSONValue]] = [
        "Comment": [["id": "c1", "content": "first", "postCommentsId": "p1"]],
        "Post": [["id": "p1", "title": "Loaded", "status": "PUBLISHED"]],
    ]

    func post(loader: ScriptedLoader) throws -> Post {
        let decoder = JSONDecoder()
        decoder.userInfo[.modelRelationLoader] = loader
        return try (["id": "p1", "title": "t", "status": "DRAFT"] as JSONValue).decode(as: Post.self, decoder: decoder)
    }

    @Test func aFailedListLoadIsReportedAndNotCached() throws {
        let loader = ScriptedLoader(records: Self.comments, failures: 1)
        let comments = try #require(try post(loader: loader).comments)
        var contents: [String?] = []
        for comment in comments { contents.append(comment.content) }
        #expect(contents == [])
        #expect(!comments.isLoaded)
        guard case .notLoaded(let values) = comments.loadedState else {
            Issue.record("A failed load left the list loaded")
            return
        }
        #expect(values == ["postCommentsId": "p1"])
        #expect(loader.reported.withLock { $0 } == ["Comment where postCommentsId = p1: the store is unavailable"])
        // The next access loads.
        for comment in comments { contents.append(comment.content) }
        #expect(contents == ["first"])
        #expect(comments.isLoaded)
        #expect(comments.count == 1)
        #expect(loader.loads.withLock { $0 } == 2)
    }

    @Test func fetchThrowsTheFailureAndLoadsOnTheNextCall() async throws {
        let loader = ScriptedLoader(records: Self.comments, failures: 1)
        let comments = try #require(try post(loader: loader).comments)
        await #expect(throws: StoreUnavailable.self) { try await comments.fetch() }
        #expect(!comments.isLoaded)
        try await comments.fetch()
        guard case .loaded(let elements) = comments.loadedState else {
            Issue.record("fetch() did not load the list")
            return
        }
        #expect(elements.map(\.id) == ["c1"])
        // Loaded: neither access nor fetch loads again.
        try await comments.fetch()
        #expect(comments.map(\.id) == ["c1"])
        #expect(loader.loads.withLock { $0 } == 2)
        #expect(loader.reported.withLock { $0 }.isEmpty)
    }

    @Test func aFailedReferenceLoadIsReportedAndNotCached() async throws {
        let loader = ScriptedLoader(records: Self.comments, failures: 2)
        let reference = ModelReference<Post>(identifiers: ["p1"], loader: loader)
        #expect(reference.model == nil)
        #expect(loader.reported.withLock { $0 } == ["Post where id = p1: the store is unavailable"])
        await #expect(throws: StoreUnavailable.self) { try await reference.get() }
        guard case .notLoaded(let identifiers) = reference.loadedState else {
            Issue.record("A failed load left the reference loaded")
            return
        }
        #expect(identifiers == ["p1"])
        #expect(try await reference.get()?.title == "Loaded")
        #expect(reference.model?.title == "Loaded")
        #expect(reference.isLoaded)
        #expect(loader.loads.withLock { $0 } == 3)
    }

    /// Two threads read the same unloaded relation at once: both loads run together (no lock is
    /// held while loading), and both see the result stored first.
    @Test func concurrentLoadsRunTogether() throws {
        let listLoader = ScriptedLoader(records: Self.comments, failures: 0, rendezvous: 2)
        let comments = try #require(try post(loader: listLoader).comments)
        let referenceLoader = ScriptedLoader(records: Self.comments, failures: 0, rendezvous: 2)
        let reference = ModelReference<Post>(identifiers: ["p1"], loader: referenceLoader)
        let results = Mutex<[String]>([])
        let done = DispatchGroup()
        for _ in 0..<2 {
            done.enter()
            Thread {
                let ids = comments.map(\.id)
                let title = reference.model?.title ?? "nil"
                results.withLock { $0.append("\(ids) \(title)") }
                done.leave()
            }
            .start()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(listLoader.metAll.withLock { $0 })
        #expect(referenceLoader.metAll.withLock { $0 })
        #expect(results.withLock { $0 } == [#"["c1"] Loaded"#, #"["c1"] Loaded"#])
    }
}
