/// What one subscription of the fan-out load generator received, checked against what was sent.
///
/// The mutating side numbers its mutations `0..<mutations` and gives each record's updates
/// increasing sequence numbers; every subscription hears every mutation once. A delivery is
/// new, a duplicate (its number was seen before), out of order (new, but its record's sequence
/// is lower than one already delivered for that record) or unexpected (a number that was never
/// sent, or of a record that cannot be: records are numbered below the number of mutations).
/// Whatever was never delivered is lost.
struct DeliveryLedger: Sendable {
    /// How a delivery was counted.
    enum Outcome: Sendable, Hashable {
        case delivered
        case duplicate
        case outOfOrder
        case unexpected
    }

    /// The mutations the subscription should hear.
    let mutations: Int
    private var seen: [UInt64]
    /// The highest sequence delivered of each record, by record number; -1 for none. Grown as
    /// records come: an array, as a dictionary lookup per delivery was a large share of the
    /// load generator's time.
    private var lastSequence: [Int] = []
    /// Distinct mutations delivered, in order or not.
    private(set) var delivered = 0
    private(set) var duplicated = 0
    private(set) var outOfOrder = 0
    private(set) var unexpected = 0
    /// Mutation-to-delivery latencies of the distinct deliveries, in microseconds.
    private(set) var latencies: [UInt32] = []

    init(mutations: Int) {
        self.mutations = mutations
        seen = Array(repeating: 0, count: (mutations + 63) / 64)
        latencies.reserveCapacity(mutations)
    }

    /// Mutations sent that were never delivered.
    var lost: Int { mutations - delivered }

    /// Whether every mutation was delivered.
    var isComplete: Bool { delivered == mutations }

    /// Counts the delivery of mutation `mutation`, the update number `sequence` of record
    /// `record`, `latency` microseconds after it was sent.
    @discardableResult
    mutating func record(mutation: Int, record: Int, sequence: Int, latency: Int64) -> Outcome {
        guard mutation >= 0, mutation < mutations, record >= 0, record < mutations else {
            unexpected += 1
            return .unexpected
        }
        let (word, bit) = mutation.quotientAndRemainder(dividingBy: 64)
        let mask = UInt64(1) << UInt64(bit)
        guard seen[word] & mask == 0 else {
            duplicated += 1
            return .duplicate
        }
        seen[word] |= mask
        delivered += 1
        latencies.append(UInt32(clamping: max(latency, 0)))
        if record >= lastSequence.count {
            lastSequence += repeatElement(-1, count: record + 1 - lastSequence.count)
        }
        if lastSequence[record] > sequence {
            outOfOrder += 1
            return .outOfOrder
        }
        lastSequence[record] = sequence
        return .delivered
    }
}

/// The ledgers of every subscription, added up.
struct DeliverySummary: Sendable, Codable, Hashable {
    var subscriptions = 0
    var expected = 0
    var delivered = 0
    var lost = 0
    var duplicated = 0
    var outOfOrder = 0
    var unexpected = 0
    /// Latency percentiles in milliseconds; `nil` without deliveries.
    var p50: Double?
    var p99: Double?
    var max: Double?

    init(_ ledgers: [DeliveryLedger]) {
        var latencies: [UInt32] = []
        latencies.reserveCapacity(ledgers.reduce(0) { $0 + $1.latencies.count })
        for ledger in ledgers {
            subscriptions += 1
            expected += ledger.mutations
            delivered += ledger.delivered
            lost += ledger.lost
            duplicated += ledger.duplicated
            outOfOrder += ledger.outOfOrder
            unexpected += ledger.unexpected
            latencies += ledger.latencies
        }
        latencies.sort()
        p50 = Self.percentile(0.5, of: latencies)
        p99 = Self.percentile(0.99, of: latencies)
        max = latencies.last.map { Double($0) / 1000 }
    }

    /// The value below which `fraction` of the sorted `latencies` (microseconds) fall, in
    /// milliseconds (nearest rank).
    static func percentile(_ fraction: Double, of latencies: [UInt32]) -> Double? {
        guard !latencies.isEmpty else { return nil }
        let rank = Int((fraction * Double(latencies.count)).rounded(.up)) - 1
        return Double(latencies[Swift.max(0, Swift.min(latencies.count - 1, rank))]) / 1000
    }
}
