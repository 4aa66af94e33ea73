/// A record as one side holds it at the end of a chaos run: its fields as text, its `_version`
/// and whether it is a tombstone.
struct ChaosRecord: Sendable, Hashable, CustomStringConvertible {
    var model: String
    var id: String
    /// `name` or `title`, `ops` (its ids joined by commas) and, for a note, `folderID`.
    var values: [String: String]
    var version: Int?
    var deleted: Bool

    var key: ChaosKey { ChaosKey(model: model, id: id) }

    var description: String {
        let fields = values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        return "\(model) \(id) [\(fields)] _version \(version.map(String.init) ?? "nil")\(deleted ? " _deleted" : "")"
    }
}

/// A record's model and id.
struct ChaosKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    var model: String
    var id: String

    static func < (lhs: ChaosKey, rhs: ChaosKey) -> Bool { (lhs.model, lhs.id) < (rhs.model, rhs.id) }
    var description: String { "\(model) \(id)" }
}

/// One entry of the backend's delta journal: a committed change of a record, in commit order.
struct ChaosJournalEntry: Sendable, Hashable {
    var key: ChaosKey
    var version: Int?
    var deleted: Bool
    /// The record's `ops` after the change.
    var ops: [String]
    /// The record's other fields after the change (those ``ChaosStores/fields`` names).
    var values: [String: String] = [:]
}

/// What a device holds at the end: its records (live rows with their metadata, and tombstones
/// it knows of as metadata only) and how many changes its outbox still holds.
struct ChaosDeviceState: Sendable {
    var records: [ChaosKey: ChaosRecord]
    var outbox: Int
    /// Whether the device holds a note whose folder it does not hold (an `AWSAppSyncClient`
    /// cache does; DataStore keeps such a note aside).
    var holdsOrphans = false
}

/// The checks of a chaos run, on what the devices logged, what the backend committed (its
/// journal and its records) and what each device holds.
///
/// - **Diverged**: a device's records differ from the backend's: each field, `_version` and
///   `_deleted` (a tombstone by its `_version` only). A backend record a device cannot hold (a note whose folder is deleted or
///   missing: DataStore keeps such a child aside until its parent comes) must be absent from
///   the device; such records are counted as `orphans`.
/// - **Lost**: an acknowledged create or update whose operation id is not the last id of `ops`
///   in any live journal entry of its record (a direct write leaves `[id]`, a write merged by
///   automerge appends its id), unless it was superseded: the same device acknowledged a later
///   write of that record (the outbox sends only the newest change of a record) or a delete of
///   the note's folder (a cascade), the device logged a conflict or refusal of the outbox event
///   that carried the write (its record's `ops` ends with the write's id; the device kept the
///   backend's record), or the backend holds the record
///   as a tombstone (a delete is final; these are counted apart as `supersededByDelete`). An
///   acknowledged delete is lost when the backend's record is live at the end, unless the
///   device logged a conflict or refusal of that record after it, or it deleted the device's
///   own create that never reached the backend (``deletesOwnUnsentCreate(_:of:applied:)``;
///   counted as `cancelledCreates`).
/// - **Duplicated**: an operation id that is the last id of `ops` of more than one live journal
///   entry: the backend applied that write twice (a replay under automerge merges into a new
///   version that ends with the same id; under optimistic concurrency every entry is a write as
///   sent).
/// - **Outboxes**: a device whose outbox is not empty.
/// - **Out of order**: a subscription connection that delivered a record's `_version` lower
///   than or equal to one it delivered before (see ``ChaosOrder``).
/// - **Misresolved**: a journal entry that a conflict resolution wrote (its `ops` holds more
///   than one id; devices write one) that does not follow the strategy. Under AUTOMERGE and the
///   custom rule (``ChaosConflictRule``) it is the record's previous entry, live, with the
///   incoming write's id appended to `ops` and `_version` one higher; AUTOMERGE keeps the
///   previous entry's text field, the custom rule takes the one the write's device logged.
///   Under OPTIMISTIC_CONCURRENCY no such entry exists: every conflict is rejected.
struct ChaosCheck: Sendable {
    var lost: [String] = []
    var duplicated: [String] = []
    var diverged: [String] = []
    var outboxes: [String] = []
    var outOfOrder: [String] = []
    var misresolved: [String] = []
    /// Deliveries the order check saw.
    var heard = 0
    /// Journal entries a conflict resolution wrote.
    var resolved = 0
    var orphans = 0
    var supersededByDelete = 0
    var cancelledCreates = 0
    /// Acknowledged writes excused by a later write of the same device (or a cascade).
    var superseded = 0
    /// Acknowledged writes excused by a conflict or refusal the device logged after them.
    var settledByConflict = 0
    var applied = 0
    var acknowledged = 0

