import Testing

@testable import StratusBench

/// The chaos harness's checks on hand-made logs, journals and stores: what counts as lost,
/// duplicated and diverged, and what excuses a write that never reached the backend.
@Suite struct ChaosCheckTests {
    static func write(
        _ sequence: Int,
        _ kind: OperationLogEntry.Kind,
        _ model: String = "Folder",
        _ id: String = "f0",
        device: Int = 0,
        values: [String: String]? = nil
    ) -> OperationLogEntry {
        OperationLogEntry(
            entry: .write,
            device: device,
            incarnation: 0,
            sequence: sequence,
            kind: kind,
            model: model,
            id: id,
            op: "d\(device).0.\(sequence)",
            values: values
        )
    }

    static func folder(_ ops: String, version: Int, deleted: Bool = false) -> ChaosRecord {
        ChaosRecord(model: "Folder", id: "f0", values: ["name": "n", "ops": ops], version: version, deleted: deleted)
    }

    /// A note whose folder, `f9`, the backend does not hold.
    static let orphan = ChaosRecord(
        model: "Note",
        id: "n0",
        values: ["title": "t", "ops": "d0.0.1", "folderID": "f9"],
        version: 1,
        deleted: false
    )

    static func entry(_ ops: [String], version: Int, deleted: Bool = false) -> ChaosJournalEntry {
        ChaosJournalEntry(key: ChaosKey(model: "Folder", id: "f0"), version: version, deleted: deleted, ops: ops)
    }

    @Test func aWriteInTheJournalIsNotLost() {
        let final = Self.folder("d0.0.1", version: 2)
        let check = ChaosCheck(
            logs: [0: [Self.write(0, .create), Self.write(1, .update)]],
            journal: [Self.entry(["d0.0.0"], version: 1), Self.entry(["d0.0.1"], version: 2)],
            backend: [final.key: final],
            devices: [0: ChaosDeviceState(records: [final.key: final], outbox: 0)]
        )
        #expect(check.passed)
        #expect(check.acknowledged == 2)
        #expect(check.applied == 2)
    }

