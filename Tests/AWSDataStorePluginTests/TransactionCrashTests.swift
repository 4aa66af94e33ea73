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

/// A process running a transaction is killed with SIGKILL in the middle of its writes, or
/// right after its commit: reopening finds all of the transaction or none of it, in the records,
/// their sync metadata and the outbox.
@Suite struct TransactionCrashTests {
    /// The records the child's transaction saves.
    static let count = 2_000

    /// Where the child is killed: `between` its writes (after half of them, the transaction
    /// open), or once it has `committed`.
    @Test(.enabled(if: ChildTest.isSupported && ChildTest.role == nil), arguments: ["between", "committed"])
    func killedTransactionIsAllOrNothing(moment: String) async throws {
        let directory = try TemporaryDirectory()
        let database = directory.file("datastore.sqlite")
        let marker = directory.file("reached")
        let process = try await ChildTest.start(
            filter: "TransactionCrashChild",
            role: "transaction-crash",
            environment: [
                "STRATUS_DATABASE": database.path, "STRATUS_MARKER": marker.path, "STRATUS_MOMENT": moment,
            ],
            directory: directory.url,
            output: directory.file("child.log")
        )
        try await waitUntil("the child to reach '\(moment)'", timeout: .seconds(120)) {
            FileManager.default.fileExists(atPath: marker.path) || !process.isRunning
        }
        kill(process.processIdentifier, SIGKILL)
        let status = try await process.wait()
        let log = (try? String(contentsOf: directory.file("child.log"), encoding: .utf8)) ?? ""
        #expect(status == .signaled(SIGKILL), "\(log)")

        let plugin = TestStore.makePlugin(AmplifyModels(), at: database, logs: LogRecorder())
        let stored = try await plugin.query(Post.self).map(\.id).sorted()
        let events = try await plugin.pendingMutations()
        let metadata = try await plugin.openEngine().pool.read { db in
            try Int.fetchOne(db, sql: #"SELECT count(*) FROM "_stratus_sync_metadata""#)
        }
        let transactionEvents = try await plugin.openEngine().pool.read { db in
            try Int.fetchOne(db, sql: #"SELECT count(*) FROM "_stratus_outbox" WHERE "transactionId" IS NOT NULL"#)
        }
        // The save before the transaction is there either way.
        let expected = moment == "committed" ? ["before"] + (0..<Self.count).map { "t\($0)" } : ["before"]
        #expect(stored == expected.sorted())
        #expect(events.map(\.modelId) == expected)
        #expect(events.allSatisfy { $0.mutationType == "create" })
        #expect(metadata == expected.count)
        #expect(transactionEvents == expected.count - 1)
        await plugin.reset()
    }
}

@Suite struct TransactionCrashChild {
    /// Saves one post, then a transaction of ``TransactionCrashTests/count`` posts; creates the
    /// marker file at the moment `STRATUS_MOMENT` names and waits there to be killed.
    @Test(.enabled(if: ChildTest.role == "transaction-crash"))
    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let database = URL(fileURLWithPath: try #require(environment["STRATUS_DATABASE"]))
        let marker = try #require(environment["STRATUS_MARKER"])
        let moment = try #require(environment["STRATUS_MOMENT"])
        var configuration = DataStoreConfiguration(databaseURL: database)
        configuration.durability = .full
        let plugin = AWSDataStorePlugin(modelRegistration: AmplifyModels(), configuration: configuration)
        try await plugin.save(Post(id: "before", title: "Before", rating: 0, status: "active"))
        try await plugin.transaction { tx in
            for index in 0..<TransactionCrashTests.count {
                try tx.save(Post(id: "t\(index)", title: "Post \(index)", rating: index, status: "active"))
                if moment == "between", index == TransactionCrashTests.count / 2 {
                    Self.reached(marker)
                }
            }
        }
        if moment == "committed" { Self.reached(marker) }
        Issue.record("The parent did not kill the child at '\(moment)'.")
    }

    /// Creates the marker file, then sleeps until the parent's SIGKILL ends the process.
    static func reached(_ marker: String) -> Never {
        _ = FileManager.default.createFile(atPath: marker, contents: Data())
        while true { sleep(60) }
    }
}
