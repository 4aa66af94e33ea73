// The server on its PostgreSQL store next to the server on its SQLite store, same requests, same
// run; run with `STRATUS_BENCH_DATABASE=postgres://… swift run -c release StratusBench server-stores`.
import Foundation
import StratusCodegen
import StratusServer

/// `StratusServer.execute` on the embedded SQLite store and on a PostgreSQL database, in the same
/// run: creates (each its own transaction, with its journal entry and its event), gets by key,
/// filtered lists of 100, and a base sync in pages of 1,000 of the items created. Prints each
/// store's rate, their ratio, and the CPU time per create of this process and of the PostgreSQL
/// server's processes (read from `/proc`).
///
/// `STRATUS_BENCH_DATABASE` names a database the benchmark may fill (an empty one: it creates
/// items with fixed ids); `STRATUS_BENCH_STORE_ITEMS` sets how many (10,000 by default).
struct StoreBenchmark {
    var items = Int(ProcessInfo.processInfo.environment["STRATUS_BENCH_STORE_ITEMS"] ?? "") ?? 10_000
    var rounds = 5
    var gets = 2_000

    private static let schema = """
        type Item @model {
          id: ID!
          name: String!
          category: String! @index(name: "byCategory")
          rating: Int!
        }
        """

    private static let selection = "id name category rating createdAt updatedAt _version _deleted _lastChangedAt"

    /// One store's figures.
    private struct Figures {
        var creates = 0.0
        /// Creates from 8 clients at once.
        var concurrentCreates = 0.0
        var gets = 0.0
        var lists = 0.0
        var syncs = 0.0
        /// CPU seconds per create: this process, and the database server's processes.
        var serverCPU = 0.0
        var databaseCPU = 0.0
    }

