// The local backend's GraphQL path against raw GRDB doing the same reads and writes in the same
// run; run with `swift run -c release StratusBench server`.
import Foundation
import GRDB
import StratusCodegen
import StratusServer

/// `StratusServer.execute` (parse, validate, execute, format) next to raw GRDB on a table of the
/// same shape, with the same indexes, in the same run:
///
/// - creates through `createItem`, each its own transaction with its delta-journal row (raw
///   GRDB reads the key, inserts the row, and inserts the row encoded as JSON into its journal);
/// - `getItem` by key, and `listItems(filter:, limit: 100)` paging through every item (raw GRDB:
///   the same keyset page with the filter evaluated per row);
/// - a base sync of 100,000 items in pages of 1,000 (raw GRDB: keyset pages of 1,000).
///
/// Raw GRDB decodes rows into a struct; the server answers a GraphQL response body.
///
/// `STRATUS_BENCH_SERVER_ITEMS` and `STRATUS_BENCH_SERVER_SYNC_ITEMS` set the sizes (smaller for a
/// run under a profiler such as callgrind).
struct ServerBenchmark {
    var items = Int(ProcessInfo.processInfo.environment["STRATUS_BENCH_SERVER_ITEMS"] ?? "") ?? 10_000
    var syncItems = Int(ProcessInfo.processInfo.environment["STRATUS_BENCH_SERVER_SYNC_ITEMS"] ?? "") ?? 100_000
    var rounds = 5
    var gets = 2_000
    /// Only the sync section when `true` (`StratusBench server-sync`), for profiling it alone.
    var syncOnly = false

    private static let schema = """
        type Item @model {
          id: ID!
          name: String!
          category: String! @index(name: "byCategory")
          rating: Int!
        }
        """

    private static let selection = "id name category rating createdAt updatedAt _version _deleted _lastChangedAt"

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stratus-server-bench-\(UUID().uuidString)",
            isDirectory: true
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        let schema = try SchemaParser().parse(Self.schema, fileName: "bench.graphql")
        let server = try StratusServer(schema: schema, dataDirectory: directory.appendingPathComponent("server"))
        defer { try? server.close() }
        let raw = try RawServerStore(directory.appendingPathComponent("raw.sqlite"))
        print("server: StratusServer.execute against raw GRDB, same data, same run")
        var table = ResultTable()

