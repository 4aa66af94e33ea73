import Foundation
import GRDB
import Synchronization
import Testing

@testable import StratusServer

/// Concurrent writes share commits; each still gets its own result or error, sees the writes
/// before it, and a failed one leaves no trace.
@Suite struct GroupCommitWriterTests {
    /// Counts the commits of a database.
    final class CommitCounter: TransactionObserver, @unchecked Sendable {
        let commits = Mutex(0)
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: Database) { commits.withLock { $0 += 1 } }
        func databaseDidRollback(_ db: Database) {}
    }

    struct Refused: Error, Equatable {
        let number: Int
    }

    @Test func concurrentWritesShareCommitsAndKeepTheirOwnOutcome() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "group-commit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pool = try DatabasePool(path: directory.appending(path: "store.sqlite").path)
        try await pool.write { db in
            try db.execute(sql: "CREATE TABLE item (number INTEGER PRIMARY KEY, before INTEGER NOT NULL)")
        }
        let counter = CommitCounter()
        pool.add(transactionObserver: counter)
        let writer = GroupCommitWriter(pool: pool)

        let writes = 200
        let outcomes = try await withThrowingTaskGroup(of: (Int, Result<Int, Refused>).self) { group in
            for number in 0..<writes {
                group.addTask {
                    do {
                        let before = try await writer.write { db -> Int in
                            // Each write sees the ones committed or grouped before it.
                            let before = try Int.fetchOne(db, sql: "SELECT count(*) FROM item")!
                            try db.execute(
                                sql: "INSERT INTO item (number, before) VALUES (?, ?)",
                                arguments: [number, before]
                            )
                            if number % 10 == 3 { throw Refused(number: number) }
                            return before
                        }
                        return (number, .success(before))
                    } catch let refused as Refused {
                        return (number, .failure(refused))
                    }
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        let stored = try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT number, before FROM item ORDER BY before")
                .map { (number: $0[0] as Int, before: $0[1] as Int) }
        }
        // The refused writes left nothing; the others are all there, each once.
        let refused = (0..<writes).filter { $0 % 10 == 3 }
        #expect(Set(stored.map(\.number)) == Set(0..<writes).subtracting(refused))
        for number in refused { #expect(outcomes[number] == .failure(Refused(number: number))) }
        // Serial order: each kept write saw exactly the kept writes before it.
        #expect(stored.map(\.before) == Array(0..<stored.count))
        for row in stored { #expect(outcomes[row.number] == .success(row.before)) }
        // Concurrent writes were grouped: fewer commits than writes.
        let commits = counter.commits.withLock { $0 }
        #expect(commits < writes, "\(commits) commits for \(writes) writes")
    }
}
