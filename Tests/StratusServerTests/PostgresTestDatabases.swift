import Foundation
import Logging
import PostgresNIO
import StratusServer
import StratusTesting
import Synchronization

/// Databases of the test cluster (``PostgresTestCluster``), one per data directory a test names:
/// the same directory given again names the same database.
final class PostgresTestDatabases: Sendable {
    static let shared = PostgresTestDatabases()

    private let databases = Mutex<[String: String]>([:])

    /// The URL of `directory`'s database, created the first time.
    private func url(for directory: URL) async throws -> String {
        let key = directory.standardizedFileURL.path
        if let known = databases.withLock({ $0[key] }) { return known }
        let url = try await PostgresTestCluster.shared.makeDatabase()
        return databases.withLock { known in
            if let first = known[key] { return first }
            known[key] = url
            return url
        }
    }

    /// The database of `directory`, created the first time.
    func database(for directory: URL) async throws -> PostgresLocation {
        try PostgresLocation(try await url(for: directory))
    }

    /// The first column of `sql`'s rows as text, run on the database of `directory`.
    func strings(_ sql: String, in directory: URL) async throws -> [String] {
        let url = try await url(for: directory)
        let client = PostgresClient(configuration: try PostgresTestCluster.clientConfiguration(for: url))
        return try await withThrowingTaskGroup(of: [String]?.self) { group in
            group.addTask {
                await client.run()
                return nil
            }
            group.addTask {
                let rows = try await client.query(PostgresQuery(unsafeSQL: sql)).collect()
                return try rows.map { try $0.decode(String.self) }
            }
            defer { group.cancelAll() }
            while let next = try await group.next() {
                if let strings = next { return strings }
            }
            return []
        }
    }
}