        if !syncOnly {
            try await crud(server: server, raw: raw, table: &table)
        }
        try await sync(server: server, raw: raw, directory: directory, table: &table)
        table.print()
    }

    /// Creates, gets and lists on `items` records.
    private func crud(server: StratusServer, raw: RawServerStore, table: inout ResultTable) async throws {
        // Creates, in batches so the rate has a median.
        let batch = items / rounds
        var serverCreates: [Double] = []
        var rawCreates: [Double] = []
        let create = "mutation Create($input: CreateItemInput!) { createItem(input: $input) { \(Self.selection) } }"
        for round in 0..<rounds {
            let range = (round * batch)..<((round + 1) * batch)
            rawCreates.append(
                try await rate(range.count) {
                    for index in range { try await raw.create(RawServerItem.make(index)) }
                }
            )
            serverCreates.append(
                try await rate(range.count) {
                    for index in range {
                        let item = RawServerItem.make(index)
                        let input: JSON = [
                            "id": .string(item.id), "name": .string(item.name), "category": .string(item.category),
                            "rating": .int(item.rating),
                        ]
                        try await expectData(
                            server.execute(query: create, variables: ["input": input], identity: .apiKey)
                        )
                    }
                }
            )
        }
        table.add("createItem, \(items) items", "mutations/s", raw: median(rawCreates), server: median(serverCreates))

        // Gets by key.
        let get = "query Get($id: ID!) { getItem(id: $id) { \(Self.selection) } }"
        var generator = SystemRandomNumberGenerator()
        var serverGets: [Double] = []
        var rawGets: [Double] = []
        for _ in 0..<rounds {
            let ids = (0..<gets).map { _ in RawServerItem.id(Int.random(in: 0..<items, using: &generator)) }
            rawGets.append(
                try await rate(gets) {
                    for id in ids {
                        let item = try await raw.item(id: id)
                        precondition(item != nil)
                    }
                }
            )
            serverGets.append(
                try await rate(gets) {
                    for id in ids {
                        try await expectData(
                            server.execute(query: get, variables: ["id": .string(id)], identity: .apiKey)
                        )
                    }
                }
            )
        }
        table.add("getItem of \(items)", "queries/s", raw: median(rawGets), server: median(serverGets))

        // Lists: every page of 100 with a filter half the items match.
        let list = """
            query List($nextToken: String) {
              listItems(filter: {rating: {lt: 50}}, limit: 100, nextToken: $nextToken) {
                items { \(Self.selection) } nextToken
              }
            }
            """
        var serverLists: [Double] = []
        var rawLists: [Double] = []
        let pages = items / 100
        for _ in 0..<rounds {
            rawLists.append(
                try await rate(pages) {
                    var after: String?
                    var matched = 0
                    repeat {
                        let page = try await raw.page(after: after, limit: 100, ratingBelow: 50)
                        matched += page.items.count
                        after = page.lastKey
                    } while after != nil
                    precondition(matched == items / 2)
                }
            )
            serverLists.append(
                try await rate(pages) {
                    var token: JSON = .null
                    var matched = 0
                    repeat {
                        let body = try await expectData(
                            server.execute(query: list, variables: ["nextToken": token], identity: .apiKey)
                        )
                        matched += body["data"]?["listItems"]?["items"]?.arrayValue?.count ?? 0
                        token = body["data"]?["listItems"]?["nextToken"] ?? .null
                    } while !token.isNull
                    precondition(matched == items / 2)
                }
            )
        }
        table.add("listItems(filter, limit: 100)", "queries/s", raw: median(rawLists), server: median(serverLists))

    }

    /// A base scan of every item in pages of 1,000.
    private func sync(
        server: StratusServer,
        raw: RawServerStore,
        directory: URL,
        table: inout ResultTable
    ) async throws {
        let first = syncOnly ? 0 : items
        guard syncItems >= first else {
            throw BenchmarkFailure(
                message:
                    "STRATUS_BENCH_SERVER_SYNC_ITEMS (\(syncItems)) must be at least STRATUS_BENCH_SERVER_ITEMS "
                    + "(\(items)): the sync scans the created items and adds the rest."
            )
        }
        try await raw.insertDirectly(first..<syncItems, into: raw.pool)
        let serverPool = try DatabasePool(
            path: directory.appendingPathComponent("server").appendingPathComponent("stratus.sqlite").path
        )
        try await raw.insertDirectly(first..<syncItems, into: serverPool)
        try serverPool.close()
        let sync = """
            query Sync($nextToken: String) {
              syncItems(limit: 1000, nextToken: $nextToken) { items { \(Self.selection) } nextToken startedAt }
            }
            """
        var serverSyncs: [Double] = []
        var rawSyncs: [Double] = []
        for _ in 0..<3 {
            rawSyncs.append(
                try await rate(syncItems) {
                    var after: String?
                    var count = 0
                    repeat {
                        let page = try await raw.page(after: after, limit: 1000, ratingBelow: nil)
                        count += page.items.count
                        after = page.lastKey
                    } while after != nil
                    precondition(count == syncItems)
                }
            )
            serverSyncs.append(
                try await rate(syncItems) {
                    var token: JSON = .null
                    var count = 0
                    repeat {
                        let body = try await expectData(
                            server.execute(query: sync, variables: ["nextToken": token], identity: .apiKey)
                        )
                        count += body["data"]?["syncItems"]?["items"]?.arrayValue?.count ?? 0
                        token = body["data"]?["syncItems"]?["nextToken"] ?? .null
                    } while !token.isNull
                    precondition(count == syncItems)
                }
            )
        }
        table.add(
            "syncItems, \(syncItems) in pages of 1,000",
            "records/s",
            raw: median(rawSyncs),
            server: median(serverSyncs)
        )
    }
}

