// DataStore's sync against the local backend, each figure next to a baseline in the same run.
//
// Run with `swift run -c release StratusBench sync` (`STRATUS_BENCH_SYNC_RECORDS=10000,100000`
// sets the initial sync sizes).
#if STRATUS_BENCH_DATASTORE
    import AWSAPIPlugin
    import AWSDataStorePlugin
    import AWSPluginsCore
    import Amplify
    import Foundation
    import GRDB
    import StratusTesting
    import Synchronization

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// - Initial sync of N records from the local backend, against a baseline that fetches the
    ///   same pages with `URLSession` and bulk-inserts each page with GRDB in one transaction.
    /// - Outbox drain: 5,000 saves until the outbox is empty, against the same creates sent with
    ///   `URLSession`, one after another and four at a time.
    /// - Save-to-remote-device latency: a save on one device until another device's `observe`
    ///   delivers it, through the backend's subscription.
    struct SyncBenchmark {
        var sizes: [Int] =
            ProcessInfo.processInfo.environment["STRATUS_BENCH_SYNC_RECORDS"]
            .map { $0.split(separator: ",").compactMap { Int($0) } } ?? [10_000, 100_000]
        var saves = Int(ProcessInfo.processInfo.environment["STRATUS_BENCH_SYNC_SAVES"] ?? "") ?? 5_000
        /// The outbox's concurrency; DataStore's default unless `STRATUS_BENCH_OUTBOX_CONCURRENCY` sets it.
        var outboxConcurrency = Int(ProcessInfo.processInfo.environment["STRATUS_BENCH_OUTBOX_CONCURRENCY"] ?? "")
        var latencySamples = 300

        static let schema = """
            type Item @model {
              id: ID!
              name: String!
              category: String! @index(name: "byCategory")
              rating: Int!
            }
            """

        func run() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "stratus-sync-bench-\(UUID().uuidString)",
                isDirectory: true
            )
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            _ = ModelRegistry.modelTypes(registeredBy: SyncBenchRegistration())
            print("sync: DataStore's sync against URLSession + GRDB doing the same work, same run")
            for size in sizes {
                try await initialSync(size, in: directory)
            }
            try await outboxDrain(in: directory)
            try await latency(in: directory)
        }

        // MARK: - Initial sync

        private func initialSync(_ count: Int, in directory: URL) async throws {
            let backend = try await LocalBackend.start(schema: Self.schema)
            defer { Task { await backend.stop() } }
            try await seed(count, into: backend)
            let baseline = try await measure {
                try await baselineSync(backend, into: directory.appendingPathComponent("raw-\(count).sqlite"))
            }
            let device = try makeDevice(backend, at: directory.appendingPathComponent("datastore-\(count).sqlite")) {
                $0.syncMaxRecords = count
            }
            let ready = Mutex(false)
            device.hub.listen(to: .dataStore, eventName: HubPayload.EventName.DataStore.ready) { _ in
                ready.withLock { $0 = true }
            }
            let synced = try await measure {
                try await device.start()
                while !ready.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
            }
            let stored = try await device.query(SyncBenchItem.self, where: nil, sort: nil, paginate: nil).count
            precondition(stored == count, "DataStore synced \(stored) of \(count) records")
            try await device.stop()
            printPair("initial sync of \(count) records", baseline, synced)
        }

        /// Inserts `count` items straight into the backend's table, as the server benchmark does.
        private func seed(_ count: Int, into backend: LocalBackend) async throws {
            let pool = try DatabasePool(path: backend.dataDirectory.appendingPathComponent("stratus.sqlite").path)
            try await pool.write { db in
                let statement = try db.makeStatement(
                    sql: """
                        INSERT INTO "Item" ("id", "name", "category", "rating", "createdAt", "updatedAt", "_version",
                          "_deleted", "_lastChangedAt") VALUES (?, ?, ?, ?, ?, ?, 1, NULL, ?)
                        """
                )
                for index in 0..<count {
                    try statement.execute(arguments: [
                        String(format: "item-%07d", index), "Item \(index)", "c\(index % 100)", index % 100,
                        "2024-01-01T00:00:00.000Z", "2024-01-01T00:00:00.000Z", 1_704_067_200_000,
                    ])
                }
            }
            try pool.close()
        }

        /// The same pages with URLSession, each inserted with GRDB in one transaction.
        private func baselineSync(_ backend: LocalBackend, into url: URL) async throws {
            let pool = try DatabasePool(path: url.path)
            try await pool.write { db in
                try db.execute(
                    sql: """
                        CREATE TABLE "Item" ("id" TEXT PRIMARY KEY, "name" TEXT, "category" TEXT, "rating" INTEGER,
                          "version" INTEGER, "deleted" INTEGER, "lastChangedAt" INTEGER)
                        """
                )
            }
            let query = """
                query Sync($nextToken: String) {
                  syncItems(limit: 1000, nextToken: $nextToken) {
                    items { id name category rating __typename _version _deleted _lastChangedAt }
                    nextToken startedAt
                  }
                }
                """
            var token: Any = NSNull()
            repeat {
                var request = URLRequest(url: backend.endpoint)
                request.httpMethod = "POST"
                request.setValue("application/json", forHTTPHeaderField: "content-type")
                request.setValue(backend.apiKey, forHTTPHeaderField: "x-api-key")
                request.httpBody = try JSONSerialization.data(withJSONObject: [
                    "query": query, "variables": ["nextToken": token],
                ])
                let (data, _) = try await URLSession.shared.data(for: request)
                let body = try JSONSerialization.jsonObject(with: data) as? [String: Any]
                let page = (body?["data"] as? [String: Any])?["syncItems"] as? [String: Any]
                let items = page?["items"] as? [[String: Any]] ?? []
                let rows = items.map { item -> [DatabaseValue] in
                    [
                        (item["id"] as? String).databaseValue, (item["name"] as? String).databaseValue,
                        (item["category"] as? String).databaseValue, (item["rating"] as? Int).databaseValue,
                        (item["_version"] as? Int).databaseValue, (item["_deleted"] as? Bool).databaseValue,
                        (item["_lastChangedAt"] as? Int).databaseValue,
                    ]
                }
                try await pool.write { db in
                    let statement = try db.cachedStatement(
                        sql: "INSERT OR REPLACE INTO \"Item\" VALUES (?, ?, ?, ?, ?, ?, ?)"
                    )
                    for row in rows { try statement.execute(arguments: StatementArguments(row)) }
                }
                token = page?["nextToken"] as? String ?? NSNull()
            } while token is String
            try pool.close()
        }

        // MARK: - Outbox

        private func outboxDrain(in directory: URL) async throws {
            let backend = try await LocalBackend.start(schema: Self.schema)
            defer { Task { await backend.stop() } }
            let create = """
                mutation Create($input: CreateItemInput!) { createItem(input: $input) { id name category rating } }
                """
            let fastTransport = AsyncHTTPClientTransport()
            /// Creates item `index`: with the plain document above, or as DataStore's outbox sends
            /// it (sync fields, an `Idempotency-Key`); with AsyncHTTPClient when `fast`, else
            /// with `URLSession`.
            @Sendable func send(
                _ index: Int,
                prefix: String,
                fast: Bool = false,
                asDataStore: Bool = false
            ) async throws {
                var request = URLRequest(url: backend.endpoint)
                request.httpMethod = "POST"
                request.setValue("application/json", forHTTPHeaderField: "content-type")
                request.setValue(backend.apiKey, forHTTPHeaderField: "x-api-key")
                if asDataStore {
                    let mutation = GraphQLRequest<JSONValue>.syncMutation(
                        modelSchema: SyncBenchItem.schema,
                        kind: "create",
                        json: [
                            "id": .string("\(prefix)-\(index)"), "name": .string("Item \(index)"), "category": "c",
                            "rating": 1,
                        ],
                        version: nil,
                        condition: nil
                    )
                    request.setValue(UUID().uuidString, forHTTPHeaderField: "Idempotency-Key")
                    request.httpBody = try JSONEncoder().encode(mutation.body)
                } else {
                    let input: [String: Any] = [
                        "id": "\(prefix)-\(index)", "name": "Item \(index)", "category": "c", "rating": 1,
                    ]
                    request.httpBody = try JSONSerialization.data(withJSONObject: [
                        "query": create, "variables": ["input": input],
                    ])
                }
                if fast {
                    let response = try await fastTransport.send(request)
                    precondition(!response.body.isEmpty)
                } else {
                    let (data, _) = try await URLSession.shared.data(for: request)
                    precondition(!data.isEmpty)
                }
            }
            /// Runs `body` for each item index, four lanes at a time.
            func inLanes(_ body: @escaping @Sendable (Int) async throws -> Void) async throws {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for lane in 0..<4 {
                        group.addTask {
                            for index in stride(from: lane, to: saves, by: 4) { try await body(index) }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            let serial = try await measure {
                for index in 0..<saves { try await send(index, prefix: "serial") }
            }
            let parallel = try await measure {
                try await inLanes { try await send($0, prefix: "lanes") }
            }
            let fastStart = processorSeconds()
            let fastParallel = try await measure {
                try await inLanes { try await send($0, prefix: "fast", fast: true) }
            }
            let fastCPU = processorSeconds() - fastStart
            // DataStore's own requests, four at a time: what the backend's share of the drain
            // costs, with a client that does nothing else.
            let sameStart = processorSeconds()
            let sameRequests = try await measure {
                try await inLanes { try await send($0, prefix: "same", fast: true, asDataStore: true) }
            }
            let sameCPU = processorSeconds() - sameStart
            let device = try makeDevice(backend, at: directory.appendingPathComponent("outbox.sqlite")) {
                if let outboxConcurrency { $0.outboxConcurrency = outboxConcurrency }
            }
            let ready = Mutex(false)
            device.hub.listen(to: .dataStore, eventName: HubPayload.EventName.DataStore.ready) { _ in
                ready.withLock { $0 = true }
            }
            // How many times the hub said the outbox is empty: the drain waits for that rather
            // than reading the whole outbox over and over, as an app would.
            let emptied = Mutex(0)
            device.hub.listen(to: .dataStore, eventName: HubPayload.EventName.DataStore.outboxStatus) { payload in
                if (payload.data as? OutboxStatusEvent)?.isEmpty == true { emptied.withLock { $0 += 1 } }
            }
            try await device.start()
            while !ready.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
            let drainedStart = processorSeconds()
            let drained = try await measure {
                for index in 0..<saves {
                    try await device.save(
                        SyncBenchItem(id: "ds-\(index)", name: "Item \(index)", category: "c", rating: 1)
                    )
                }
                while true {
                    let seen = emptied.withLock { $0 }
                    if try await device.pendingMutations().isEmpty { break }
                    while emptied.withLock({ $0 }) == seen { try await Task.sleep(for: .milliseconds(2)) }
                }
            }
            // The backend runs in this process: the processor time of both sides per mutation
            // compares the work done, whatever else the machine runs meanwhile.
            let drainedCPU = processorSeconds() - drainedStart
            try await device.stop()
            let (filled, filledCPU) = try await drainFilled(backend, in: directory)
            let rate = { (duration: Duration) in format(Double(saves) / seconds(duration)) }
            print(
                "  outbox drain of \(saves) saves: URLSession one by one \(rate(serial))/s, four at a time "
                    + "\(rate(parallel))/s; AsyncHTTPClient four at a time \(rate(fastParallel))/s; DataStore "
                    + "(saved and sent) \(rate(drained))/s; ratio to URLSession one by one "
                    + "\(format(seconds(serial) / seconds(drained)))x, to AsyncHTTPClient four at a time "
                    + "\(format(seconds(fastParallel) / seconds(drained)))x; processor time per mutation (both "
                    + "sides): AsyncHTTPClient four at a time \(format(fastCPU / Double(saves) * 1000)) ms, DataStore "
                    + "\(format(drainedCPU / Double(saves) * 1000)) ms, ratio \(format(drainedCPU / fastCPU))x"
            )
            print(
                "  DataStore's own requests sent with AsyncHTTPClient four at a time: \(rate(sameRequests))/s, "
                    + "processor time per mutation (both sides) \(format(sameCPU / Double(saves) * 1000)) ms"
            )
            print(
                "  outbox drain of \(saves) saves made offline, from ready to empty: DataStore \(rate(filled))/s, "
                    + "ratio to AsyncHTTPClient four at a time \(format(seconds(fastParallel) / seconds(filled)))x; "
                    + "processor time per mutation (both sides) \(format(filledCPU / Double(saves) * 1000)) ms, "
                    + "ratio \(format(filledCPU / fastCPU))x"
            )
        }

        /// Saves on a device without a backend, then opens the same database with one: the time
        /// and processor time (both sides) from the `ready` event until the outbox is empty.
        private func drainFilled(_ backend: LocalBackend, in directory: URL) async throws -> (Duration, Double) {
            let url = directory.appendingPathComponent("filled.sqlite")
            let offline = makeDevice(api: nil, at: url)
            for index in 0..<saves {
                try await offline.save(
                    SyncBenchItem(id: "filled-\(index)", name: "Item \(index)", category: "c", rating: 1)
                )
            }
            let pending = try await offline.pendingMutations().count
            precondition(pending == saves, "the offline device holds \(pending) of \(saves) saves")
            try await offline.stop()
            let device = try makeDevice(backend, at: url) {
                if let outboxConcurrency { $0.outboxConcurrency = outboxConcurrency }
            }
            /// When `ready` was heard, with the processor time then, and when the outbox was
            /// empty after it.
            let marks = Mutex<(ready: (ContinuousClock.Instant, Double)?, empty: (ContinuousClock.Instant, Double)?)>(
                (nil, nil)
            )
            device.hub.listen(to: .dataStore, eventName: HubPayload.EventName.DataStore.ready) { _ in
                let mark = (ContinuousClock.now, processorSeconds())
                marks.withLock { $0.ready = $0.ready ?? mark }
            }
            device.hub.listen(to: .dataStore, eventName: HubPayload.EventName.DataStore.outboxStatus) { payload in
                guard (payload.data as? OutboxStatusEvent)?.isEmpty == true else { return }
                let mark = (ContinuousClock.now, processorSeconds())
                marks.withLock { if $0.ready != nil { $0.empty = mark } }
            }
            try await device.start()
            while true {
                if marks.withLock({ $0.empty }) != nil, try await device.pendingMutations().isEmpty { break }
                try await Task.sleep(for: .milliseconds(5))
            }
            try await device.stop()
            let (ready, empty) = marks.withLock { ($0.ready!, $0.empty!) }
            return (empty.0 - ready.0, empty.1 - ready.1)
        }

        // MARK: - Latency

        private func latency(in directory: URL) async throws {
            let backend = try await LocalBackend.start(schema: Self.schema)
            defer { Task { await backend.stop() } }
            var devices: [AWSDataStorePlugin] = []
            for name in ["sender", "receiver"] {
                let device = try makeDevice(backend, at: directory.appendingPathComponent("\(name).sqlite"))
                let ready = Mutex(false)
                device.hub.listen(to: .dataStore, eventName: HubPayload.EventName.DataStore.ready) { _ in
                    ready.withLock { $0 = true }
                }
                try await device.start()
                while !ready.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
                devices.append(device)
            }
            let arrivals = Arrivals()
            let receiver = devices[1]
            let observation = Task {
                for try await event in receiver.observe(SyncBenchItem.self) {
                    let now = ContinuousClock.now
                    arrivals.times.withLock { $0[event.modelId] = $0[event.modelId] ?? now }
                }
            }
            var samples: [Duration] = []
            for index in 0..<latencySamples {
                let id = "latency-\(index)"
                let start = ContinuousClock.now
                try await devices[0].save(SyncBenchItem(id: id, name: "Item", category: "c", rating: 1))
                while true {
                    if let arrival = arrivals.times.withLock({ $0[id] }) {
                        samples.append(arrival - start)
                        break
                    }
                    try await Task.sleep(for: .milliseconds(1))
                }
            }
            observation.cancel()
            for device in devices { try await device.stop() }
            samples.sort()
            let p50 = samples[samples.count / 2]
            let p99 = samples[min(samples.count - 1, samples.count * 99 / 100)]
            print(
                "  save to the other device's observe, \(latencySamples) saves one after another: p50 "
                    + "\(format(seconds(p50) * 1000)) ms, p99 \(format(seconds(p99) * 1000)) ms"
            )
        }

        // MARK: - Helpers

        private func makeDevice(
            _ backend: LocalBackend,
            at url: URL,
            adjust: (inout DataStoreConfiguration) -> Void = { _ in }
        ) throws -> AWSDataStorePlugin {
            makeDevice(api: try backend.makeAPIPlugin(), at: url, adjust: adjust)
        }

        /// A device syncing through `api`, or local only when it is `nil`.
        private func makeDevice(
            api: (any APICategory)?,
            at url: URL,
            adjust: (inout DataStoreConfiguration) -> Void = { _ in }
        ) -> AWSDataStorePlugin {
            var configuration = DataStoreConfiguration(databaseURL: url)
            configuration.durability = .normal
            configuration.checksIntegrityOnOpen = false
            adjust(&configuration)
            return AWSDataStorePlugin(
                modelRegistration: SyncBenchRegistration(),
                configuration: configuration,
                api: api,
                hub: HubCategory()
            )
        }

        private func measure(_ body: () async throws -> Void) async throws -> Duration {
            let start = ContinuousClock.now
            try await body()
            return ContinuousClock.now - start
        }

        private func printPair(_ label: String, _ baseline: Duration, _ measured: Duration) {
            print(
                "  \(label): URLSession + GRDB \(format(seconds(baseline))) s, DataStore \(format(seconds(measured))) s, "
                    + "ratio \(format(seconds(measured) / seconds(baseline)))x"
            )
        }

        /// The processor time this process used so far (user and system), in seconds.
        private func processorSeconds() -> Double {
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            let time = { (value: timeval) in Double(value.tv_sec) + Double(value.tv_usec) / 1e6 }
            return time(usage.ru_utime) + time(usage.ru_stime)
        }

        private func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }

        private func format(_ value: Double) -> String {
            String(format: value < 10 ? "%.3f" : "%.1f", value)
        }
    }

    /// When each record first reached the receiving device.
    final class Arrivals: Sendable {
        let times = Mutex<[String: ContinuousClock.Instant]>([:])
    }

    struct SyncBenchRegistration: AmplifyModelRegistration {
        let version = "sync-bench-1"

        func registerModels(registry: ModelRegistry.Type) {
            registry.register(modelType: SyncBenchItem.self)
        }
    }

    /// The benchmark's model: the backend's `Item`.
    struct SyncBenchItem: Model {
        let id: String
        var name: String
        var category: String
        var rating: Int

        static let modelName = "Item"

        enum CodingKeys: String, ModelKey {
            case id, name, category, rating
        }

        static let keys = CodingKeys.self

        static let schema = defineSchema { model in
            let item = SyncBenchItem.keys
            model.name = "Item"
            model.listPluralName = "Items"
            model.syncPluralName = "Items"
            model.attributes(.primaryKey(fields: [item.id]))
            model.fields(
                .field(item.id, is: .required, ofType: .string),
                .field(item.name, is: .required, ofType: .string),
                .field(item.category, is: .required, ofType: .string),
                .field(item.rating, is: .required, ofType: .int)
            )
        }
    }
#endif