    /// `record` as compared: a tombstone by its `_version` alone.
    static func comparable(_ record: ChaosRecord) -> ChaosRecord {
        guard record.deleted else { return record }
        var tombstone = record
        tombstone.values = [:]
        return tombstone
    }

    var passed: Bool {
        lost.isEmpty && duplicated.isEmpty && diverged.isEmpty && outboxes.isEmpty && outOfOrder.isEmpty
            && misresolved.isEmpty
    }

    /// Checks a run; `heard` holds each listener's deliveries (by its name, in the order heard),
    /// and `conflicts` the strategy whose resolutions are checked (none when `nil`).
    init(
        logs: [Int: [OperationLogEntry]],
        journal: [ChaosJournalEntry],
        backend: [ChaosKey: ChaosRecord],
        devices: [Int: ChaosDeviceState],
        heard: [String: [OperationLogEntry]] = [:],
        conflicts: ChaosOptions.Conflicts? = nil
    ) {
        for (listener, lines) in heard.sorted(by: { $0.key < $1.key }) {
            self.heard += lines.count { $0.entry == .heard }
            outOfOrder += ChaosOrder.violations(lines, listener: listener)
        }
        if let conflicts { checkResolutions(journal, logs: logs, conflicts: conflicts) }
        checkDuplicates(journal)
        checkLoss(logs: logs, journal: journal, backend: backend)
        checkDivergence(backend: backend, devices: devices)
        for (device, state) in devices.sorted(by: { $0.key < $1.key }) where state.outbox > 0 {
            outboxes.append("device \(device) has \(state.outbox) changes in its outbox")
        }
    }

    private mutating func checkResolutions(
        _ journal: [ChaosJournalEntry],
        logs: [Int: [OperationLogEntry]],
        conflicts: ChaosOptions.Conflicts
    ) {
        var logged: [String: [String: String]] = [:]
        for entries in logs.values {
            for entry in entries where entry.entry == .write {
                if let op = entry.op, let values = entry.values { logged[op] = values }
            }
        }
        var previous: [ChaosKey: ChaosJournalEntry] = [:]
        for entry in journal {
            defer { previous[entry.key] = entry }
            guard !entry.deleted, entry.ops.count > 1, let op = entry.ops.last else { continue }
            resolved += 1
            let version = entry.version.map(String.init) ?? "nil"
            let this = "\(entry.key) _version \(version) ops \(entry.ops.joined(separator: ","))"
            guard conflicts != .optimistic else {
                misresolved.append("\(this): optimistic concurrency rejects conflicts, but this is a merge")
                continue
            }
            guard let before = previous[entry.key], !before.deleted else {
                misresolved.append("\(this): a resolution, but the record's previous entry is not a live record")
                continue
            }
            let expected = before.ops + [op]
            let field = ChaosConflictRule.incomingField[entry.key.model] ?? ""
            let text =
                switch conflicts {
                case .custom: logged[op]?[field]
                default: before.values[field]
                }
            if entry.ops != expected || entry.version != before.version.map({ $0 + 1 }) {
                misresolved.append(
                    "\(this): the resolution of \(op) should be ops \(expected.joined(separator: ",")) at _version "
                        + "\(before.version.map { String($0 + 1) } ?? "nil")"
                )
            } else if let text, entry.values[field] != text {
                misresolved.append(
                    "\(this): the resolution of \(op) should have \(field) '\(text)', not "
                        + "'\(entry.values[field] ?? "nil")'"
                )
            }
        }
    }

    private mutating func checkDuplicates(_ journal: [ChaosJournalEntry]) {
        var seen: [String: Int] = [:]
        for entry in journal where !entry.deleted {
            guard let op = entry.ops.last else { continue }
            seen[op, default: 0] += 1
            if seen[op] == 2 {
                duplicated.append("\(entry.key): the write \(op) is in more than one journal entry")
            }
        }
        applied = seen.count
    }

