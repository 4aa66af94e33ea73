import Foundation
import Logging
import PostgresNIO
import StratusTesting
import Testing

@Suite struct PostgresTestClusterTests {
    @Test func twoDatabasesAreDistinctAndEachTakesConnections() async throws {
        let first = try await PostgresTestCluster.shared.makeDatabase()
        let second = try await PostgresTestCluster.shared.makeDatabase()
        #expect(first != second)
        #expect(first.hasPrefix("postgres://") && first.contains("/stratus_test_"))

        // Each URL reaches its own database: a table made in one is not in the other.
        try await withConnection(to: first) { connection, logger in
            let rows = try await connection.query("SELECT current_database()", logger: logger)
            var names: [String] = []
            for try await (name) in rows.decode(String.self) { names.append(name) }
            #expect(names == [String(first.split(separator: "/").last!)])
            try await connection.query("CREATE TABLE marker (id int)", logger: logger)
        }
        try await withConnection(to: second) { connection, logger in
            let rows = try await connection.query(
                "SELECT count(*)::int FROM information_schema.tables WHERE table_name = 'marker'",
                logger: logger
            )
            var counts: [Int] = []
            for try await (count) in rows.decode(Int.self) { counts.append(count) }
            #expect(counts == [0])
        }
    }

    private func withConnection(
        to url: String,
        _ body: (PostgresConnection, Logger) async throws -> Void
    ) async throws {
        let components = try #require(URLComponents(string: url))
        let logger = Logger(label: "PostgresTestClusterTests") { _ in SwiftLogNoOpLogHandler() }
        let connection = try await PostgresConnection.connect(
            configuration: .init(
                host: try #require(components.host),
                port: try #require(components.port),
                username: try #require(components.user),
                password: nil,
                database: String(components.path.dropFirst()),
                tls: .disable
            ),
            id: 1,
            logger: logger
        )
        do {
            try await body(connection, logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }
}
