// The AppSync client's normalized cache against raw GRDB, and its fetches against the API
// plugin, in the same run.
//
// Run with `swift run -c release StratusBench appsync-cache`.
import AWSAPIPlugin
import AWSAppSync
import Amplify
import Foundation
import GRDB
import StratusServer
import StratusTesting
import TodoAPI

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The cache of `AWSAppSyncClient` holding an 18,000-item `ListTodos` (one record per todo,
/// keyed by id, and the list's records), and:
///
/// - the time to read the query back from the cache (`fetch` with
///   `.returnCacheDataDontFetch`, the query's whole data decoded), against raw GRDB reading
///   the same 18,000 rows: the cache's own record rows as stored, and a plain `todo` table of the
///   same items decoded into structs;
/// - fetches per second over loopback (`fetch` with `.fetchIgnoringCacheData`, each answer
///   written to the cache) against `AWSAPIPlugin.query` (what `Amplify.API.query` calls) and a
///   bare `URLSession` POST of the same query.
struct AppSyncCacheBenchmark {
    var records = 18_000
    var runs = 9
    var requests = 1_000

    static let schema = "type Todo @model { id: ID! name: String! description: String }"

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(
            path: "appsync-cache-bench-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ServerConfiguration()
        configuration.conflictDetection = false
        let backend = try await LocalBackend.start(schema: Self.schema, configuration: configuration)
        let appSyncClient = try makeClient(backend, directory: directory)
        appSyncClient.apolloClient?.cacheKeyForObject = { $0["id"] }
        guard let store = appSyncClient.store else { preconditionFailure("The client has no cache.") }

        print("appsync-cache: a \(records)-item ListTodos in the cache, same machine, same run")
        let items = (0..<records).map { index in
            ListTodosQuery.Data.ListTodo.Item(
                id: "todo-\(index)",
                name: "Todo number \(index)",
                description: index.isMultiple(of: 3) ? nil : "Description of todo \(index)"
            )
        }
        let data = ListTodosQuery.Data(listTodos: .init(items: items, nextToken: nil))
        let clock = ContinuousClock()
        let written = try clock.measure {
            try store.withinReadWriteTransaction { transaction in
                try transaction.write(data: data, forQuery: ListTodosQuery())
            }.get()
        }
        report("write the list (one transaction)", written)

        let cacheFile = directory.appending(path: "queries.db")
        let recordsQueue = try DatabaseQueue(path: cacheFile.path)
        let tableQueue = try DatabaseQueue(path: directory.appending(path: "todos.sqlite").path)
        try await tableQueue.write { db in
            try db.create(table: "todo") { table in
                table.primaryKey("id", .text)
                table.column("name", .text).notNull()
                table.column("description", .text)
            }
            for item in items {
                try Todo(id: item.id, name: item.name, description: item.description).insert(db)
            }
        }
        // The three reads take turns, round after round, so that each round's ratios compare
        // reads made under the same load of a shared machine.
        let reads = try await interleavedMedians([
            {
                let result = try await appSyncClient.fetch(
                    query: ListTodosQuery(),
                    cachePolicy: .returnCacheDataDontFetch
                )
                let count = result.data?.listTodos?.items?.count
                precondition(count == records, "the cache read \(count ?? 0) items, not \(records)")
            },
            {
                let rows = try await recordsQueue.read { db in
                    try Row.fetchAll(db, sql: "SELECT key, record FROM records WHERE key LIKE 'todo-%'").map {
                        row -> (String, Data) in (row[0], row[1])
                    }
                }
                precondition(rows.count == records)
            },
            {
                let todos = try await tableQueue.read(Todo.fetchAll)
                precondition(todos.count == records)
            },
        ])
        report("AWSAppSyncClient.fetch from the cache", reads.times[0])
        report("raw GRDB: the cache's record rows", reads.times[1])
        report("raw GRDB: a todo table into structs", reads.times[2])
        print(
            String(
                format: "    ratios (medians of the rounds' ratios): cache/record rows %.2fx, cache/todo table %.2fx",
                reads.ratios[1],
                reads.ratios[2]
            )
        )

        try await fetchThroughput(backend, appSyncClient: appSyncClient)
        await backend.stop()
    }

    /// Fetches per second of one todo through the client, the API plugin and bare `URLSession`.
    private func fetchThroughput(_ backend: LocalBackend, appSyncClient: AWSAppSyncClient) async throws {
        let created = try await appSyncClient.perform(
            mutation: CreateTodoMutation(input: CreateTodoInput(id: "t1", name: "Milk", description: "2 l"))
        )
        precondition(created.errors == nil, "\(created.errors ?? [])")
        print("  \(requests) sequential GetTodo queries on loopback, same server, same run")

        let query = GetTodoQuery(id: "t1")
        let document = GetTodoQuery.operationString
        let variables: [String: JSONValue] = ["id": "t1"]
        var raw = URLRequest(url: backend.endpoint)
        raw.httpMethod = "POST"
        raw.httpBody = try JSONEncoder().encode(
            JSONValue.object(["query": .string(document), "variables": .object(variables)])
        )
        raw.setValue("application/json", forHTTPHeaderField: "content-type")
        raw.setValue(backend.apiKey, forHTTPHeaderField: "x-api-key")
        let session = URLSession(configuration: .ephemeral)
        let bare = try await rate("bare URLSession POST") {
            let (data, _) = try await session.data(for: raw)
            precondition(data.count > 20)
        }

        let api = try backend.makeAPIPlugin()
        let request = GraphQLRequest<JSONValue>(
            document: document,
            variables: variables,
            responseType: JSONValue.self
        )
        let plugin = try await rate("AWSAPIPlugin.query") {
            let value = try await api.query(request: request).get()
            precondition(value.objectValue?["getTodo"] != nil)
        }
        let client = try await rate("AWSAppSyncClient.fetch") {
            let result = try await appSyncClient.fetch(query: query, cachePolicy: .fetchIgnoringCacheData)
            precondition(result.data?.getTodo?.name == "Milk")
        }
        print(
            String(
                format: "    ratios: client/plugin %.2fx the rate, client/bare %.2fx, plugin/bare %.2fx",
                client / plugin,
                client / bare,
                plugin / bare
            )
        )
    }

    private struct Todo: Codable, FetchableRecord, PersistableRecord {
        var id: String
        var name: String
        var description: String?
    }

    private func makeClient(_ backend: LocalBackend, directory: URL) throws -> AWSAppSyncClient {
        let serviceConfig = AWSAppSyncServiceConfig(
            endpoint: backend.endpoint,
            region: "us-east-1",
            authType: .apiKey,
            apiKey: backend.apiKey
        )
        return try AWSAppSyncClient(
            appSyncConfig: AWSAppSyncClientConfiguration(
                appSyncServiceConfig: serviceConfig,
                cacheConfiguration: AWSAppSyncCacheConfiguration(withRootDirectory: directory)
            )
        )
    }

    /// Runs each of `bodies` once to warm up, then `runs` rounds of each in turn; returns each
    /// body's median time and the median over the rounds of its time divided by the first
    /// body's time in the same round.
    private func interleavedMedians(
        _ bodies: [() async throws -> Void]
    ) async throws -> (times: [Duration], ratios: [Double]) {
        for body in bodies { try await body() }
        let clock = ContinuousClock()
        var times = [[Duration]](repeating: [], count: bodies.count)
        for _ in 0..<runs {
            for (index, body) in bodies.enumerated() {
                times[index].append(try await clock.measure(body))
            }
        }
        let medians = times.map { $0.sorted()[runs / 2] }
        let ratios = times.indices.map { index in
            (0..<runs).map { round in times[0][round].inSeconds / times[index][round].inSeconds }.sorted()[
                runs / 2
            ]
        }
        return (medians, ratios)
    }

    /// Runs `body` `requests` times after a warm-up and prints the rate.
    private func rate(_ name: String, _ body: () async throws -> Void) async throws -> Double {
        try await RequestRate(requests: requests, warmUp: 50, nameWidth: 36).measure(name, body)
    }

    private func report(_ name: String, _ elapsed: Duration) {
        print(
            "    \(name.padding(toLength: 40, withPad: " ", startingAt: 0)) "
                + String(format: "%.4f s", elapsed.inSeconds)
        )
    }
}