/// A benchmark whose work did not do what it should.
struct BenchmarkFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// `count` divided by the seconds `body` took.
func rate(_ count: Int, _ body: () async throws -> Void) async throws -> Double {
    let start = ContinuousClock.now
    try await body()
    let elapsed = ContinuousClock.now - start
    return Double(count) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
}

/// The median of `values` (the upper one of an even count).
func median(_ values: [Double]) -> Double {
    values.sorted()[values.count / 2]
}

/// The body of a response without errors.
///
/// - Throws: ``BenchmarkFailure`` with the response when it has errors.
@discardableResult
func expectData(_ response: ServerResponse) throws -> JSON {
    guard response.body["errors"] == nil else {
        throw BenchmarkFailure(message: "The server answered errors: \(response.text)")
    }
    return response.body
}

/// The figures, printed as one table.
private struct ResultTable {
    private var rows: [(label: String, unit: String, raw: Double, server: Double)] = []

    mutating func add(_ label: String, _ unit: String, raw: Double, server: Double) {
        rows.append((label, unit, raw, server))
    }

    func print() {
        let header = [
            "operation".padding(toLength: 38, withPad: " ", startingAt: 0),
            "unit".padding(toLength: 12, withPad: " ", startingAt: 0),
            pad("raw GRDB"), pad("server"), pad("raw/server"),
        ]
        Swift.print("  " + header.joined(separator: " "))
        for row in rows {
            let cells = [
                row.label.padding(toLength: 38, withPad: " ", startingAt: 0),
                row.unit.padding(toLength: 12, withPad: " ", startingAt: 0),
                pad(String(Int(row.raw.rounded()))), pad(String(Int(row.server.rounded()))),
                pad(String(format: "%.2fx", row.raw / row.server)),
            ]
            Swift.print("  " + cells.joined(separator: " "))
        }
        Swift.print("  (medians: creates of 5 batches, gets of 5 rounds of 2,000, lists of 5 full pagings, syncs of 3)")
    }

    private func pad(_ text: String) -> String {
        String(repeating: " ", count: max(0, 10 - text.count)) + text
    }
}

// MARK: - Raw GRDB

/// A row of the raw table, the server's columns for `Item`.
private struct RawServerItem: Codable, FetchableRecord, Sendable {
    var id: String
    var name: String
    var category: String
    var rating: Int
    var createdAt: String
    var updatedAt: String
    var _version: Int
    var _deleted: Bool?
    var _lastChangedAt: Int

    static let columns =
        "\"id\", \"name\", \"category\", \"rating\", \"createdAt\", \"updatedAt\", "
        + "\"_version\", \"_deleted\", \"_lastChangedAt\""

    init(row: Row) {
        id = row[0]
        name = row[1]
        category = row[2]
        rating = row[3]
        createdAt = row[4]
        updatedAt = row[5]
        _version = row[6]
        _deleted = row[7]
        _lastChangedAt = row[8]
    }

    init(id: String, name: String, category: String, rating: Int, createdAt: String, lastChangedAt: Int) {
        self.id = id
        self.name = name
        self.category = category
        self.rating = rating
        self.createdAt = createdAt
        updatedAt = createdAt
        _version = 1
        _lastChangedAt = lastChangedAt
    }

    static func id(_ index: Int) -> String {
        let digits = String(index)
        return "item-" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    static func make(_ index: Int) -> RawServerItem {
        RawServerItem(
            id: id(index),
            name: "Item \(index)",
            category: "c\(index % 100)",
            rating: index % 100,
            createdAt: "2024-01-01T00:00:00.000Z",
            lastChangedAt: 1_704_067_200_000
        )
    }
}

/// Raw GRDB on the server's table layout: the same columns, primary key and indexes, and a
/// delta journal of JSON rows.
private final class RawServerStore: Sendable {
    let pool: DatabasePool
    private let encoder = JSONEncoder()

