/// The faults of a chaos run, drawn from its seed: the same seed and device count give the
/// same schedule, fault after fault.
///
/// Faults of different targets overlap (a device killed while the server restarts during a
/// partition of a third device): each fault waits only for the previous fault of its own target
/// to heal. Which operations a fault meets depends on timing, which no seed fixes.
struct ChaosNemesis {
    /// A kind of fault.
    enum Kind: String, Sendable, CaseIterable {
        /// SIGKILL of a device process, started again after the fault's duration.
        case kill
        /// The server stops (its store closed) and starts again on the same port and data.
        case restart
        /// Every open connection of a device is closed.
        case cut
        /// Nothing a device sends or receives gets through.
        case blackHole = "black-hole"
        /// Each chunk a device sends or receives is held for 50–500 ms.
        case delay
    }

    /// One fault of the schedule.
    struct Fault: Sendable, Hashable, CustomStringConvertible {
        var number: Int
        /// The pause before the fault starts, after the previous one started, in milliseconds.
        var after: Int
        var kind: Kind
        /// The device it hits; `nil` for the server.
        var device: Int?
        /// How long it lasts before it heals, in milliseconds.
        var duration: Int
        /// For a delay, the delay of each chunk, in milliseconds.
        var delay: Int

        /// What the fault hits, for the waits between faults of one target.
        var target: String {
            switch kind {
            case .restart: "server"
            case .kill: "process \(device ?? 0)"
            case .cut, .blackHole, .delay: "network \(device ?? 0)"
            }
        }

        var description: String {
            let hit = device.map { "device \($0)" } ?? "server"
            let extra = kind == .delay ? " by \(delay) ms" : ""
            return "fault \(number): +\(after) ms \(kind.rawValue) \(hit)\(extra) for \(duration) ms"
        }
    }

    private var random: ChaosRandom
    private let devices: Int
    private var count = 0

    init(seed: UInt64, devices: Int) {
        random = ChaosRandom(seed, -1, 0)
        self.devices = devices
    }

    /// The next fault of the schedule.
    mutating func next() -> Fault {
        count += 1
        let roll = random.next(below: 100)
        let kind: Kind =
            switch roll {
            case ..<30: .kill
            case ..<42: .restart
            case ..<62: .cut
            case ..<80: .blackHole
            default: .delay
            }
        let device = kind == .restart ? nil : random.next(below: devices)
        let after = 100 + random.next(below: 600)
        let duration =
            switch kind {
            case .kill: 50 + random.next(below: 1_500)
            case .restart: 100 + random.next(below: 1_500)
            case .cut: 0
            case .blackHole, .delay: 200 + random.next(below: 3_000)
            }
        let delay = kind == .delay ? 50 + random.next(below: 450) : 0
        return Fault(number: count, after: after, kind: kind, device: device, duration: duration, delay: delay)
    }
}
