import Foundation
import GRDB
import Testing

@testable import StratusServer

/// The store's checkpoints run on a connection of their own, every few hundred commits, and
/// move the log's pages into the database file; commits checkpoint only past a far larger log.
@Suite struct WALCheckpointerTests {
    @Test func checkpointsMoveTheLogIntoTheDatabaseOffTheWritePath() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "checkpointer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appending(path: "store.sqlite").path
        var configuration = Configuration()
        configuration.prepareDatabase { db in try WALCheckpointer.prepare(db) }
        let pool = try DatabasePool(path: path, configuration: configuration)
        try await pool.write { db in
            try db.execute(sql: "CREATE TABLE item (number INTEGER PRIMARY KEY, payload BLOB NOT NULL)")
        }
        let checkpointer = try WALCheckpointer(path: path)
        let writer = GroupCommitWriter(pool: pool) { checkpointer.noteCommits() }
        #expect(try await pool.write { try Int.fetchOne($0, sql: "PRAGMA wal_autocheckpoint") } == 10_000)

        let databaseSize = { try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0 }
        let before = try databaseSize()
        let commits = 2 * WALCheckpointer.commitsPerCheckpoint
        for number in 0..<commits {
            try await writer.write { db in
                try db.execute(
                    sql: "INSERT INTO item (number, payload) VALUES (?, ?)",
                    arguments: [number, Data(repeating: UInt8(number % 256), count: 4_096)]
                )
            }
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while checkpointer.status.checkpoints < 2, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(checkpointer.status.checkpoints == 2)
        #expect(checkpointer.status.lastError == nil)
        // Without the checkpointer the rows would still be in the log, 1,000-odd pages below
        // the commits' own threshold: the database file would not have grown.
        #expect(try databaseSize() - before >= commits * 4_096 / 2)
        try checkpointer.close()
        checkpointer.noteCommits(WALCheckpointer.commitsPerCheckpoint)
        #expect(checkpointer.status.checkpoints == 2)
        try pool.close()
    }
}
