#if STRATUS_BENCH_DATASTORE
    import AWSAppSync
    import Foundation
    import GRDB
    import StratusServer
    import StratusTesting

    /// Reads what the backend and the devices hold, for ``ChaosCheck``: the backend through its
    /// own sync queries and its journal table, a device from its database file, read-only while
    /// its DataStore runs.
    enum ChaosStores {
        /// The fields compared besides `ops`, by model.
        static let fields = ["Folder": ["name"], "Note": ["title", "folderID"]]

        /// Every record of the backend, tombstones included, from its `sync` queries.
        ///
        /// - Throws: ``ChaosError`` with the server's answer when a query fails.
        static func backendRecords(_ backend: LocalBackend) async throws -> [ChaosKey: ChaosRecord] {
            try await backendRecords(backend.server)
        }

        /// Every record `server` holds, tombstones included, from its `sync` queries.
        ///
        /// - Throws: ``ChaosError`` with the server's answer when a query fails.
        static func backendRecords(_ server: StratusServer) async throws -> [ChaosKey: ChaosRecord] {
            var records: [ChaosKey: ChaosRecord] = [:]
            for (model, plural) in [("Folder", "Folders"), ("Note", "Notes")] {
                let selection = (["id", "ops", "_version", "_deleted"] + fields[model, default: []]).joined(
                    separator: " "
                )
                let answer = await server.execute(
                    query: "{ sync\(plural)(limit: 1000000) { items { \(selection) } nextToken } }",
                    identity: .apiKey
                ).body
                guard let items = answer["data"]?["sync\(plural)"]?["items"]?.arrayValue else {
                    throw ChaosError("The backend's sync\(plural) failed: \(answer.text)")
                }
                for item in items {
                    guard let id = item["id"]?.stringValue else { continue }
                    var values: [String: String] = [:]
                    for field in fields[model, default: []] { values[field] = item[field]?.stringValue ?? "" }
                    values["ops"] = (item["ops"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: ",")
                    let record = ChaosRecord(
                        model: model,
                        id: id,
                        values: values,
                        version: item["_version"]?.intValue,
                        deleted: item["_deleted"]?.boolValue == true
                    )
                    records[record.key] = record
                }
            }
            return records
        }

        /// The backend's delta journal, in commit order.
        ///
        /// - Throws: ``ChaosError`` when an entry cannot be read.
        static func journal(_ backend: LocalBackend) throws -> [ChaosJournalEntry] {
            let queue = try readOnly(backend.dataDirectory.appendingPathComponent("stratus.sqlite"))
            return try queue.read { db in
                try Row.fetchAll(db, sql: "SELECT \"model\", \"item\" FROM \"_stratus_delta\" ORDER BY \"position\"")
                    .map { row in try journalEntry(model: row["model"], item: row["item"]) }
            }
        }

        /// The journal entry of a change of a `model` record to `item` (its JSON text).
        ///
        /// - Throws: ``ChaosError`` when `item` is not a record.
        static func journalEntry(model: String, item text: String) throws -> ChaosJournalEntry {
            guard let item = try? JSON(parsing: text), let id = item["id"]?.stringValue else {
                throw ChaosError("A journal entry of the backend is not a record: \(text)")
            }
            return ChaosJournalEntry(
                key: ChaosKey(model: model, id: id),
                version: item["_version"]?.intValue,
                deleted: item["_deleted"]?.boolValue == true,
                ops: (item["ops"]?.arrayValue ?? []).compactMap(\.stringValue),
                values: fields[model, default: []].reduce(into: [:]) { values, field in
                    values[field] = item[field]?.stringValue
                }
            )
        }

        /// What the device database at `url` holds: its live rows with their metadata, the
        /// tombstones of its metadata, and the size of its outbox.
        ///
        /// - Throws: what GRDB throws when the file cannot be read.
        static func device(at url: URL) throws -> ChaosDeviceState {
            let queue = try readOnly(url)
            return try queue.read { db in
                var metadata: [String: (version: Int?, deleted: Bool)] = [:]
                for row in try Row.fetchAll(
                    db,
                    sql: "SELECT \"id\", \"version\", \"deleted\" FROM \"_stratus_sync_metadata\""
                ) {
                    metadata[row["id"]] = (row["version"], (row["deleted"] as Int?) == 1)
                }
                var records: [ChaosKey: ChaosRecord] = [:]
                for (model, fields) in Self.fields {
                    let columns = (["id", "ops"] + fields).map { "\"\($0)\"" }.joined(separator: ", ")
                    for row in try Row.fetchAll(db, sql: "SELECT \(columns) FROM \"\(model)\"") {
                        let id: String = row["id"]
                        var values: [String: String] = [:]
                        for field in fields { values[field] = row[field] ?? "" }
                        let ops: String = row["ops"] ?? "[]"
                        guard let list = try? JSON(parsing: ops).arrayValue else {
                            throw ChaosError("\(model) '\(id)' of \(url.lastPathComponent) has ops \(ops), not a list.")
                        }
                        values["ops"] = list.compactMap(\.stringValue).joined(separator: ",")
                        let known = metadata.removeValue(forKey: "\(model)|\(id)")
                        let record = ChaosRecord(
                            model: model,
                            id: id,
                            values: values,
                            version: known?.version,
                            deleted: known?.deleted ?? false
                        )
                        records[record.key] = record
                    }
                }
                // Metadata without a row: tombstones, compared by version only. Metadata of a
                // record not held and not deleted (its backend record waits for a parent) is no
                // record.
                for (key, known) in metadata where known.deleted {
                    let parts = key.split(separator: "|", maxSplits: 1).map(String.init)
                    guard parts.count == 2 else { continue }
                    let record = ChaosRecord(
                        model: parts[0],
                        id: parts[1],
                        values: [:],
                        version: known.version,
                        deleted: known.deleted
                    )
                    records[record.key] = record
                }
                let outbox = try Int.fetchOne(db, sql: "SELECT count(*) FROM \"_stratus_outbox\"") ?? 0
                return ChaosDeviceState(records: records, outbox: outbox)
            }
        }

        /// What the `AWSAppSyncClient` device in `directory` holds: the `Folder:` and `Note:`
        /// records of its cache (tombstones with their fields), and how many mutations its
        /// offline queue still holds. Its cache keeps a note whose folder it does not hold.
        ///
        /// - Throws: ``ChaosError`` naming a record that is not one; the client's cache errors.
        static func appSyncDevice(at directory: URL) throws -> ChaosDeviceState {
            let cache = ChaosAppSyncDevice.cacheFile(in: directory)
            let queue = ChaosAppSyncDevice.queueFile(in: directory)
            let stored =
                FileManager.default.fileExists(atPath: cache.path) ? try ApolloStore.records(inDatabaseAt: cache) : [:]
            var records: [ChaosKey: ChaosRecord] = [:]
            for (key, fields) in stored {
                let parts = key.split(separator: ":", maxSplits: 1).map(String.init)
                guard parts.count == 2, let names = Self.fields[parts[0]] else { continue }
                guard let ops = fields["ops"]?.arrayValue else {
                    throw ChaosError("The cache record \(key) of \(directory.lastPathComponent) has no ops list.")
                }
                var values: [String: String] = [:]
                for field in names { values[field] = fields[field]?.stringValue ?? "" }
                values["ops"] = ops.compactMap(\.stringValue).joined(separator: ",")
                let record = ChaosRecord(
                    model: parts[0],
                    id: parts[1],
                    values: values,
                    version: fields["_version"]?.intValue,
                    deleted: fields["_deleted"]?.booleanValue == true
                )
                records[record.key] = record
            }
            let queued =
                FileManager.default.fileExists(atPath: queue.path)
                ? try OfflineMutationStore.queuedMutations(inDatabaseAt: queue).count : 0
            return ChaosDeviceState(records: records, outbox: queued, holdsOrphans: true)
        }

        /// The offline mutation queue of the `AWSAppSyncClient` device in `directory`, a line
        /// per mutation, for a run that did not settle.
        ///
        /// - Throws: the client's errors when the queue cannot be read.
        static func appSyncQueue(at directory: URL) throws -> [String] {
            let queue = ChaosAppSyncDevice.queueFile(in: directory)
            guard FileManager.default.fileExists(atPath: queue.path) else { return [] }
            return try OfflineMutationStore.queuedMutations(inDatabaseAt: queue).map { mutation in
                "\(mutation.operationName) \(mutation.id): \(mutation.requestBody)"
            }
        }

        /// The outbox of the device database at `url`, a line per change, for a run that did not
        /// settle: which record, what change, since when, and whether it is being sent.
        ///
        /// - Throws: what GRDB throws when the file cannot be read.
        static func outbox(at url: URL) throws -> [String] {
            try readOnly(url).read { db in
                try Row.fetchAll(
                    db,
                    sql: "SELECT \"modelName\", \"modelId\", \"mutationType\", \"createdAt\", \"inProcess\", "
                        + "\"json\" FROM \"_stratus_outbox\" ORDER BY \"sequence\""
                ).map { row in
                    let model: String = row["modelName"]
                    let id: String = row["modelId"]
                    let kind: String = row["mutationType"]
                    let since: String = row["createdAt"]
                    let sending: Bool = row["inProcess"]
                    let json: String = row["json"]
                    return "\(kind) \(model) \(id) since \(since)\(sending ? " (being sent)" : ""): \(json)"
                }
            }
        }

        /// Copies the backend's database to `url`, for a failed run's files.
        ///
        /// - Throws: what GRDB throws when a file cannot be read or written.
        static func copyBackend(_ backend: LocalBackend, to url: URL) throws {
            let source = try readOnly(backend.dataDirectory.appendingPathComponent("stratus.sqlite"))
            try source.backup(to: try DatabaseQueue(path: url.path))
        }

        /// The tombstones a DataStore device's database holds, read as the device runs.
        struct Tombstones: Sendable {
            let queue: DatabaseQueue

            /// Whether the device holds `model` `id` as a tombstone (its sync metadata says
            /// deleted).
            func holds(_ model: String, _ id: String) throws -> Bool {
                try queue.read { db in
                    try Bool.fetchOne(
                        db,
                        sql: "SELECT \"deleted\" FROM \"_stratus_sync_metadata\" WHERE \"id\" = ?",
                        arguments: ["\(model)|\(id)"]
                    ) ?? false
                }
            }

            /// The id of `slot` of `model` the device edits (``ChaosSlots/current(_:isTombstone:)``).
            func current(_ model: String, slot: String) throws -> String {
                try ChaosSlots.current(slot) { try holds(model, $0) }
            }
        }

        /// The tombstones of the DataStore database at `url`, which its device writes meanwhile.
        ///
        /// - Throws: what GRDB throws when the file cannot be opened.
        static func tombstones(ofDeviceAt url: URL) throws -> Tombstones {
            Tombstones(queue: try readOnly(url))
        }

        private static func readOnly(_ url: URL) throws -> DatabaseQueue {
            var configuration = Configuration()
            configuration.readonly = true
            return try DatabaseQueue(path: url.path, configuration: configuration)
        }
    }
#endif
