#if STRATUS_BENCH_DATASTORE
    import AWSAppSync
    import ChaosAPI
    import Foundation

    /// A device of a chaos run that uses `AWSAppSyncClient` rather than DataStore
    /// (`StratusBench chaos-device --client appsync ...`): its normalized cache and offline
    /// mutation queue in ``ChaosDevice/database`` (a directory), kept in step with the backend by
    /// one delta sync per model and subscription (a base `sync` query, the `sync` query with
    /// `lastSync` after a reconnect, and the subscription).
    ///
    /// Each operation reads the record from the cache, as an app shows it, and queues a create
    /// when the cache does not hold it, else an update or a delete carrying the cached
    /// `_version`. A write is acknowledged once `perform` queued it in `offlineMutations.db`. A
    /// conflict the server does not resolve is logged and cancelled (the device keeps the
    /// server's record, as DataStore's devices do with `applyRemote`); so is a mutation the
    /// server refuses. Mutations a killed process left queued are sent by the next one, whose
    /// offline mutation delegate logs their refusals; the write log names each write's queue id
    /// for that. Its own subscriptions to every model's creates, updates and deletes write what
    /// they deliver for the order check.
    struct ChaosAppSyncDevice {
        var options: ChaosDevice

        /// The cache key of a response object: `Folder:f1`.
        static let cacheKey: CacheKeyForObject = { object in
            guard let typename = object["__typename"]?.stringValue, let id = object["id"]?.stringValue else {
                return nil
            }
            return .string("\(typename):\(id)")
        }

        /// The cache file of the client in `directory`.
        static func cacheFile(in directory: URL) -> URL { directory.appendingPathComponent("queries.db") }
        /// The offline mutation queue of the client in `directory`.
        static func queueFile(in directory: URL) -> URL { directory.appendingPathComponent("offlineMutations.db") }

        /// Sets up the client and makes the operations after those `entries` (the log as this
        /// process found it) holds; see ``ChaosDevice/makeOperations(after:log:_:)``.
        func run(after entries: [OperationLogEntry], log: OperationLog) async throws {
            let writes = Dictionary(
                entries.compactMap { entry in entry.mutation.map { ($0, entry) } },
                uniquingKeysWith: { first, _ in first }
            )
            let delegate = ReplayedRefusals(
                writes: writes,
                log: log,
                device: options.device,
                incarnation: options.incarnation
            )
            try FileManager.default.createDirectory(at: options.database, withIntermediateDirectories: true)
            var configuration = try AWSAppSyncClientConfiguration(
                appSyncServiceConfig: AWSAppSyncServiceConfig(
                    endpoint: options.endpoint,
                    region: "us-east-1",
                    authType: .apiKey,
                    apiKey: options.apiKey
                ),
                cacheConfiguration: AWSAppSyncCacheConfiguration(withRootDirectory: options.database),
                offlineMutationDelegate: delegate
            )
            configuration.cacheKeyForObject = Self.cacheKey
            let skew = ChaosDevice.clockSkew(
                seed: options.seed,
                device: options.device,
                incarnation: options.incarnation
            )
            configuration.clock = { Date().addingTimeInterval(skew) }
            let client = try AWSAppSyncClient(appSyncConfig: configuration)
            // What the replayed mutations were answered, for a failed run's files.
            let replays = Task {
                for await result in client.offlineMutationResults {
                    let answer = result.error.map { "\($0)" } ?? result.errors?.map(\.message).joined(separator: "; ")
                    guard let answer else { continue }
                    FileHandle.standardError.write(
                        Data("\(Date()) replayed \(result.operationName) \(result.recordIdentifier): \(answer)\n".utf8)
                    )
                }
            }
            defer { replays.cancel() }
            let heard = try OperationLog(appendingTo: options.heard, synced: false)
            let listeners = listen(client, heard: heard)
            defer { for listener in listeners { listener.cancel() } }
            let syncs = startSyncs(client)
            defer { for sync in syncs { sync.cancel() } }
            try await options.makeOperations(after: entries, log: log) { sequence, random in
                try operate(sequence, &random, on: client, log: log)
            }
        }

        /// One delta sync per model and subscription, writing what they bring to the cache.
        private func startSyncs(_ client: AWSAppSyncClient) -> [any Cancellable] {
            let queue = DispatchQueue(label: "chaos.appsync.sync")
            // `sync` is both the base query and, with `lastSync` filled in, the delta query.
            func sync<Query: GraphQLQuery, S: GraphQLSubscription>(_ query: Query, _ subscription: S) -> any Cancellable
            {
                let name = S.operationName
                @Sendable func report(_ what: String, _ error: (any Error)?) {
                    if let error { FileHandle.standardError.write(Data("\(Date()) \(what): \(error)\n".utf8)) }
                }
                return client.sync(
                    baseQuery: query,
                    baseQueryResultHandler: { _, error in report("\(name) base", error) },
                    subscription: subscription,
                    subscriptionResultHandler: { _, _, error in report(name, error) },
                    deltaQuery: query,
                    deltaQueryResultHandler: { _, _, error in report("\(name) delta", error) },
                    callbackQueue: queue
                )
            }
            let (folders, notes) = (SyncFoldersQuery(limit: 1_000_000), SyncNotesQuery(limit: 1_000_000))
            return [
                sync(folders, OnCreateFolderSubscription()), sync(folders, OnUpdateFolderSubscription()),
                sync(folders, OnDeleteFolderSubscription()), sync(notes, OnCreateNoteSubscription()),
                sync(notes, OnUpdateNoteSubscription()), sync(notes, OnDeleteNoteSubscription()),
            ]
        }

        /// Subscribes with `client.subscribe(subscription:)` to each model's creates, updates and
        /// deletes, writing a `heard` line for each record delivered, for the order check
        /// (``ChaosOrder``): the client's own subscriptions, beside those of the delta syncs.
        private func listen(_ client: AWSAppSyncClient, heard: OperationLog) -> [Task<Void, Never>] {
            let (device, incarnation) = (options.device, options.incarnation)
            var number = 0
            func listen<S: GraphQLSubscription>(_ subscription: S) -> Task<Void, Never> {
                number += 1
                let name = S.operationName.prefix(1).lowercased() + S.operationName.dropFirst()
                let subscriber = HeardSubscription(
                    field: name,
                    number: number,
                    device: device,
                    incarnation: incarnation
                ) { entry in
                    heard.appendOrReport(entry)
                }
                return Task {
                    do {
                        for try await event in client.subscribe(subscription: subscription) {
                            switch event {
                            case .connection(.connected): subscriber.connected()
                            case .data(let result):
                                let item = result.data?.snapshot.values.compactMap(\.objectValue).first
                                subscriber.heard(id: item?["id"]?.stringValue, version: item?["_version"]?.intValue)
                            default: break
                            }
                        }
                    } catch {
                        FileHandle.standardError.write(Data("\(Date()) \(name) ended: \(error)\n".utf8))
                    }
                }
            }
            return [
                listen(OnCreateFolderSubscription()), listen(OnUpdateFolderSubscription()),
                listen(OnDeleteFolderSubscription()), listen(OnCreateNoteSubscription()),
                listen(OnUpdateNoteSubscription()), listen(OnDeleteNoteSubscription()),
            ]
        }

        /// The record `key` of the client's cache, a tombstone included.
        private func stored(_ key: String, in client: AWSAppSyncClient) throws -> [String: JSONValue]? {
            guard let store = client.store else { throw ChaosError("The AppSync client has no cache.") }
            return try store.withinReadTransaction { try $0.record(key) }.get()
        }

        /// The id of `slot` of `model` this device edits, the first generation its cache does
        /// not hold as a tombstone (``ChaosSlots``), and that record as the cache holds it (`nil`
        /// when it holds none).
        private func current(
            _ model: String,
            slot: String,
            in client: AWSAppSyncClient
        ) throws -> (id: String, record: [String: JSONValue]?) {
            var record: [String: JSONValue]?
            let id = try ChaosSlots.current(slot) { id in
                record = try stored("\(model):\(id)", in: client)
                return record?["_deleted"]?.booleanValue == true
            }
            return (id, record)
        }

        /// Queues operation `sequence` (see ``ChaosDevice``'s): `nil` when it is not made (a
        /// delete of a record the cache does not hold, a note whose folder it does not hold).
        private func operate(
            _ sequence: Int,
            _ random: inout ChaosRandom,
            on client: AWSAppSyncClient,
            log: OperationLog
        ) throws -> OperationLogEntry? {
            let (device, incarnation) = (options.device, options.incarnation)
            let write = OperationLogEntry.write(device: device, incarnation: incarnation, sequence: sequence)
            var entry = write.entry
            let op = write.op
            let label = "device \(device) operation \(sequence)"
            // Logs a conflict the server left to the client, or a refusal, and cancels it.
            func settle<M: GraphQLMutation>(_ mutation: M.Type, model: String, id: String) -> MutationConflictHandler<M>
            {
                { _, source, _ in
                    let line = OperationLogEntry(
                        entry: .conflict,
                        device: device,
                        incarnation: incarnation,
                        model: model,
                        id: id,
                        op: op,
                        resolution: "cancel"
                    )
                    log.appendOrReport(line)
                    _ = source?.trySetCancelled()
                }
            }
            @Sendable func refused<Result>(
                model: String,
                id: String
            ) -> @Sendable (GraphQLResult<Result>?, (any Error)?) -> Void {
                { result, error in
                    guard error != nil || result?.errors?.isEmpty == false else { return }
                    let line = OperationLogEntry(
                        entry: .rejected,
                        device: device,
                        incarnation: incarnation,
                        model: model,
                        id: id,
                        op: op,
                        resolution: "\(error.map { "\($0)" } ?? result?.errors?.first?.message ?? "")"
                    )
                    log.appendOrReport(line)
                }
            }
            // Queues `mutation` of record `model` `id`; its queue id.
            func send<M: GraphQLMutation>(_ mutation: M, _ model: String, _ id: String) -> String {
                client.perform(
                    mutation: mutation,
                    queue: .global(),
                    conflictResolutionBlock: settle(M.self, model: model, id: id),
                    resultHandler: refused(model: model, id: id)
                )
                .identifier
            }
            if random.next(below: 10) < 3 {
                let (id, existing) = try current("Folder", slot: "f\(random.next(below: options.folders))", in: client)
                entry.model = "Folder"
                entry.id = id
                let version = existing?["_version"]?.intValue
                if random.next(below: 100) < 4 {
                    guard existing != nil else { return nil }
                    entry.kind = .delete
                    entry.mutation = send(
                        DeleteFolderMutation(input: DeleteFolderInput(id: id, _version: version)),
                        "Folder",
                        id
                    )
                    return entry
                }
                entry.values = ["name": label]
                if existing == nil {
                    entry.kind = .create
                    entry.mutation = send(
                        CreateFolderMutation(input: CreateFolderInput(id: id, name: label, ops: [op])),
                        "Folder",
                        id
                    )
                } else {
                    entry.kind = .update
                    entry.mutation = send(
                        UpdateFolderMutation(
                            input: UpdateFolderInput(id: id, name: label, ops: [op], _version: version)
                        ),
                        "Folder",
                        id
                    )
                }
                return entry
            }
            let (id, existing) = try current("Note", slot: "n\(random.next(below: options.notes))", in: client)
            entry.model = "Note"
            entry.id = id
            let version = existing?["_version"]?.intValue
            if random.next(below: 100) < 8 {
                guard existing != nil else { return nil }
                entry.kind = .delete
                entry.mutation = send(DeleteNoteMutation(input: DeleteNoteInput(id: id, _version: version)), "Note", id)
                return entry
            }
            if let existing {
                let folderID = existing["folderID"]?.stringValue ?? ""
                entry.kind = .update
                entry.values = ["title": label, "folderID": folderID]
                entry.mutation = send(
                    UpdateNoteMutation(
                        input: UpdateNoteInput(id: id, title: label, ops: [op], _version: version)
                    ),
                    "Note",
                    id
                )
                return entry
            }
            let (folderID, folder) = try current("Folder", slot: "f\(random.next(below: options.folders))", in: client)
            guard folder != nil else { return nil }
            entry.kind = .create
            entry.values = ["title": label, "folderID": folderID]
            entry.mutation = send(
                CreateNoteMutation(
                    input: CreateNoteInput(id: id, title: label, ops: [op], folderID: folderID)
                ),
                "Note",
                id
            )
            return entry
        }
    }

    /// Logs the refusals of mutations an earlier process of the device queued, which the client
    /// sends after a restart with no handler of their own: a conflict or an error the server
    /// answered (no object in `data`), or a failure. It runs before the mutation leaves the
    /// queue, so a kill right after loses neither.
    final class ReplayedRefusals: AWSAppSyncOfflineMutationDelegate {
        private let writes: [String: OperationLogEntry]
        private let log: OperationLog
        private let device: Int
        private let incarnation: Int

        init(writes: [String: OperationLogEntry], log: OperationLog, device: Int, incarnation: Int) {
            self.writes = writes
            self.log = log
            self.device = device
            self.incarnation = incarnation
        }

        func mutationCallback(
            recordIdentifier: String,
            operationString: String,
            snapshot: Snapshot?,
            error: (any Error)?
        ) {
            let applied = snapshot?.values.contains { $0.objectValue != nil } == true
            guard error != nil || !applied, let write = writes[recordIdentifier] else { return }
            let line = OperationLogEntry(
                entry: .rejected,
                device: device,
                incarnation: incarnation,
                model: write.model,
                id: write.id,
                op: write.op,
                resolution: "replayed: \(error.map { "\($0)" } ?? "no object in the answer")"
            )
            log.appendOrReport(line)
        }
    }
#endif
