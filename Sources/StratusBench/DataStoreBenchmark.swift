// DataStore against raw GRDB doing the same work in the same run.
//
// Compiled when the StratusBench target defines STRATUS_BENCH_DATASTORE and depends on
// AWSDataStorePlugin and GRDB; run with `swift run -c release StratusBench datastore`.
#if STRATUS_BENCH_DATASTORE
    import Amplify
    import AWSDataStorePlugin
    import Foundation
    import GRDB

    /// DataStore's saves, queries, `observeQuery` and hasMany loads, each next to raw GRDB doing the
    /// same work on the same kind of table in the same run:
    ///
    /// - individual saves, each its own transaction with its outbox row (raw GRDB encodes the
    ///   record as JSON for its outbox row too);
    /// - a predicate query over 100,000 rows returning 1,000, through an index and by a scan;
    /// - the latency from a save to the `observeQuery` snapshot that shows it (raw GRDB: a
    ///   `ValueObservation` of the same query);
    /// - loading a hasMany list of 100 children (raw GRDB: fetching the children by foreign key);
    /// - 10,000 saves in one `DataStore.transaction` (raw GRDB: the same rows, record, sync
    ///   metadata and outbox, in one transaction), and the same saves one by one.
    struct DataStoreBenchmark {
        var saves = 2_000
        var rows = 100_000
        var samples = 200
        var transactionSaves = 10_000

        func run() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "stratus-bench-\(UUID().uuidString)",
                isDirectory: true
            )
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            print("datastore: DataStore against raw GRDB, same work, same run")
            for durability in [DataStoreConfiguration.Durability.full, .normal] {
                try await benchmarkSaves(durability, in: directory)
            }
            try await benchmarkReads(in: directory)
            try await benchmarkTransaction(in: directory)
        }

        /// Only the transaction's figures (`StratusBench datastore-transaction`).
        func runTransaction() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "stratus-bench-\(UUID().uuidString)",
                isDirectory: true
            )
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            print("datastore: DataStore against raw GRDB, same work, same run")
            try await benchmarkTransaction(in: directory)
        }

        // MARK: - Transactions

        /// 10,000 saves in one transaction next to raw GRDB writing the same rows (the record, its
        /// sync metadata row and its outbox row with the record's JSON) in one transaction, then
        /// DataStore's 10,000 saves one by one, each its own transaction.
        private func benchmarkTransaction(in directory: URL) async throws {
            let store = try await makeStore(directory.appendingPathComponent("transaction.sqlite"), .normal)
            let single = try await makeStore(directory.appendingPathComponent("one-by-one.sqlite"), .normal)
            let raw = try RawStore(directory.appendingPathComponent("raw-transaction.sqlite"), .normal)
            let parent = BenchParent(id: "parent", name: "Parent")
            try await store.save(parent)
            try await single.save(parent)
            try await raw.insertParent(id: "parent")
            let count = transactionSaves
            let items = (0..<count).map { BenchItem.make($0, parent: parent) }
            let rawItems = (0..<count).map { RawItem.make($0, parent: "parent") }
            let clock = ContinuousClock()
            let rawTime = try await clock.measure { try await raw.saveInOneTransaction(rawItems) }
            let storeTime = try await clock.measure {
                try await store.transaction { tx in
                    for item in items { try tx.save(item) }
                }
            }
            let singleTime = try await clock.measure {
                for item in items { try await single.save(item) }
            }
            let stored = try await store.query(BenchItem.self).count
            precondition(stored == count)
            print("  \(count) saves in one transaction, synchronous=NORMAL, each with its metadata and outbox rows")
            print("    raw GRDB, one transaction    \(milliseconds(rawTime)) ms")
            print(
                "    DataStore.transaction        \(milliseconds(storeTime)) ms  ratio "
                    + "\(format(seconds(storeTime) / max(seconds(rawTime), 1e-9)))x (target <= 1.2x)"
            )
            print(
                "    DataStore, one by one        \(milliseconds(singleTime)) ms  ratio "
                    + "\(format(seconds(singleTime) / max(seconds(rawTime), 1e-9)))x"
            )
            await store.reset()
            await single.reset()
        }

        // MARK: - Saves

        private func benchmarkSaves(_ durability: DataStoreConfiguration.Durability, in directory: URL) async throws {
            let name = durability == .full ? "full" : "normal"
            let store = try await makeStore(directory.appendingPathComponent("saves-\(name).sqlite"), durability)
            let raw = try RawStore(directory.appendingPathComponent("raw-saves-\(name).sqlite"), durability)
            let parent = BenchParent(id: "parent", name: "Parent")
            try await store.save(parent)
            try await raw.insertParent(id: "parent")
            let clock = ContinuousClock()
            let rawTime = try await clock.measure {
                for index in 0..<saves { try await raw.save(RawItem.make(index, parent: "parent")) }
            }
            let storeTime = try await clock.measure {
                for index in 0..<saves { try await store.save(BenchItem.make(index, parent: parent)) }
            }
            let rawRate = Double(saves) / seconds(rawTime)
            let storeRate = Double(saves) / seconds(storeTime)
            print("  individual saves, synchronous=\(name.uppercased()), \(saves) saves, each with its outbox row")
            print("    raw GRDB   \(format(rawRate)) saves/s")
            print("    DataStore  \(format(storeRate)) saves/s  ratio \(format(rawRate / storeRate))x slower")
            await store.reset()
        }

        // MARK: - Reads

        private func benchmarkReads(in directory: URL) async throws {
            let store = try await makeStore(directory.appendingPathComponent("reads.sqlite"), .normal)
            let raw = try RawStore(directory.appendingPathComponent("raw-reads.sqlite"), .normal)
            let parents = (0..<(rows / 100)).map { BenchParent(id: "parent-\($0)", name: "Parent \($0)") }
            for parent in parents {
                try await store.save(parent)
                try await raw.insertParent(id: parent.id)
            }
            for index in 0..<rows {
                try await store.save(BenchItem.make(index, parent: parents[index % parents.count]))
            }
            try await raw.insertAll((0..<rows).map { RawItem.make($0, parent: "parent-\($0 % parents.count)") })
            let clock = ContinuousClock()
            let b = BenchItem.keys

            var storeIndexed: [Duration] = []
            var rawIndexed: [Duration] = []
            var storeScan: [Duration] = []
            var rawScan: [Duration] = []
            for round in 0..<15 {
                let category = "c\(round * 7 % 100)"
                var count = 0
                storeIndexed.append(
                    try await clock.measure {
                        count = try await store.query(BenchItem.self, where: b.category == category).count
                    }
                )
                precondition(count == rows / 100)
                rawIndexed.append(try await clock.measure { count = try await raw.items(category: category).count })
                precondition(count == rows / 100)
                let low = round * 5_000
                storeScan.append(
                    try await clock.measure {
                        count = try await store.query(
                            BenchItem.self,
                            where: b.rating.between(start: low, end: low + 999)
                        )
                        .count
                    }
                )
                precondition(count == 1_000)
                rawScan.append(
                    try await clock.measure { count = try await raw.items(ratingFrom: low, to: low + 999).count }
                )
                precondition(count == 1_000)
            }
            print("  predicate query over \(rows) rows returning 1,000 models, median of 15")
            printPair("category == c (index)", median(rawIndexed), median(storeIndexed))
            printPair("rating between (scan)", median(rawScan), median(storeScan))

            // observeQuery: from the save to the snapshot that shows it.
            var storeLatency: [Duration] = []
            var snapshots = store.observeQuery(for: BenchItem.self, where: b.category == "latency").makeAsyncIterator()
            _ = try await snapshots.next()
            for index in 0..<samples {
                let item = BenchItem.make(rows + index, parent: parents[0], category: "latency")
                let start = clock.now
                try await store.save(item)
                while let snapshot = try await snapshots.next(), snapshot.items.count < index + 1 {}
                storeLatency.append(clock.now - start)
            }
            var rawLatency: [Duration] = []
            var values = ValueObservation.tracking { db in
                try RawItem.filter(Column("category") == "latency").fetchAll(db)
            }
            .values(in: raw.pool, scheduling: .async(onQueue: DispatchQueue(label: "bench.observation")))
            .makeAsyncIterator()
            _ = try await values.next()
            for index in 0..<samples {
                let start = clock.now
                try await raw.save(RawItem.make(rows + index, parent: "parent-0", category: "latency"))
                while let items = try await values.next(), items.count < index + 1 {}
                rawLatency.append(clock.now - start)
            }
            print("  observeQuery latency, save to snapshot, median of \(samples)")
            printPair("save -> snapshot", median(rawLatency), median(storeLatency))

            // hasMany: loading the 100 children of a parent.
            var storeLoad: [Duration] = []
            var rawLoad: [Duration] = []
            for round in 0..<samples {
                let parentID = parents[round % parents.count].id
                let parent = try await store.query(BenchParent.self, byId: parentID)!
                var count = 0
                storeLoad.append(clock.measure { count = parent.items?.count ?? 0 })
                precondition(count >= 100)
                rawLoad.append(try await clock.measure { count = try await raw.items(parent: parentID).count })
                precondition(count >= 100)
            }
            print("  hasMany load of 100 children, median of \(samples)")
            printPair("parent.items", median(rawLoad), median(storeLoad))
            await store.reset()
        }

        // MARK: - Helpers

        private func makeStore(
            _ url: URL,
            _ durability: DataStoreConfiguration.Durability
        ) async throws
            -> AWSDataStorePlugin
        {
            var configuration = DataStoreConfiguration(databaseURL: url)
            configuration.durability = durability
            let plugin = AWSDataStorePlugin(modelRegistration: BenchRegistration(), configuration: configuration)
            try await plugin.start()
            return plugin
        }

        private func printPair(_ label: String, _ raw: Duration, _ store: Duration) {
            let padded = label.padding(toLength: 24, withPad: " ", startingAt: 0)
            print(
                "    \(padded) raw GRDB \(milliseconds(raw)) ms   DataStore \(milliseconds(store)) ms   ratio "
                    + "\(format(seconds(store) / max(seconds(raw), 1e-9)))x"
            )
        }

        private func median(_ values: [Duration]) -> Duration {
            values.sorted()[values.count / 2]
        }

        private func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }

        private func milliseconds(_ duration: Duration) -> String {
            format(seconds(duration) * 1000)
        }

        private func format(_ value: Double) -> String {
            value >= 100 ? String(Int(value.rounded())) : String(Double(Int(value * 100)) / 100)
        }
    }

    // MARK: - Raw GRDB

    /// The same tables DataStore makes, written and read with GRDB directly.
    struct RawStore {
        let pool: DatabasePool

        init(_ url: URL, _ durability: DataStoreConfiguration.Durability) throws {
            var configuration = Configuration()
            let synchronous = durability == .full ? "FULL" : "NORMAL"
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = \(synchronous)") }
            pool = try DatabasePool(path: url.path, configuration: configuration)
            try pool.write { db in
                try db.execute(
                    sql: """
                        CREATE TABLE "parent" ("id" TEXT NOT NULL PRIMARY KEY, "name" TEXT NOT NULL) STRICT;
                        CREATE TABLE "item" (
                          "id" TEXT NOT NULL PRIMARY KEY, "title" TEXT NOT NULL, "category" TEXT NOT NULL,
                          "rating" INTEGER NOT NULL, "score" REAL NOT NULL,
                          "parentID" TEXT REFERENCES "parent" ("id") DEFERRABLE INITIALLY DEFERRED
                        ) STRICT;
                        CREATE INDEX "item_byCategory" ON "item" ("category", "rating");
                        CREATE INDEX "item_byParent" ON "item" ("parentID");
                        CREATE TABLE "outbox" (
                          "sequence" INTEGER PRIMARY KEY, "id" TEXT NOT NULL UNIQUE, "modelName" TEXT NOT NULL,
                          "modelId" TEXT NOT NULL, "mutationType" TEXT NOT NULL, "json" TEXT NOT NULL,
                          "createdAt" TEXT NOT NULL
                        ) STRICT;
                        CREATE INDEX "outbox_byRecord" ON "outbox" ("modelName", "modelId");
                        CREATE TABLE "sync_metadata" (
                          "id" TEXT NOT NULL PRIMARY KEY, "version" INTEGER, "deleted" INTEGER NOT NULL DEFAULT 0
                        ) STRICT;
                        """
                )
            }
        }

        func insertParent(id: String) async throws {
            try await pool.write { db in
                try db.execute(sql: #"INSERT INTO "parent" ("id", "name") VALUES (?, ?)"#, arguments: [id, "Parent"])
            }
        }

        /// One transaction: the record and its outbox row.
        func save(_ item: RawItem) async throws {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let json = String(decoding: try encoder.encode(item), as: UTF8.self)
            try await pool.write { db in
                try item.insert(db, onConflict: .replace)
                try db.execute(
                    sql: #"INSERT INTO "outbox" ("id", "modelName", "modelId", "mutationType", "json", "createdAt") "#
                        + "VALUES (?, ?, ?, ?, ?, ?)",
                    arguments: [UUID().uuidString, "Item", item.id, "create", json, Date().description]
                )
            }
        }

        /// One transaction: each record, its sync metadata row and its outbox row.
        func saveInOneTransaction(_ items: [RawItem]) async throws {
            try await pool.write { db in
                let encoder = JSONEncoder()
                encoder.outputFormatting = .sortedKeys
                let metadata = try db.cachedStatement(
                    sql: #"INSERT INTO "sync_metadata" ("id", "deleted") VALUES (?, 0) "#
                        + #"ON CONFLICT ("id") DO UPDATE SET "deleted" = 0 RETURNING "version""#
                )
                let outbox = try db.cachedStatement(
                    sql: #"INSERT INTO "outbox" ("id", "modelName", "modelId", "mutationType", "json", "createdAt") "#
                        + "VALUES (?, ?, ?, ?, ?, ?)"
                )
                for item in items {
                    let json = String(decoding: try encoder.encode(item), as: UTF8.self)
                    try item.insert(db, onConflict: .replace)
                    _ = try Row.fetchAll(metadata, arguments: ["Item|\(item.id)"])
                    try outbox.execute(arguments: [
                        UUID().uuidString, "Item", item.id, "create", json, Date().description,
                    ])
                }
            }
        }

        func insertAll(_ items: [RawItem]) async throws {
            try await pool.write { db in
                for item in items { try item.insert(db) }
            }
        }

        func items(category: String) async throws -> [RawItem] {
            try await pool.read { db in try RawItem.filter(Column("category") == category).fetchAll(db) }
        }

        func items(ratingFrom low: Int, to high: Int) async throws -> [RawItem] {
            try await pool.read { db in try RawItem.filter((low...high).contains(Column("rating"))).fetchAll(db) }
        }

        func items(parent: String) async throws -> [RawItem] {
            try await pool.read { db in try RawItem.filter(Column("parentID") == parent).fetchAll(db) }
        }
    }

    struct RawItem: Codable, Sendable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "item"
        var id: String
        var title: String
        var category: String
        var rating: Int
        var score: Double
        var parentID: String?

        static func make(_ index: Int, parent: String, category: String? = nil) -> RawItem {
            RawItem(
                id: "item-\(index)",
                title: "Item \(index)",
                category: category ?? "c\(index % 100)",
                rating: index,
                score: Double(index) / 10,
                parentID: parent
            )
        }
    }

    // MARK: - Models

    struct BenchRegistration: AmplifyModelRegistration {
        let version = "bench-1"

        func registerModels(registry: ModelRegistry.Type) {
            registry.register(modelType: BenchParent.self)
            registry.register(modelType: BenchItem.self)
        }
    }

    struct BenchParent: Model {
        let id: String
        var name: String
        var items: List<BenchItem>?

        init(id: String, name: String, items: List<BenchItem>? = []) {
            self.id = id
            self.name = name
            self.items = items
        }

        enum CodingKeys: String, ModelKey {
            case id, name, items
        }

        static let keys = CodingKeys.self

        static let schema = defineSchema { model in
            let parent = BenchParent.keys
            model.attributes(.primaryKey(fields: [parent.id]))
            model.fields(
                .field(parent.id, is: .required, ofType: .string),
                .field(parent.name, is: .required, ofType: .string),
                .hasMany(parent.items, is: .optional, ofType: BenchItem.self, associatedFields: [BenchItem.keys.parent])
            )
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            name = try container.decode(String.self, forKey: .name)
            items = try List<BenchItem>.decode(from: decoder, field: "items", of: Self.schema)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(name, forKey: .name)
            try container.encodeIfPresent(items, forKey: .items)
        }
    }

    struct BenchItem: Model {
        let id: String
        var title: String
        var category: String
        var rating: Int
        var score: Double
        var parentID: String? { _parent.identifiers.first?.stringValue }
        var parent: BenchParent? {
            get { _parent.model }
            set { _parent = ModelReference(newValue) }
        }
        var _parent: ModelReference<BenchParent>

        static func make(_ index: Int, parent: BenchParent, category: String? = nil) -> BenchItem {
            BenchItem(
                id: "item-\(index)",
                title: "Item \(index)",
                category: category ?? "c\(index % 100)",
                rating: index,
                score: Double(index) / 10,
                _parent: ModelReference(identifiers: [.string(parent.id)])
            )
        }

        enum CodingKeys: String, ModelKey {
            case id, title, category, rating, score, parent, parentID
        }

        static let keys = CodingKeys.self

        static let schema = defineSchema { model in
            let item = BenchItem.keys
            model.attributes(
                .index(fields: ["category", "rating"], name: "byCategory"),
                .index(fields: ["parentID"], name: "byParent"),
                .primaryKey(fields: [item.id])
            )
            model.fields(
                .field(item.id, is: .required, ofType: .string),
                .field(item.title, is: .required, ofType: .string),
                .field(item.category, is: .required, ofType: .string),
                .field(item.rating, is: .required, ofType: .int),
                .field(item.score, is: .required, ofType: .double),
                .belongsTo(
                    item.parent,
                    is: .optional,
                    ofType: BenchParent.self,
                    associatedFields: [BenchParent.keys.items],
                    targetNames: ["parentID"]
                ),
                .field(item.parentID, is: .optional, ofType: .string)
            )
        }

        init(
            id: String,
            title: String,
            category: String,
            rating: Int,
            score: Double,
            _parent: ModelReference<BenchParent>
        ) {
            self.id = id
            self.title = title
            self.category = category
            self.rating = rating
            self.score = score
            self._parent = _parent
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            title = try container.decode(String.self, forKey: .title)
            category = try container.decode(String.self, forKey: .category)
            rating = try container.decode(Int.self, forKey: .rating)
            score = try container.decode(Double.self, forKey: .score)
            _parent = try ModelReference(from: decoder, field: "parent", targetNames: ["parentID"])
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(title, forKey: .title)
            try container.encode(category, forKey: .category)
            try container.encode(rating, forKey: .rating)
            try container.encode(score, forKey: .score)
            try _parent.encode(to: encoder, field: "parent", targetNames: ["parentID"])
        }
    }
#endif
