import Testing

@testable import StratusBench

/// The fan-out load generator's accounting: what counts as lost, duplicated, out of order and
/// unexpected, and the latency percentiles.
@Suite struct DeliveryLedgerTests {
    @Test func eachDeliveryIsCountedOnceAndWhatNeverCameIsLost() {
        var ledger = DeliveryLedger(mutations: 6)
        // Records 0 and 1 updated in turn: mutation m is update m / 2 + 1 of record m % 2.
        #expect(ledger.record(mutation: 0, record: 0, sequence: 1, latency: 1000) == .delivered)
        #expect(ledger.record(mutation: 1, record: 1, sequence: 1, latency: 2000) == .delivered)
        #expect(ledger.record(mutation: 0, record: 0, sequence: 1, latency: 9000) == .duplicate)
        #expect(ledger.record(mutation: 4, record: 0, sequence: 3, latency: 3000) == .delivered)
        // Record 0's second update after its third: new, but out of order.
        #expect(ledger.record(mutation: 2, record: 0, sequence: 2, latency: 4000) == .outOfOrder)
        // Record 1's second update after record 0's third: another record, in order.
        #expect(ledger.record(mutation: 3, record: 1, sequence: 2, latency: 5000) == .delivered)
        #expect(ledger.record(mutation: 6, record: 0, sequence: 4, latency: 1) == .unexpected)
        #expect(ledger.record(mutation: -1, record: 0, sequence: 4, latency: 1) == .unexpected)
        // A record numbered as no record can be: six mutations update at most six records.
        #expect(ledger.record(mutation: 5, record: 6, sequence: 1, latency: 1) == .unexpected)
        #expect(ledger.record(mutation: 5, record: -1, sequence: 1, latency: 1) == .unexpected)
        #expect(ledger.delivered == 5)
        #expect(ledger.lost == 1)
        #expect(ledger.duplicated == 1)
        #expect(ledger.outOfOrder == 1)
        #expect(ledger.unexpected == 4)
        #expect(!ledger.isComplete)
        #expect(ledger.latencies == [1000, 2000, 3000, 4000, 5000])
        #expect(ledger.record(mutation: 5, record: 1, sequence: 3, latency: 6000) == .delivered)
        #expect(ledger.isComplete)
    }

    @Test func aSummaryAddsTheLedgersAndTakesPercentilesOverEveryDelivery() {
        var first = DeliveryLedger(mutations: 100)
        for mutation in 0..<100 {
            first.record(mutation: mutation, record: 0, sequence: mutation, latency: Int64(mutation + 1) * 1000)
        }
        var second = DeliveryLedger(mutations: 100)
        second.record(mutation: 7, record: 0, sequence: 1, latency: 500_000)
        second.record(mutation: 7, record: 0, sequence: 1, latency: 500_000)
        let summary = DeliverySummary([first, second])
        #expect(summary.subscriptions == 2)
        #expect(summary.expected == 200)
        #expect(summary.delivered == 101)
        #expect(summary.lost == 99)
        #expect(summary.duplicated == 1)
        // 101 latencies: 1…100 ms and one of 500 ms.
        #expect(summary.p50 == 51)
        #expect(summary.p99 == 100)
        #expect(summary.max == 500)
        #expect(DeliverySummary([]).p99 == nil)
    }

    @Test func theLoadGeneratorReadsTheItemsFieldsFromADataMessage() {
        let text =
            #"{"id":"s","type":"data","payload":{"data":{"onUpdatePost":{"id":"r12","title":"345","rating":4,"sentAt":"1732440000123456"}}}}"#
        #expect(DataMessage(text) == DataMessage(mutation: 345, record: 12, sequence: 4, sentAt: 1_732_440_000_123_456))
        #expect(DataMessage(#"{"id":"s","type":"start_ack"}"#) == nil)
        #expect(
            DataMessage(#"{"id":"s","type":"data","payload":{"data":{"onUpdatePost":{"id":"r1","title":null}}}}"#)
                == nil
        )
    }
}
