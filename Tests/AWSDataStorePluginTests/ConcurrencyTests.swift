import Amplify
import Foundation
import GRDB
import Testing

@testable import AWSDataStorePlugin

/// Eight tasks save, query and delete at once: no errors, and the final state is the one a
/// serial replay of the committed changes gives.
@Suite struct ConcurrencyTests {
    /// What a task does: saves, updates and deletes of its own posts and of shared ones, with
    /// queries in between.
    static func work(task: Int, store: AWSDataStorePlugin) async throws -> [String: Int] {
        var own: [String: Int] = [:]
        let p = Post.keys
        for step in 0..<60 {
            let ownID = "t\(task)-\(step % 7)"
            switch step % 5 {
            case 0, 1, 2:
                let rating = task * 1_000 + step
                try await store.save(Post(id: ownID, title: "Task \(task)", rating: rating, status: "active"))
                own[ownID] = rating
            case 3:
                try await store.delete(Post.self, withId: ownID)
                own[ownID] = nil
            default:
                let sharedID = "shared-\(step % 3)"
                try await store.save(Post(id: sharedID, title: "Shared", rating: task, status: "active"))
            }
            let mine = try await store.query(Post.self, where: p.title == "Task \(task)", sort: .ascending(p.id))
            #expect(mine.allSatisfy { $0.title == "Task \(task)" })
            _ = try await store.query(Post.self, where: p.rating > 3_000, paginate: .page(0, limit: 5))
        }
        return own
    }

    @Test func eightTasksEndInTheStateOfASerialReplay() async throws {
        let store = try TestStore(AmplifyModels())
        let plugin = store.plugin
        let expectedOwn = try await withThrowingTaskGroup(of: [String: Int].self) { group in
            for task in 0..<8 {
                group.addTask { try await Self.work(task: task, store: plugin) }
            }
            return try await group.reduce(into: [String: Int]()) { $0.merge($1) { first, _ in first } }
        }
        let final = try await plugin.query(Post.self)
        let finalState = Dictionary(uniqueKeysWithValues: final.map { ($0.id, $0.rating) })

        // Each task's own posts are as its own serial sequence left them.
        #expect(finalState.filter { !$0.key.hasPrefix("shared") } == expectedOwn)

        // Replaying the outbox, the committed changes in commit order, gives the final state.
        var replayed: [String: Int] = [:]
        for event in try await plugin.pendingMutations() {
            if event.mutationType == "delete" {
                replayed[event.modelId] = nil
            } else {
                replayed[event.modelId] = try event.decodeModel(as: Post.self).rating
            }
        }
        #expect(replayed == finalState)
        #expect(finalState.keys.filter { $0.hasPrefix("shared") }.count == 3)
    }

    @Test func conditionalSavesAreAtomic() async throws {
        let store = try TestStore(AmplifyModels())
        let plugin = store.plugin
        try await plugin.save(Post(id: "counter", title: "Counter", rating: 0, status: "active"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var increments = 0
                    while increments < 15 {
                        var counter = try #require(try await plugin.query(Post.self, byId: "counter"))
                        let seen = counter.rating
                        counter.rating = seen + 1
                        do {
                            try await plugin.save(counter, where: Post.keys.rating == seen)
                            increments += 1
                        } catch let error as DataStoreError where error.code == .conditionalSaveFailed {
                            continue
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await plugin.query(Post.self, byId: "counter")?.rating == 120)
        let updates = try await plugin.pendingMutations().filter { $0.mutationType == "update" }
        #expect(try updates.map { try $0.decodeModel(as: Post.self).rating } == Array(1...120))
    }
}