    private mutating func checkLoss(
        logs: [Int: [OperationLogEntry]],
        journal: [ChaosJournalEntry],
        backend: [ChaosKey: ChaosRecord]
    ) {
        let appliedOps = Set(journal.filter { !$0.deleted }.compactMap(\.ops.last))
        for (device, entries) in logs.sorted(by: { $0.key < $1.key }) {
            for (index, entry) in entries.enumerated() where entry.entry == .write {
                guard let kind = entry.kind, let model = entry.model, let id = entry.id, let op = entry.op else {
                    continue
                }
                acknowledged += 1
                let key = ChaosKey(model: model, id: id)
                let later = entries[(index + 1)...]
                if kind == .delete {
                    // A delete's conflict or refusal names the record, not the delete.
                    let settled = later.contains {
                        ($0.entry == .conflict || $0.entry == .rejected) && $0.model == model && $0.id == id
                    }
                    if settled {
                        settledByConflict += 1
                        continue
                    }
                    if Self.deletesOwnUnsentCreate(entries[..<index], of: key, applied: appliedOps) {
                        cancelledCreates += 1
                        continue
                    }
                    if let record = backend[key], !record.deleted {
                        lost.append("device \(device): the delete \(op) of \(key), but the backend has \(record)")
                    }
                    continue
                }
                if appliedOps.contains(op) { continue }
                // The conflict or refusal of the outbox event that carried this write.
                if later.contains(where: { ($0.entry == .conflict || $0.entry == .rejected) && $0.op == op }) {
                    settledByConflict += 1
                    continue
                }
                let rewritten = later.contains { $0.entry == .write && $0.model == model && $0.id == id }
                let folder = entry.values?["folderID"]
                let cascaded = later.contains {
                    $0.entry == .write && $0.kind == .delete && $0.model == "Folder" && $0.id == folder
                }
                if rewritten || cascaded {
                    superseded += 1
                    continue
                }
                if backend[key]?.deleted == true {
                    supersededByDelete += 1
                    continue
                }
                lost.append(
                    "device \(device): the \(kind.rawValue) \(op) of \(key) is in no journal entry; the backend has "
                        + (backend[key].map(String.init(describing:)) ?? "no such record")
                )
            }
        }
    }

    /// Whether a delete of `key` follows a create of it by the same device (`before` holds that
    /// device's earlier lines) none of whose writes since reached the backend: the outbox drops a
    /// create and a delete of a record never sent, so the delete of the device's own record
    /// never reaches the backend's record of the same id (which another device made).
    static func deletesOwnUnsentCreate(
        _ before: ArraySlice<OperationLogEntry>,
        of key: ChaosKey,
        applied: Set<String>
    ) -> Bool {
        for entry in before.reversed() where entry.entry == .write && entry.model == key.model && entry.id == key.id {
            if entry.kind == .delete || applied.contains(entry.op ?? "") { return false }
            if entry.kind == .create { return true }
        }
        return false
    }

    private mutating func checkDivergence(backend: [ChaosKey: ChaosRecord], devices: [Int: ChaosDeviceState]) {
        let liveFolders = Set(backend.values.filter { $0.model == "Folder" && !$0.deleted }.map(\.id))
        let orphaned = Set(
            backend.values.filter {
                $0.model == "Note" && !$0.deleted && !liveFolders.contains($0.values["folderID"] ?? "")
            }
            .map(\.key)
        )
        orphans = orphaned.count
        for (device, state) in devices.sorted(by: { $0.key < $1.key }) {
            for key in Set(backend.keys).union(state.records.keys).sorted() {
                let theirs = backend[key]
                let mine = state.records[key]
                if orphaned.contains(key), !state.holdsOrphans {
                    if let mine, !mine.deleted {
                        diverged.append("device \(device) holds \(mine), whose folder the backend does not hold")
                    }
                    continue
                }
                // A tombstone's fields are the last ones the backend held; devices keep its metadata.
                guard mine.map(Self.comparable) != theirs.map(Self.comparable) else { continue }
                diverged.append(
                    "device \(device): \(mine.map(String.init(describing:)) ?? "no \(key)"), backend: "
                        + (theirs.map(String.init(describing:)) ?? "no \(key)")
                )
            }
        }
    }
}