    func run() async throws {
        guard let url = ProcessInfo.processInfo.environment["STRATUS_BENCH_DATABASE"] else {
            throw BenchmarkFailure(
                message: "server-stores needs STRATUS_BENCH_DATABASE, the URL of an empty PostgreSQL database "
                    + "(scripts/postgres-throwaway start DIR prints a cluster's URL)."
            )
        }
        let location = try PostgresLocation(url)
        let directory = FileManager.default.temporaryDirectory.appending(
            path: "stratus-store-bench-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        let schema = try SchemaParser().parse(Self.schema, fileName: "bench.graphql")
        print("server-stores: StratusServer.execute on SQLite and on PostgreSQL (\(location)), same run")
        let sqlite = try StratusServer(schema: schema, dataDirectory: directory)
        let sqliteFigures = try await measure(sqlite)
        try sqlite.close()
        let postgres = try await StratusServer(schema: schema, database: location)
        let postgresFigures = try await measure(postgres)
        try postgres.close()
        let raw = try await RawPostgresCreates(location: location, items: items, concurrentItems: items / rounds)
            .measure(clients: 8, databaseCPU: Self.postgresCPUSeconds)

        func row(_ label: String, _ unit: String, _ sqlite: Double, _ postgres: Double) {
            let cells = [
                label.padding(toLength: 36, withPad: " ", startingAt: 0),
                unit.padding(toLength: 12, withPad: " ", startingAt: 0),
                pad(String(Int(sqlite.rounded()))), pad(String(Int(postgres.rounded()))),
                pad(String(format: "%.2fx", sqlite / postgres)),
            ]
            print("  " + cells.joined(separator: " "))
        }
        let header = [
            "operation".padding(toLength: 36, withPad: " ", startingAt: 0),
            "unit".padding(toLength: 12, withPad: " ", startingAt: 0),
            pad("SQLite"), pad("PostgreSQL"), pad("SQLite/PG"),
        ]
        print("  " + header.joined(separator: " "))
        row("createItem, \(items) items", "mutations/s", sqliteFigures.creates, postgresFigures.creates)
        row(
            "createItem, 8 clients at once",
            "mutations/s",
            sqliteFigures.concurrentCreates,
            postgresFigures.concurrentCreates
        )
        row("getItem of \(items)", "queries/s", sqliteFigures.gets, postgresFigures.gets)
        row("listItems(filter, limit: 100)", "queries/s", sqliteFigures.lists, postgresFigures.lists)
        row("syncItems, \(items) in pages of 1,000", "records/s", sqliteFigures.syncs, postgresFigures.syncs)
        print(
            "  CPU per create: SQLite store "
                + String(format: "%.0f µs (server process)", sqliteFigures.serverCPU * 1e6)
                + "; PostgreSQL store "
                + String(
                    format: "%.0f µs server process + %.0f µs PostgreSQL processes",
                    postgresFigures.serverCPU * 1e6,
                    postgresFigures.databaseCPU * 1e6
                )
        )
        print(
            "  raw postgres-nio, the same statements per create (lock, read, one write statement): "
                + String(format: "%.0f creates/s, 8 clients %.0f/s; ", raw.creates, raw.concurrentCreates)
                + String(
                    format: "%.0f µs client process + %.0f µs PostgreSQL",
                    raw.clientCPU * 1e6,
                    raw.databaseCPU * 1e6
                )
        )
        print(
            "  PostgreSQL store against raw postgres-nio: "
                + String(
                    format:
                        "creates %.2fx slower, 8 clients %.2fx slower; server CPU per create %.2fx (target: within 1.5x)",
                    raw.creates / postgresFigures.creates,
                    raw.concurrentCreates / postgresFigures.concurrentCreates,
                    postgresFigures.serverCPU / raw.clientCPU
                )
        )
        print("  (medians: creates of 5 batches, gets of 5 rounds of 2,000, lists of 5 full pagings, syncs of 3)")
    }

    private func pad(_ text: String) -> String {
        String(repeating: " ", count: max(0, 11 - text.count)) + text
    }

    private func measure(_ server: StratusServer) async throws -> Figures {
        var figures = Figures()
        let batch = items / rounds
        var creates: [Double] = []
        let create = "mutation Create($input: CreateItemInput!) { createItem(input: $input) { \(Self.selection) } }"
        let cpuBefore = ProcessCPUTime.now().seconds
        let databaseBefore = Self.postgresCPUSeconds()
        for round in 0..<rounds {
            creates.append(
                try await rate(batch) {
                    for index in (round * batch)..<((round + 1) * batch) {
                        let input: JSON = [
                            "id": .string(String(format: "item-%08d", index)), "name": .string("Item \(index)"),
                            "category": .string("category-\(index % 10)"), "rating": .int(index % 100),
                        ]
                        try await expectData(
                            server.execute(query: create, variables: ["input": input], identity: .apiKey)
                        )
                    }
                }
            )
        }
        let created = Double(batch * rounds)
        figures.serverCPU = (ProcessCPUTime.now().seconds - cpuBefore) / created
        figures.databaseCPU = (Self.postgresCPUSeconds() - databaseBefore) / created
        figures.creates = median(creates)

        let get = "query Get($id: ID!) { getItem(id: $id) { \(Self.selection) } }"
        var gets: [Double] = []
        for _ in 0..<rounds {
            let ids = (0..<self.gets).map { _ in String(format: "item-%08d", Int.random(in: 0..<(batch * rounds))) }
            gets.append(
                try await rate(self.gets) {
                    for id in ids {
                        try await expectData(
                            server.execute(query: get, variables: ["id": .string(id)], identity: .apiKey)
                        )
                    }
                }
            )
        }
        figures.gets = median(gets)

        let list = """
            query List($nextToken: String) {
              listItems(filter: {rating: {lt: 50}}, limit: 100, nextToken: $nextToken) {
                items { \(Self.selection) } nextToken
              }
            }
            """
        var lists: [Double] = []
        for _ in 0..<rounds {
            lists.append(
                try await rate(batch * rounds / 100) {
                    var token: JSON = .null
                    repeat {
                        let body = try await expectData(
                            server.execute(query: list, variables: ["nextToken": token], identity: .apiKey)
                        )
                        token = body["data"]?["listItems"]?["nextToken"] ?? .null
                    } while !token.isNull
                }
            )
        }
        figures.lists = median(lists)

        let sync = """
            query Sync($nextToken: String) {
              syncItems(limit: 1000, nextToken: $nextToken) { items { \(Self.selection) } nextToken startedAt }
            }
            """
        var syncs: [Double] = []
        for _ in 0..<3 {
            syncs.append(
                try await rate(batch * rounds) {
                    var token: JSON = .null
                    var count = 0
                    repeat {
                        let body = try await expectData(
                            server.execute(query: sync, variables: ["nextToken": token], identity: .apiKey)
                        )
                        count += body["data"]?["syncItems"]?["items"]?.arrayValue?.count ?? 0
                        token = body["data"]?["syncItems"]?["nextToken"] ?? .null
                    } while !token.isNull
                    guard count == batch * rounds else {
                        throw BenchmarkFailure(message: "The sync read \(count) items of \(batch * rounds).")
                    }
                }
            )
        }
        figures.syncs = median(syncs)

        // 8 clients creating at once: what group commit (SQLite) and concurrent transactions
        // under the event lock (PostgreSQL) give.
        let clients = 8
        let perClient = batch / clients
        figures.concurrentCreates = try await rate(perClient * clients) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for client in 0..<clients {
                    group.addTask {
                        for index in 0..<perClient {
                            let input: JSON = [
                                "id": .string("concurrent-\(client)-\(index)"), "name": .string("Item"),
                                "category": .string("category-\(index % 10)"), "rating": .int(100 + index % 100),
                            ]
                            try await expectData(
                                server.execute(query: create, variables: ["input": input], identity: .apiKey)
                            )
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        return figures
    }

    /// The CPU time of every `postgres` process on the machine, from `/proc`, with the time of
    /// the children they reaped: a backend whose connection closed between two readings has
    /// its time counted in its postmaster's, rather than dropping out of the sum (which made the
    /// raw baseline's PostgreSQL time negative).
    private static func postgresCPUSeconds() -> Double {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var total = 0.0
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int(entry) != nil {
            guard let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")"),
                stat[stat.index(after: open)..<close] == "postgres"
            else { continue }
            // Fields after the command: state is the first; utime, stime, cutime and cstime are
            // the 12th to the 15th.
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            guard fields.count > 14 else { continue }
            let times = fields[11...14].compactMap { Double($0) }
            guard times.count == 4 else { continue }
            total += times.reduce(0, +) / ticks
        }
        return total
    }
}
