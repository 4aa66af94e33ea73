import Amplify
import Foundation
import GRDB
import StratusTesting
import Testing

@testable import AWSDataStorePlugin

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A process saving models is killed with SIGKILL at a random moment: reopening finds every
/// acknowledged save with its outbox event, and nothing half-written.
@Suite struct DurabilityTests {
    static let total = 10_000

    @Test(.enabled(if: ChildTest.isSupported && ChildTest.role == nil), arguments: [1, 2])
    func killedWhileSavingLosesNothingAcknowledged(run: Int) async throws {
        var random = SystemRandomNumberGenerator()
        let directory = try TemporaryDirectory()
        let database = directory.file("datastore.sqlite")
        let acknowledgements = directory.file("acknowledged.txt")
        let killAfter = Int.random(in: 200..<2_500, using: &random)
        let process = try await ChildTest.start(
            filter: "DurabilityChild",
            role: "durability",
            environment: ["STRATUS_DATABASE": database.path, "STRATUS_ACKNOWLEDGEMENTS": acknowledgements.path],
            directory: directory.url,
            output: directory.file("child.log")
        )
        // The kill comes from a thread of its own, so that a busy test process cannot delay it.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let killer = Thread {
                let deadline = Date().addingTimeInterval(120)
                while Self.acknowledged(acknowledgements).count < killAfter, process.isRunning, Date() < deadline {
                    usleep(UInt32.random(in: 100..<2_000))
                }
                kill(process.processIdentifier, SIGKILL)
                continuation.resume()
            }
            killer.start()
        }
        let status = try await process.wait()
        let log = (try? String(contentsOf: directory.file("child.log"), encoding: .utf8)) ?? ""
        #expect(status == .signaled(SIGKILL), "\(log)")

        let acknowledged = Self.acknowledged(acknowledgements)
        #expect(acknowledged.count >= killAfter)
        // Reopening checks every page of the file.
        let plugin = TestStore.makePlugin(AmplifyModels(), at: database, logs: LogRecorder())
        let posts = try await plugin.query(Post.self)
        let stored = posts.map(\.id)
        let events = try await plugin.pendingMutations()
        // Saves commit in order: the stored records are the first ones, each with its outbox event.
        #expect(stored == (0..<stored.count).map { "p\($0)" })
        #expect(events.map(\.modelId) == stored)
        #expect(events.allSatisfy { $0.mutationType == "create" && $0.modelName == "Post" })
        #expect(posts.allSatisfy { $0.title == "Post \($0.id)" && $0.status == "active" })
        // Every acknowledged save is there; at most the save in flight went further.
        #expect(Set(acknowledged).isSubset(of: Set(stored)))
        #expect(stored.count - acknowledged.count <= 1)
        let metadata = try await plugin.openEngine().pool.read { db in
            try Int.fetchOne(db, sql: #"SELECT count(*) FROM "_stratus_sync_metadata""#)
        }
        #expect(metadata == stored.count)
        await plugin.reset()
    }

    static func acknowledged(_ url: URL) -> [String] {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        // The last line may be cut short by the kill.
        return text.split(separator: "\n", omittingEmptySubsequences: true).dropLast(text.hasSuffix("\n") ? 0 : 1)
            .map(String.init)
    }
}

@Suite struct DurabilityChild {
    /// Saves posts one by one, appending each identifier to the acknowledgements file once its
    /// save has returned, until the parent kills the process.
    @Test(.enabled(if: ChildTest.role == "durability"))
    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let database = URL(fileURLWithPath: try #require(environment["STRATUS_DATABASE"]))
        let acknowledgements = try #require(environment["STRATUS_ACKNOWLEDGEMENTS"])
        let descriptor = open(acknowledgements, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        #expect(descriptor >= 0)
        var configuration = DataStoreConfiguration(databaseURL: database)
        configuration.durability = .normal
        let plugin = AWSDataStorePlugin(modelRegistration: AmplifyModels(), configuration: configuration)
        for index in 0..<DurabilityTests.total {
            let id = "p\(index)"
            try await plugin.save(Post(id: id, title: "Post \(id)", rating: index, status: "active"))
            let line = Array("\(id)\n".utf8)
            _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        }
    }
}
