import Foundation
import Logging
import PostgresNIO
import StratusServer
import Synchronization

/// The baseline of `server-stores`' PostgreSQL creates: the statements a create sends, sent
/// with postgres-nio directly, in the same run, to tables of the same shape in a schema of their
/// own. Each create is one transaction of the store's round trips: the item's advisory lock, the
/// read of the item by key, and one statement that inserts the item, its delta journal entry,
/// its `Idempotency-Key` and its event and notifies the event's sequence. Between it and the
/// server's figure lies what the server adds: GraphQL, authorization, the resolver and the store's
/// own work.
struct RawPostgresCreates {
    let location: PostgresLocation
    let items: Int
    /// The creates of the clients at once, all together.
    let concurrentItems: Int

    /// Creates per second from one client and from `clients` at once, and the CPU time per create
    /// of this process and of the PostgreSQL server's processes.
    struct Figures {
        var creates = 0.0
        var concurrentCreates = 0.0
        var clientCPU = 0.0
        var databaseCPU = 0.0
    }

    private static let schema = "stratus_raw_baseline"
    /// The `createdAt` and `updatedAt` values, as the server writes them.
    private static let timestamps = Mutex(ISO8601DateFormatter())

    func measure(clients: Int, databaseCPU: () -> Double) async throws -> Figures {
        let client = PostgresClient(
            configuration: location.configuration(connections: clients * 2),
            backgroundLogger: Logger(label: "raw-postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        let running = Task { await client.run() }
        defer { running.cancel() }
        let logger = Logger(label: "raw-postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        for sql in [
            "DROP SCHEMA IF EXISTS \(Self.schema) CASCADE",
            "CREATE SCHEMA \(Self.schema)",
            """
            CREATE TABLE \(Self.schema)."Item" ("id" text PRIMARY KEY, "name" text, "category" text, "rating" bigint,
              "createdAt" text, "updatedAt" text, "_version" bigint, "_deleted" boolean, "_lastChangedAt" bigint,
              "_ttl" bigint)
            """,
            """
            CREATE TABLE \(Self.schema).journal ("position" bigserial PRIMARY KEY, "model" text NOT NULL,
              "changedAt" bigint NOT NULL, "expiresAt" bigint NOT NULL, "item" text NOT NULL)
            """,
            """
            CREATE TABLE \(Self.schema).keys ("scope" text NOT NULL, "key" text NOT NULL, "digest" text NOT NULL,
              "status" bigint, "body" bytea, "expiresAt" bigint NOT NULL, PRIMARY KEY ("scope", "key"))
            """,
            """
            CREATE TABLE \(Self.schema).events ("sequence" bigserial PRIMARY KEY, "model" text NOT NULL,
              "kind" text NOT NULL, "item" text NOT NULL, "selected" text, "createdAt" bigint NOT NULL,
              "xid" xid8 NOT NULL DEFAULT pg_current_xact_id())
            """,
        ] {
            try await client.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        }
        defer {
            Task { [client] in
                try? await client.query(PostgresQuery(unsafeSQL: "DROP SCHEMA \(Self.schema) CASCADE"), logger: logger)
            }
        }

        var figures = Figures()
        let cpuBefore = ProcessCPUTime.now().seconds
        let databaseBefore = databaseCPU()
        figures.creates = try await rate(items) {
            for index in 0..<items {
                try await create(id: String(format: "item-%08d", index), index: index, client: client, logger: logger)
            }
        }
        figures.clientCPU = (ProcessCPUTime.now().seconds - cpuBefore) / Double(items)
        figures.databaseCPU = (databaseCPU() - databaseBefore) / Double(items)

        let perClient = concurrentItems / clients
        figures.concurrentCreates = try await rate(perClient * clients) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<clients {
                    group.addTask {
                        for index in 0..<perClient {
                            try await create(
                                id: "concurrent-\(worker)-\(index)",
                                index: index,
                                client: client,
                                logger: logger
                            )
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        return figures
    }

    /// One create, as the store writes it.
    private func create(id: String, index: Int, client: PostgresClient, logger: Logger) async throws {
        let date = Date()
        let now = Int(date.timeIntervalSince1970 * 1000)
        // One formatter for the run: making one per create would charge the baseline for it.
        let stamp = Self.timestamps.withLock { $0.string(from: date) }
        let item: JSON = [
            "id": .string(id), "name": .string("Item \(index)"), "category": .string("category-\(index % 10)"),
            "rating": .int(index % 100), "createdAt": .string(stamp), "updatedAt": .string(stamp), "_version": 1,
            "_deleted": false, "_lastChangedAt": .int(now),
        ]
        let text = item.text
        try await client.withTransaction(logger: logger) { connection in
            _ = try await connection.query(
                "SELECT pg_advisory_xact_lock(hashtextextended(\("Item|\(id)"), 0))",
                logger: logger
            ).collect()
            let existing = try await connection.query(
                """
                SELECT "id", "name", "category", "rating", "createdAt", "updatedAt", "_version", "_deleted",
                "_lastChangedAt" FROM stratus_raw_baseline."Item" WHERE "id" = \(id) AND ("_ttl" IS NULL OR "_ttl" > \(now))
                """,
                logger: logger
            ).collect()
            guard existing.isEmpty else { throw BenchmarkFailure(message: "The raw baseline's item \(id) exists.") }
            let rows = try await connection.query(
                """
                WITH "_put" AS (INSERT INTO stratus_raw_baseline."Item" ("id", "name", "category", "rating",
                  "createdAt", "updatedAt", "_version", "_deleted", "_lastChangedAt", "_ttl")
                  VALUES (\(id), \("Item \(index)"), \("category-\(index % 10)"), \(index % 100), \(stamp), \(stamp),
                  \(1), \(false), \(now), \(Int?.none))
                  ON CONFLICT ("id") DO UPDATE SET "name" = EXCLUDED."name"),
                "_journal" AS (INSERT INTO stratus_raw_baseline.journal ("model", "changedAt", "expiresAt", "item")
                  VALUES (\("Item"), \(now), \(now + 86_400_000), \(text))),
                "_key" AS (INSERT INTO stratus_raw_baseline.keys ("scope", "key", "digest", "expiresAt")
                  VALUES (\("apiKey"), \(id), \("digest"), \(now + 86_400_000)) ON CONFLICT ("scope", "key") DO NOTHING),
                "_event" AS (INSERT INTO stratus_raw_baseline.events ("model", "kind", "item", "selected", "createdAt")
                  VALUES (\("Item"), \("create"), \(text), \(String?.none), \(now)) RETURNING "sequence")
                SELECT pg_notify(\("stratus_raw_baseline"), "sequence"::text) FROM "_event"
                """,
                logger: logger
            ).collect()
            guard rows.count == 1 else { throw BenchmarkFailure(message: "The raw baseline's create wrote no event.") }
        }
    }
}
