import Foundation
import Logging
import PostgresNIO
import StratusServer
import Synchronization

/// Databases of the PostgreSQL cluster at `STRATUS_TEST_POSTGRES_URL`, one per data directory a
/// test names: the same directory given again names the same database.
final class PostgresTestDatabases: Sendable {
    static let shared = PostgresTestDatabases()

    private let databases = Mutex<[String: PostgresLocation]>([:])

    /// The database of `directory`, created the first time.
    func database(for directory: URL) async throws -> PostgresLocation {
        let key = directory.standardizedFileURL.path
        if let known = databases.withLock({ $0[key] }) { return known }
        guard let url = ProcessInfo.processInfo.environment["STRATUS_TEST_POSTGRES_URL"] else {
            throw PostgresTestError(
                "STRATUS_TEST_STORE=postgres needs STRATUS_TEST_POSTGRES_URL, the URL of a PostgreSQL "
                    + "cluster whose user may create databases (scripts/postgres-throwaway start DIR prints one)"
            )
        }
        var location = try PostgresLocation(url)
        let name = "stratus_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await Self.create(name, in: location)
        location.database = name
        databases.withLock { $0[key] = location }
        return location
    }

    private static func create(_ name: String, in location: PostgresLocation) async throws {
        let configuration = PostgresConnection.Configuration(
            host: location.host,
            port: location.port,
            username: location.username,
            password: location.password,
            database: location.database,
            tls: .disable
        )
        let connection = try await PostgresConnection.connect(
            configuration: configuration,
            id: 1,
            logger: Logger(label: "stratus.tests.postgres")
        )
        do {
            try await connection.query(
                PostgresQuery(unsafeSQL: "CREATE DATABASE \"\(name)\""),
                logger: Logger(label: "stratus.tests.postgres")
            )
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }
}

struct PostgresTestError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

extension PostgresTestDatabases {
    /// The first column of `sql`'s rows as text, run on the database of `directory`.
    func strings(_ sql: String, in directory: URL) async throws -> [String] {
        let location = try await database(for: directory)
        let connection = try await PostgresConnection.connect(
            configuration: PostgresConnection.Configuration(
                host: location.host,
                port: location.port,
                username: location.username,
                password: location.password,
                database: location.database,
                tls: .disable
            ),
            id: 1,
            logger: Logger(label: "stratus.tests.postgres")
        )
        do {
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: sql),
                logger: Logger(label: "stratus.tests.postgres")
            )
            .collect()
            try await connection.close()
            return try rows.map { try $0.decode(String.self) }
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
