#if STRATUS_BENCH_DATASTORE
    import AWSAPIPlugin
    import AWSDataStorePlugin
    import Amplify
    import Foundation
    import Synchronization

    /// One device of a chaos run, in a process of its own (`StratusBench chaos-device ...`): a
    /// DataStore on its own database, syncing through its own fault proxy, making its seeded
    /// operations and logging each one its DataStore acknowledged.
    ///
    /// The harness kills it with SIGKILL and starts it again with the next `--incarnation`: it
    /// goes on from the first operation its log does not hold. Once it made them all it logs
    /// `finished` and keeps syncing until the harness stops it.
    struct ChaosDevice {
        var database: URL
        var log: URL
        /// The side file of what the device's subscriptions delivered (``ChaosOrder``).
        var heard: URL
        var endpoint: URL
        var apiKey: String
        var device: Int
        var incarnation: Int
        var seed: UInt64
        var operations: Int
        var pace: Int
        var conflicts: ChaosOptions.Conflicts
        /// The shared folders and notes, `f0`… and `n0`….
        var folders: Int
        var notes: Int
        /// A file whose presence ends the operations early: the harness's time bound passed.
        var stop: URL
        /// Whether the device uses DataStore (``database`` is its file) or `AWSAppSyncClient`
        /// (``database`` is the client's directory; ``ChaosAppSyncDevice``).
        var client: ChaosOptions.Client

        /// Reads the options the harness passes (see ``ChaosHarness/deviceArguments(_:incarnation:)``).
        ///
        /// - Throws: ``ChaosError`` naming a missing or bad option.
        init(_ arguments: [String]) throws {
            var values: [String: String] = [:]
            var rest = arguments[...]
            while let name = rest.popFirst() {
                guard name.hasPrefix("--"), let value = rest.popFirst() else {
                    throw ChaosError("chaos-device: '\(name)' is not an option with a value.")
                }
                values[String(name.dropFirst(2))] = value
            }
            func required(_ name: String) throws -> String {
                guard let value = values[name] else { throw ChaosError("chaos-device needs --\(name).") }
                return value
            }
            func integer(_ name: String) throws -> Int {
                guard let value = Int(try required(name)) else {
                    throw ChaosError("chaos-device: --\(name) is a number.")
                }
                return value
            }
            database = URL(fileURLWithPath: try required("database"))
            log = URL(fileURLWithPath: try required("log"))
            heard = URL(fileURLWithPath: try required("heard"))
            guard let url = URL(string: try required("endpoint")) else {
                throw ChaosError("chaos-device: --endpoint is not a URL.")
            }
            endpoint = url
            apiKey = try required("api-key")
            device = try integer("device")
            incarnation = try integer("incarnation")
            guard let seed = UInt64(try required("seed")) else { throw ChaosError("chaos-device: --seed is a number.") }
            self.seed = seed
            operations = try integer("operations")
            pace = try integer("pace")
            guard let conflicts = ChaosOptions.Conflicts(rawValue: try required("conflicts")) else {
                throw ChaosError("chaos-device: --conflicts is automerge, optimistic or custom.")
            }
            self.conflicts = conflicts
            let records = try integer("records")
            guard records >= 2 else { throw ChaosError("chaos-device: --records is at least 2, not \(records).") }
            folders = ChaosOptions.folders(of: records)
            notes = records - folders
            stop = URL(fileURLWithPath: try required("stop"))
            guard let client = ChaosOptions.Client(rawValue: values["client"] ?? "datastore") else {
                throw ChaosError("chaos-device: --client is datastore or appsync.")
            }
            self.client = client
        }

        func run() async throws {
            let entries = try OperationLog.entries(at: self.log)
            let log = try OperationLog(appendingTo: self.log)
            try log.append(OperationLogEntry(entry: .started, device: device, incarnation: incarnation))
            switch client {
            case .datastore:
                let plugin = try makeDataStore(log: log)
                try await plugin.start()
                let tombstones = try ChaosStores.tombstones(ofDeviceAt: database)
                try await makeOperations(after: entries, log: log) { sequence, random in
                    try await operate(sequence, &random, on: plugin, tombstones: tombstones)
                }
            case .appsync:
                try await ChaosAppSyncDevice(options: self).run(after: entries, log: log)
            }
        }

        /// Makes the operations after the last write `entries` (the log as this process found
        /// it) holds, with `operate`, logging each one made, then `finished`; then waits, while
        /// the device syncs on, until the harness stops it.
        func makeOperations(
            after entries: [OperationLogEntry],
            log: OperationLog,
            _ operate: (Int, inout ChaosRandom) async throws -> OperationLogEntry?
        ) async throws {
            let next = (entries.filter { $0.entry == .write }.compactMap(\.sequence).max() ?? -1) + 1
            for sequence in next..<max(next, operations) {
                if FileManager.default.fileExists(atPath: stop.path) { break }
                var random = ChaosRandom(seed, device, sequence)
                if let entry = try await operate(sequence, &random) {
                    try log.append(entry)
                }
                if pace > 0 { try await Task.sleep(for: .milliseconds(random.next(below: 2 * pace + 1))) }
            }
            try log.append(OperationLogEntry(entry: .finished, device: device, incarnation: incarnation))
            while true { try await Task.sleep(for: .seconds(3600)) }
        }

        /// How far the clock of process `incarnation` of `device` is off: up to 72 hours either
        /// way, drawn from the seed, so devices disagree with each other and with the server, a
        /// restarted device has another clock, and a seed replays the same clocks. (Beyond the
        /// 24-hour sync interval, a clock ahead makes every start a base sync, and one behind a
        /// delta sync however old the last sync.)
        static func clockSkew(seed: UInt64, device: Int, incarnation: Int) -> TimeInterval {
            let hours = 72
            var random = ChaosRandom(seed, 1_000 + device, incarnation)
            return TimeInterval(random.next(below: 2 * hours * 3600 + 1) - hours * 3600)
        }

        /// A DataStore on ``database`` that records the conflicts and refusals it meets in `log`,
        /// with the device's clock off by ``clockSkew(seed:device:incarnation:)``.
        private func makeDataStore(log: OperationLog) throws -> AWSDataStorePlugin {
            let (device, incarnation) = (device, incarnation)
            var configuration = DataStoreConfiguration(databaseURL: database)
            let skew = Self.clockSkew(seed: seed, device: device, incarnation: incarnation)
            configuration.clock = { Date().addingTimeInterval(skew) }
            configuration.log = { entry in
                if entry.level != .info { FileHandle.standardError.write(Data("\(entry)\n".utf8)) }
            }
            configuration.conflictHandler = { data, resolve in
                let local = data.local
                let entry = OperationLogEntry(
                    entry: .conflict,
                    device: device,
                    incarnation: incarnation,
                    model: local.modelName,
                    id: local.identifier,
                    op: Self.ops(of: local).last,
                    resolution: "applyRemote"
                )
                log.appendOrReport(entry)
                resolve(.applyRemote)
            }
            configuration.errorHandler = { error in FileHandle.standardError.write(Data("error: \(error)\n".utf8)) }
            let hub = HubCategory()
            for event in [
                HubPayload.EventName.DataStore.conditionalSaveFailed,
                HubPayload.EventName.DataStore.outboxMutationFailed,
            ] {
                hub.listen(to: .dataStore, eventName: event) { payload in
                    guard let outbox = payload.data as? OutboxMutationEvent else { return }
                    let model = outbox.element.model
                    let entry = OperationLogEntry(
                        entry: .rejected,
                        device: device,
                        incarnation: incarnation,
                        model: outbox.modelName,
                        id: model.identifier,
                        op: Self.ops(of: model).last,
                        resolution: event
                    )
                    log.appendOrReport(entry)
                }
            }
            // What the sync engine went through, for a failed run's files.
            let noisy: Set<String> = [
                HubPayload.EventName.DataStore.outboxMutationEnqueued,
                HubPayload.EventName.DataStore.outboxMutationProcessed, HubPayload.EventName.DataStore.outboxStatus,
                HubPayload.EventName.DataStore.syncReceived,
            ]
            hub.listen(to: .dataStore) { payload in
                guard !noisy.contains(payload.eventName) else { return }
                let data = payload.data.map { " \($0)" } ?? ""
                FileHandle.standardError.write(Data("\(Date()) \(payload.eventName)\(data.prefix(200))\n".utf8))
            }
            let api = AWSAPIPlugin(modelRegistration: AmplifyModels())
            try api.configure(
                AWSAPIPluginConfiguration(endpoints: [
                    .init(
                        name: "stratus",
                        endpointType: .graphQL,
                        endpoint: endpoint,
                        region: "us-east-1",
                        authorizationType: .apiKey,
                        apiKey: apiKey
                    )
                ])
            )
            let heard = try OperationLog(appendingTo: self.heard, synced: false)
            return AWSDataStorePlugin(
                modelRegistration: AmplifyModels(),
                configuration: configuration,
                api: HeardAPI(api: api, device: device, incarnation: incarnation) { entry in
                    heard.appendOrReport(entry)
                },
                hub: hub
            )
        }

        static func ops(of model: any Model) -> [String] {
            (model as? Folder)?.ops ?? (model as? Note)?.ops ?? []
        }

        /// Makes operation `sequence` on a slot's current record (``ChaosSlots``, which
        /// `tombstones` tells): a delete now and then, else a save that creates the record when
        /// this device does not hold it and updates it when it does. `nil` when DataStore refused
        /// it (a note whose folder this device does not hold is not made).
        private func operate(
            _ sequence: Int,
            _ random: inout ChaosRandom,
            on plugin: AWSDataStorePlugin,
            tombstones: ChaosStores.Tombstones
        ) async throws -> OperationLogEntry? {
            let write = OperationLogEntry.write(device: device, incarnation: incarnation, sequence: sequence)
            var entry = write.entry
            let op = write.op
            let label = "device \(device) operation \(sequence)"
            do {
                if random.next(below: 10) < 3 {
                    let id = try tombstones.current("Folder", slot: "f\(random.next(below: folders))")
                    entry.model = "Folder"
                    entry.id = id
                    let existing = try await plugin.query(Folder.self, byId: id)
                    if random.next(below: 100) < 4 {
                        guard existing != nil else { return nil }
                        try await plugin.delete(Folder.self, withId: id, where: nil)
                        entry.kind = .delete
                        return entry
                    }
                    var folder = existing ?? Folder(id: id, name: "", ops: [])
                    folder.name = label
                    folder.ops = [op]
                    entry.kind = existing == nil ? .create : .update
                    entry.values = ["name": label]
                    _ = try await plugin.save(folder, where: nil)
                    return entry
                }
                let id = try tombstones.current("Note", slot: "n\(random.next(below: notes))")
                entry.model = "Note"
                entry.id = id
                let existing = try await plugin.query(Note.self, byId: id)
                if random.next(below: 100) < 8 {
                    guard existing != nil else { return nil }
                    try await plugin.delete(Note.self, withId: id, where: nil)
                    entry.kind = .delete
                    return entry
                }
                var note: Note
                if let existing {
                    note = existing
                    entry.kind = .update
                } else {
                    let folderID = try tombstones.current("Folder", slot: "f\(random.next(below: folders))")
                    guard let folder = try await plugin.query(Folder.self, byId: folderID) else { return nil }
                    note = Note(id: id, title: "", ops: [], folder: folder)
                    entry.kind = .create
                }
                note.title = label
                note.ops = [op]
                entry.values = ["title": label, "folderID": note.folderID ?? ""]
                _ = try await plugin.save(note, where: nil)
                return entry
            } catch let error as DataStoreError {
                // Not acknowledged: not logged.
                FileHandle.standardError.write(Data("\(label) refused: \(error)\n".utf8))
                return nil
            }
        }
    }

    /// A device's API plugin that writes a `heard` line for each record its subscriptions
    /// deliver, before DataStore sees it (DataStore drops what is older than what it holds).
    final class HeardAPI: APICategory {
        private let api: any APICategory
        private let device: Int
        private let incarnation: Int
        private let write: @Sendable (OperationLogEntry) -> Void
        private let calls = Mutex(0)

        init(
            api: any APICategory,
            device: Int,
            incarnation: Int,
            write: @escaping @Sendable (OperationLogEntry) -> Void
        ) {
            self.api = api
            self.device = device
            self.incarnation = incarnation
            self.write = write
        }

        func query<R: Decodable>(request: GraphQLRequest<R>) async throws -> GraphQLResponse<R> {
            try await api.query(request: request)
        }

        func mutate<R: Decodable>(request: GraphQLRequest<R>) async throws -> GraphQLResponse<R> {
            try await api.mutate(request: request)
        }

        func send(_ method: RESTMethod, request: RESTRequest) async throws -> APIResponse {
            try await api.send(method, request: request)
        }

        func subscribe<R: Decodable & Sendable>(
            request: GraphQLRequest<R>
        ) -> AmplifyAsyncThrowingSequence<GraphQLSubscriptionEvent<R>> {
            let inner = api.subscribe(request: request)
            let subscription = HeardSubscription(
                field: request.decodePath ?? "subscription",
                number: calls.withLock {
                    $0 += 1
                    return $0
                },
                device: device,
                incarnation: incarnation,
                write: write
            )
            let outer = AmplifyAsyncThrowingSequence<GraphQLSubscriptionEvent<R>>(onTermination: { inner.cancel() })
            Task {
                do {
                    for try await event in inner {
                        switch event {
                        case .connection(.connected): subscription.connected()
                        case .data(.success(let value)):
                            let item = value as? JSONValue
                            subscription.heard(id: item?["id"]?.stringValue, version: item?["_version"]?.intValue)
                        default: break
                        }
                        outer.send(event)
                    }
                    outer.finish()
                } catch {
                    outer.finish(throwing: error)
                }
            }
            return outer
        }
    }

    /// The random numbers of one operation of one device: SplitMix64 seeded by the run's seed,
    /// the device and the operation's position, so a restarted device makes the same operations
    /// and a seed replays the same run.
    struct ChaosRandom {
        private var state: UInt64

        init(_ seed: UInt64, _ stream: Int, _ position: Int) {
            state =
                seed &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: stream) &<< 40
                ^ UInt64(truncatingIfNeeded: position)
            _ = next()
        }

        /// The next 64 random bits.
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        /// A number in `0..<bound`.
        mutating func next(below bound: Int) -> Int {
            precondition(bound > 0, "ChaosRandom.next(below:) needs a positive bound.")
            return Int(next() % UInt64(bound))
        }
    }
#endif
