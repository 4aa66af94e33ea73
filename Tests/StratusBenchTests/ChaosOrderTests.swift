import Foundation
import Synchronization
import Testing

@testable import StratusBench

/// The order check on hand-made `heard` lines, and the custom conflict rule and the check of
/// conflict outcomes on hand-made journals.
@Suite struct ChaosOrderTests {
    static func heard(
        _ id: String,
        _ version: Int?,
        subscription: String = "onUpdateFolder#2",
        connection: Int = 0,
        incarnation: Int = 0
    ) -> OperationLogEntry {
        OperationLogEntry(
            entry: .heard,
            device: 0,
            incarnation: incarnation,
            model: "Folder",
            id: id,
            version: version,
            subscription: subscription,
            connection: connection
        )
    }

    @Test func risingVersionsOfEachRecordAreInOrder() {
        let lines = [
            Self.heard("f0", 1), Self.heard("f1", 5), Self.heard("f0", 2), Self.heard("f1", 6), Self.heard("f0", 4),
        ]
        #expect(ChaosOrder.violations(lines, listener: "device 0").isEmpty)
    }

    @Test func aLowerOrEqualVersionOnTheSameConnectionIsOutOfOrder() {
        let lines = [Self.heard("f0", 3), Self.heard("f0", 2), Self.heard("f0", 4), Self.heard("f0", 4)]
        #expect(
            ChaosOrder.violations(lines, listener: "device 0") == [
                "device 0 heard Folder f0 _version 2 after _version 3 on onUpdateFolder#2 (process 0, connection 0)",
                "device 0 heard Folder f0 _version 4 after _version 4 on onUpdateFolder#2 (process 0, connection 0)",
            ]
        )
    }

    @Test func anotherConnectionSubscriptionOrProcessStartsAfresh() {
        let lines = [
            Self.heard("f0", 3),
            Self.heard("f0", 3, connection: 1),
            Self.heard("f0", 2, subscription: "onUpdateFolder#5"),
            Self.heard("f0", 1, subscription: "onCreateFolder#1"),
            Self.heard("f0", 3, incarnation: 1),
        ]
        #expect(ChaosOrder.violations(lines, listener: "device 0").isEmpty)
    }

    @Test func aDeliveryWithoutAVersionIsReported() {
        #expect(
            ChaosOrder.violations([Self.heard("f0", nil)], listener: "observer") == [
                "observer heard Folder f0 without a _version on onUpdateFolder#2 (process 0, connection 0)"
            ]
        )
    }

    @Test func theCheckCountsDeliveriesAndFailsOnOneOutOfOrder() {
        let inOrder = ChaosCheck(
            logs: [:],
            journal: [],
            backend: [:],
            devices: [:],
            heard: ["device 0": [Self.heard("f0", 1), Self.heard("f0", 2)], "observer": [Self.heard("f0", 2)]]
        )
        #expect(inOrder.passed)
        #expect(inOrder.heard == 3)
        let late = ChaosCheck(
            logs: [:],
            journal: [],
            backend: [:],
            devices: [:],
            heard: ["device 0": [Self.heard("f0", 2), Self.heard("f0", 1)], "observer": [Self.heard("f0", 2)]]
        )
        #expect(!late.passed)
        #expect(
            late.outOfOrder == [
                "device 0 heard Folder f0 _version 1 after _version 2 on onUpdateFolder#2 (process 0, connection 0)"
            ]
        )
    }

    @Test func eachAcknowledgementOfASubscriptionBeginsANewConnection() {
        let lines = Mutex<[OperationLogEntry]>([])
        let subscription = HeardSubscription(field: "onDeleteNote", number: 6, device: 2, incarnation: 3) { line in
            lines.withLock { $0.append(line) }
        }
        subscription.connected()
        subscription.heard(id: "n1", version: 4)
        subscription.connected()
        subscription.heard(id: "n1", version: 4)
        #expect(
            lines.withLock { $0 } == [
                OperationLogEntry(
                    entry: .heard,
                    device: 2,
                    incarnation: 3,
                    model: "Note",
                    id: "n1",
                    version: 4,
                    subscription: "onDeleteNote#6",
                    connection: 0
                ),
                OperationLogEntry(
                    entry: .heard,
                    device: 2,
                    incarnation: 3,
                    model: "Note",
                    id: "n1",
                    version: 4,
                    subscription: "onDeleteNote#6",
                    connection: 1
                ),
            ]
        )
        // Heard again on the new connection: not out of order.
        #expect(ChaosOrder.violations(lines.withLock { $0 }, listener: "device 2").isEmpty)
    }

    // MARK: - Conflict outcomes

    static func answer(_ payload: String) throws -> String {
        try ChaosConflictRule.answer(Data(payload.utf8))
    }

    @Test func theCustomRuleAppendsTheIncomingIdAndTakesTheIncomingText() throws {
        let payload = #"""
            {"typeName": "Note", "resolver": "updateNote",
             "newItem": {"id": "n0", "title": "device 1 operation 7", "ops": ["d1.0.7"], "folderID": "f0", "_version": 2},
             "existingItem": {"id": "n0", "title": "device 0 operation 3", "ops": ["d0.0.3"], "folderID": "f1",
                              "_version": 3, "_deleted": null, "__typename": "Note"},
             "arguments": {}, "identity": {"authorizationMode": "API_KEY", "claims": {}}}
            """#
        #expect(
            try Self.answer(payload)
                == #"{"action":"RESOLVE","resolvedItem":{"id":"n0","title":"device 1 operation 7","ops":["d0.0.3","d1.0.7"],"#
                + #""folderID":"f1","_version":3,"_deleted":null,"__typename":"Note"}}"#
        )
    }

    @Test func theCustomRuleRejectsDeletesAndUpdatesOfTombstones() throws {
        let delete = #"""
            {"typeName": "Folder", "resolver": "deleteFolder", "newItem": {"id": "f0", "_version": 1},
             "existingItem": {"id": "f0", "name": "x", "ops": ["d0.0.1"], "_version": 2}}
            """#
        #expect(try Self.answer(delete) == #"{"action":"REJECT"}"#)
        let tombstone = #"""
            {"typeName": "Folder", "resolver": "updateFolder", "newItem": {"id": "f0", "name": "y", "ops": ["d1.0.2"]},
             "existingItem": {"id": "f0", "name": "x", "ops": ["d0.0.1"], "_version": 3, "_deleted": true}}
            """#
        #expect(try Self.answer(tombstone) == #"{"action":"REJECT"}"#)
        #expect(throws: ChaosError.self) { try Self.answer(#"{"typeName": "Folder"}"#) }
    }

    static func entry(_ ops: [String], version: Int, name: String) -> ChaosJournalEntry {
        ChaosJournalEntry(
            key: ChaosKey(model: "Folder", id: "f0"),
            version: version,
            deleted: false,
            ops: ops,
            values: ["name": name]
        )
    }

    static let logs: [Int: [OperationLogEntry]] = [
        1: [
            OperationLogEntry(
                entry: .write,
                device: 1,
                incarnation: 0,
                sequence: 4,
                kind: .update,
                model: "Folder",
                id: "f0",
                op: "d1.0.4",
                values: ["name": "device 1 operation 4"]
            )
        ]
    ]

    static func misresolved(_ journal: [ChaosJournalEntry], _ conflicts: ChaosOptions.Conflicts) -> [String] {
        ChaosCheck(logs: logs, journal: journal, backend: [:], devices: [:], conflicts: conflicts).misresolved
    }

    @Test func resolutionsFollowTheStrategy() {
        let created = Self.entry(["d0.0.1"], version: 1, name: "device 0 operation 1")
        let custom = Self.entry(["d0.0.1", "d1.0.4"], version: 2, name: "device 1 operation 4")
        let merged = Self.entry(["d0.0.1", "d1.0.4"], version: 2, name: "device 0 operation 1")
        #expect(Self.misresolved([created, custom], .custom).isEmpty)
        #expect(Self.misresolved([created, merged], .automerge).isEmpty)
        #expect(
            Self.misresolved([created, merged], .custom) == [
                "Folder f0 _version 2 ops d0.0.1,d1.0.4: the resolution of d1.0.4 should have name "
                    + "'device 1 operation 4', not 'device 0 operation 1'"
            ]
        )
        #expect(
            Self.misresolved([created, custom], .automerge) == [
                "Folder f0 _version 2 ops d0.0.1,d1.0.4: the resolution of d1.0.4 should have name "
                    + "'device 0 operation 1', not 'device 1 operation 4'"
            ]
        )
        #expect(
            Self.misresolved([created, merged], .optimistic) == [
                "Folder f0 _version 2 ops d0.0.1,d1.0.4: optimistic concurrency rejects conflicts, but this is a merge"
            ]
        )
        let skipped = Self.entry(["d0.0.1", "d1.0.4"], version: 3, name: "device 1 operation 4")
        #expect(
            Self.misresolved([created, skipped], .custom) == [
                "Folder f0 _version 3 ops d0.0.1,d1.0.4: the resolution of d1.0.4 should be ops d0.0.1,d1.0.4 at "
                    + "_version 2"
            ]
        )
        let checked = ChaosCheck(
            logs: Self.logs,
            journal: [created, custom],
            backend: [:],
            devices: [:],
            conflicts: .custom
        )
        #expect(checked.resolved == 1)
    }
}