    init(_ url: URL) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        pool = try DatabasePool(path: url.path, configuration: configuration)
        try pool.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE "Item" ("id" TEXT NOT NULL, "name" TEXT, "category" TEXT, "rating" INTEGER,
                      "createdAt" TEXT, "updatedAt" TEXT, "_version" INTEGER, "_deleted" INTEGER,
                      "_lastChangedAt" INTEGER, "_ttl" INTEGER, PRIMARY KEY ("id"));
                    CREATE INDEX "Item_byCategory" ON "Item" ("category");
                    CREATE INDEX "Item_expiry" ON "Item" ("_ttl") WHERE "_ttl" IS NOT NULL;
                    CREATE TABLE "journal" ("position" INTEGER PRIMARY KEY AUTOINCREMENT, "model" TEXT NOT NULL,
                      "changedAt" INTEGER NOT NULL, "expiresAt" INTEGER NOT NULL, "item" TEXT NOT NULL);
                    CREATE INDEX "journal_model" ON "journal" ("model", "position");
                    CREATE INDEX "journal_expiry" ON "journal" ("expiresAt");
                    """
            )
        }
    }

    /// Reads the key, inserts the row and its journal entry, in one transaction.
    func create(_ item: RawServerItem) async throws {
        let json = String(decoding: try encoder.encode(item), as: UTF8.self)
        try await pool.write { db in
            let exists = try Bool.fetchOne(db, sql: "SELECT 1 FROM \"Item\" WHERE \"id\" = ?", arguments: [item.id])
            precondition(exists == nil)
            try db.execute(
                sql: "INSERT INTO \"Item\" (\(RawServerItem.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                arguments: [
                    item.id, item.name, item.category, item.rating, item.createdAt, item.updatedAt, item._version,
                    item._deleted, item._lastChangedAt,
                ]
            )
            try db.execute(
                sql: "INSERT INTO \"journal\" (\"model\", \"changedAt\", \"expiresAt\", \"item\") VALUES (?, ?, ?, ?)",
                arguments: ["Item", item._lastChangedAt, item._lastChangedAt + 1_800_000, json]
            )
        }
    }

    /// Inserts items straight into the `Item` table of `pool`, in one transaction.
    func insertDirectly(_ range: Range<Int>, into pool: DatabasePool) async throws {
        try await pool.write { db in
            let statement = try db.makeStatement(
                sql: "INSERT INTO \"Item\" (\(RawServerItem.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            )
            for index in range {
                let item = RawServerItem.make(index)
                try statement.execute(arguments: [
                    item.id, item.name, item.category, item.rating, item.createdAt, item.updatedAt, item._version,
                    item._deleted, item._lastChangedAt,
                ])
            }
        }
    }

    func item(id: String) async throws -> RawServerItem? {
        try await pool.read { db in
            try RawServerItem.fetchOne(
                db,
                sql:
                    "SELECT \(RawServerItem.columns) FROM \"Item\" "
                    + "WHERE \"id\" = ? AND (\"_ttl\" IS NULL OR \"_ttl\" > ?)",
                arguments: [id, 1_704_067_200_000]
            )
        }
    }

    /// A keyset page in key order; with `ratingBelow`, only the rows of the page that match.
    func page(after: String?, limit: Int, ratingBelow: Int?) async throws -> (items: [RawServerItem], lastKey: String?)
    {
        try await pool.read { db in
            let match = ratingBelow.map { "COALESCE(\"rating\" < \($0), 0)" } ?? "1"
            var sql = "SELECT \(RawServerItem.columns), \(match) FROM \"Item\" WHERE (\"_ttl\" IS NULL OR \"_ttl\" > ?)"
            var arguments: StatementArguments = [1_704_067_200_000]
            if let after {
                sql += " AND \"id\" > ?"
                arguments += [after]
            }
            sql += " ORDER BY \"id\" LIMIT ?"
            arguments += [limit + 1]
            let rows = try Row.fetchAll(db, sql: sql, arguments: arguments)
            var items: [RawServerItem] = []
            for row in rows.prefix(limit) where row[9] as Int == 1 {
                items.append(RawServerItem(row: row))
            }
            let lastKey: String? = rows.count > limit ? rows[limit - 1][0] : nil
            return (items, lastKey)
        }
    }
}