    @Test func aLastWriteMissingFromTheJournalIsLost() {
        let final = Self.folder("d0.0.0", version: 1)
        let check = ChaosCheck(
            logs: [0: [Self.write(0, .create), Self.write(1, .update)]],
            journal: [Self.entry(["d0.0.0"], version: 1)],
            backend: [final.key: final],
            devices: [0: ChaosDeviceState(records: [final.key: final], outbox: 0)]
        )
        #expect(
            check.lost == [
                "device 0: the update d0.0.1 of Folder f0 is in no journal entry; the backend has "
                    + "Folder f0 [name=n ops=d0.0.0] _version 1"
            ]
        )
    }

    @Test func aWriteSupersededByALaterWriteOrAConflictIsNotLost() {
        let final = Self.folder("d0.0.2", version: 1)
        var conflict = OperationLogEntry(entry: .conflict, device: 1, incarnation: 0, model: "Folder", id: "f0")
        conflict.op = "d1.0.0"
        let check = ChaosCheck(
            logs: [
                0: [Self.write(0, .create), Self.write(1, .update), Self.write(2, .update)],
                1: [Self.write(0, .update, device: 1), conflict],
            ],
            journal: [Self.entry(["d0.0.2"], version: 1)],
            backend: [final.key: final],
            devices: [:]
        )
        #expect(check.lost.isEmpty)
    }

    @Test func aWriteMergedByAutomergeIsAppliedAndItsReplayIsADuplicate() {
        let journal = [
            Self.entry(["d0.0.0"], version: 1), Self.entry(["d0.0.0", "d1.0.0"], version: 2),
            Self.entry(["d0.0.0", "d1.0.0"], version: 3),
        ]
        let check = ChaosCheck(
            logs: [1: [Self.write(0, .update, device: 1)]],
            journal: journal,
            backend: [:],
            devices: [:]
        )
        #expect(check.lost.isEmpty)
        #expect(check.duplicated == ["Folder f0: the write d1.0.0 is in more than one journal entry"])
    }

    @Test func aTombstoneIsNotADuplicateAndADeleteTheBackendUndidIsLost() {
        let live = Self.folder("d0.0.0", version: 1)
        let check = ChaosCheck(
            logs: [0: [Self.write(0, .create), Self.write(1, .delete)]],
            journal: [Self.entry(["d0.0.0"], version: 1), Self.entry(["d0.0.0"], version: 2, deleted: true)],
            backend: [live.key: live],
            devices: [:]
        )
        #expect(check.duplicated.isEmpty)
        #expect(
            check.lost == [
                "device 0: the delete d0.0.1 of Folder f0, but the backend has Folder f0 [name=n ops=d0.0.0] _version 1"
            ]
        )
    }

    @Test func aDeviceThatDiffersOrHoldsAnOrphanDiverges() {
        let backend = Self.folder("d0.0.0", version: 2)
        let stale = Self.folder("d0.0.0", version: 1)
        let orphan = Self.orphan
        let check = ChaosCheck(
            logs: [:],
            journal: [],
            backend: [backend.key: backend, orphan.key: orphan],
            devices: [0: ChaosDeviceState(records: [stale.key: stale, orphan.key: orphan], outbox: 1)]
        )
        #expect(check.orphans == 1)
        #expect(
            check.diverged == [
                "device 0: Folder f0 [name=n ops=d0.0.0] _version 1, backend: Folder f0 [name=n ops=d0.0.0] _version 2",
                "device 0 holds Note n0 [folderID=f9 ops=d0.0.1 title=t] _version 1, whose folder the backend does not hold",
            ]
        )
        #expect(check.outboxes == ["device 0 has 1 changes in its outbox"])
    }

    @Test func aTombstoneTheBackendLacksOrAnUnconfirmedDeleteDiverges() {
        // DataStore keeps no tombstone of a record whose create and delete its outbox dropped
        // unsent; one the device holds is of a record the backend should hold too.
        let unsent = ChaosRecord(model: "Note", id: "n6.10", values: [:], version: nil, deleted: true)
        let live = Self.folder("d0.0.0", version: 2)
        var versioned = unsent
        versioned.version = 3
        func check(_ held: ChaosRecord, backend: [ChaosRecord] = []) -> ChaosCheck {
            ChaosCheck(
                logs: [:],
                journal: [],
                backend: Dictionary(uniqueKeysWithValues: backend.map { ($0.key, $0) }),
                devices: [0: ChaosDeviceState(records: [held.key: held], outbox: 0)]
            )
        }
        #expect(check(unsent).diverged == ["device 0: Note n6.10 [] _version nil _deleted, backend: no Note n6.10"])
        #expect(check(versioned).diverged == ["device 0: Note n6.10 [] _version 3 _deleted, backend: no Note n6.10"])
        #expect(check(versioned, backend: [versioned]).passed)
        // A device's unconfirmed delete of a record the backend holds live diverges.
        var deletedFolder = live
        deletedFolder.deleted = true
        deletedFolder.version = nil
        #expect(check(deletedFolder, backend: [live]).diverged.count == 1)
    }

    @Test func anAppSyncCacheHoldsAnOrphanAsTheBackendDoes() {
        let orphan = Self.orphan
        var older = orphan
        older.version = 0
        func check(_ held: ChaosRecord?) -> ChaosCheck {
            let records = held.map { [$0.key: $0] } ?? [:]
            return ChaosCheck(
                logs: [:],
                journal: [],
                backend: [orphan.key: orphan],
                devices: [1: ChaosDeviceState(records: records, outbox: 0, holdsOrphans: true)]
            )
        }
        #expect(check(orphan).passed)
        #expect(check(orphan).orphans == 1)
        #expect(
            check(nil).diverged == [
                "device 1: no Note n0, backend: Note n0 [folderID=f9 ops=d0.0.1 title=t] _version 1"
            ]
        )
        #expect(
            check(older).diverged == [
                "device 1: Note n0 [folderID=f9 ops=d0.0.1 title=t] _version 0, backend: Note n0 [folderID=f9 "
                    + "ops=d0.0.1 title=t] _version 1"
            ]
        )
    }
}

extension ChaosCheckTests {
    @Test func aConflictOfAnotherWriteExcusesNothing() {
        var conflict = OperationLogEntry(entry: .conflict, device: 0, incarnation: 0, model: "Folder", id: "f0")
        conflict.op = "d0.0.0"
        let check = ChaosCheck(
            logs: [0: [Self.write(0, .create), conflict, Self.write(1, .update), conflict]],
            journal: [],
            backend: [:],
            devices: [:]
        )
        #expect(check.settledByConflict == 1)
        #expect(
            check.lost == [
                "device 0: the update d0.0.1 of Folder f0 is in no journal entry; the backend has no such record"
            ]
        )
    }
}
