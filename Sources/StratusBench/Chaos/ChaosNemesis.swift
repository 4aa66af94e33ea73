/// The faults of a chaos run, drawn from its seed: the same seed and device count give the
/// same schedule, fault after fault.
///
/// Faults of different targets overlap (a device killed while the server restarts during a
/// partition of a third device): each fault waits only for the previous fault of its own target
/// to heal. Which operations a fault meets depends on timing, which no seed fixes.
///
/// On PostgreSQL (`instances` given), `restart` hits one `stratus serve` instance and the
/// database has faults of its own; on SQLite the schedule is the one it always was. With nginx
/// in front of the instances (`nginx`), a few faults in a hundred restart it; without, the
/// PostgreSQL schedule is the one it was before nginx.
///
/// With `perKind` given, each fault's kind is drawn evenly from the kinds that have had fewer
/// than `perKind` faults, and the schedule is ``complete`` once every kind has had `perKind`:
/// a run that must meet each kind of fault a given number of times takes no longer than the
/// rarest kind needs.
struct ChaosNemesis {
    /// A kind of fault.
    enum Kind: String, Sendable, CaseIterable {
        /// SIGKILL of a device process, started again after the fault's duration.
        case kill
        /// On SQLite, the server stops (its store closed) and starts again on the same port and
        /// data; on PostgreSQL, one `stratus serve` instance is SIGKILLed and started again.
        case restart
        /// Every open connection of a device is closed.
        case cut
        /// Nothing a device sends or receives gets through.
        case blackHole = "black-hole"
        /// Each chunk a device sends or receives is held for 50–500 ms.
        case delay
        /// PostgreSQL stops with `pg_ctl stop -m fast` (clients disconnected, a checkpoint) and
        /// starts again after the fault's duration.
        case postgresFast = "postgres-fast-restart"
        /// PostgreSQL stops with `pg_ctl stop -m immediate` (as a crash: recovery at the next
        /// start) and starts again after the fault's duration.
        case postgresImmediate = "postgres-immediate-restart"
        /// `pg_terminate_backend` of every connection the instances hold to the database.
        case terminate = "postgres-terminate"
        /// `pg_terminate_backend` of the connections that `LISTEN` for other instances' writes.
        case terminateListeners = "postgres-terminate-listeners"
        /// nginx in front of the instances is SIGKILLed (every device's connections break at
        /// once, and new ones are refused) and started again on its port after the fault's
        /// duration.
        case nginxRestart = "nginx-restart"

        /// The kinds of a run on `store`, with nginx in front of the instances or not.
        static func of(_ store: ChaosOptions.Store, nginx: Bool = false) -> [Kind] {
            switch store {
            case .sqlite: [.kill, .restart, .cut, .blackHole, .delay]
            case .postgres: allCases.filter { nginx || $0 != .nginxRestart }
            }
        }
    }

    /// One fault of the schedule.
    struct Fault: Sendable, Hashable, CustomStringConvertible {
        var number: Int
        /// The pause before the fault starts, after the previous one started, in milliseconds.
        var after: Int
        var kind: Kind
        /// The device it hits; `nil` for the server and the database.
        var device: Int?
        /// The instance a `restart` on PostgreSQL hits.
        var instance: Int?
        /// How long it lasts before it heals, in milliseconds.
        var duration: Int
        /// For a delay, the delay of each chunk, in milliseconds.
        var delay: Int

        /// What the fault hits, for the waits between faults of one target.
        var target: String {
            switch kind {
            case .restart: instance.map { "instance \($0)" } ?? "server"
            case .postgresFast, .postgresImmediate, .terminate, .terminateListeners: "postgres"
            case .nginxRestart: "nginx"
            case .kill: "process \(device ?? 0)"
            case .cut, .blackHole, .delay: "network \(device ?? 0)"
            }
        }

        var description: String {
            let hit =
                device.map { "device \($0)" } ?? instance.map { "instance \($0)" }
                ?? (target == "postgres" || target == "nginx" ? target : "server")
            let extra = kind == .delay ? " by \(delay) ms" : ""
            return "fault \(number): +\(after) ms \(kind.rawValue) \(hit)\(extra) for \(duration) ms"
        }
    }

    private var random: ChaosRandom
    private let devices: Int
    /// The `stratus serve` instances on PostgreSQL; `nil` on SQLite.
    private let instances: Int?
    /// Whether nginx stands in front of the instances.
    private let nginx: Bool
    /// The faults each kind is drawn for, when the schedule is even.
    private let perKind: Int?
    /// The faults drawn of each kind.
    private var counts: [Kind: Int] = [:]

    /// A schedule for `devices` devices, on PostgreSQL when `instances` is given, and with nginx
    /// in front of them when `nginx` is true (only on PostgreSQL).
    /// With `perKind`, the kinds are drawn evenly until each has had `perKind` faults.
    init(seed: UInt64, devices: Int, instances: Int? = nil, nginx: Bool = false, perKind: Int? = nil) {
        precondition(!nginx || instances != nil, "nginx stands in front of PostgreSQL's instances only.")
        precondition(perKind.map { $0 > 0 } ?? true, "An even schedule draws at least one fault of each kind.")
        random = ChaosRandom(seed, -1, 0)
        self.devices = devices
        self.instances = instances
        self.nginx = nginx
        self.perKind = perKind
    }

    /// The kinds this schedule draws from.
    var kinds: [Kind] { Kind.of(instances == nil ? .sqlite : .postgres, nginx: nginx) }

    /// Whether every kind has had its faults, in an even schedule; never in the other.
    var complete: Bool {
        guard let perKind else { return false }
        return kinds.allSatisfy { counts[$0, default: 0] >= perKind }
    }

    /// The next fault of the schedule.
    mutating func next() -> Fault {
        let kind: Kind
        if let perKind { kind = evenKind(perKind) } else { kind = weightedKind() }
        counts[kind, default: 0] += 1
        return fault(of: kind)
    }

    /// A kind drawn evenly from those with fewer than `perKind` faults (from all once none is).
    private mutating func evenKind(_ perKind: Int) -> Kind {
        let short = kinds.filter { counts[$0, default: 0] < perKind }
        let from = short.isEmpty ? kinds : short
        return from[random.next(below: from.count)]
    }

    /// A kind drawn by the weights of the usual schedule.
    private mutating func weightedKind() -> Kind {
        // With nginx, 5 rolls in 105 restart it; the other 100 keep the PostgreSQL schedule.
        let roll = random.next(below: nginx ? 105 : 100)
        let kind: Kind
        if instances == nil {
            kind =
                switch roll {
                case ..<30: .kill
                case ..<42: .restart
                case ..<62: .cut
                case ..<80: .blackHole
                default: .delay
                }
        } else {
            kind =
                switch roll {
                case ..<24: .kill
                case ..<34: .restart
                case ..<46: .cut
                case ..<56: .blackHole
                case ..<66: .delay
                case ..<75: .postgresFast
                case ..<82: .postgresImmediate
                case ..<91: .terminate
                case ..<100: .terminateListeners
                default: .nginxRestart
                }
        }
        return kind
    }

    /// The rest of a fault of `kind`: what it hits, when and for how long.
    private mutating func fault(of kind: Kind) -> Fault {
        let device: Int? =
            switch kind {
            case .kill, .cut, .blackHole, .delay: random.next(below: devices)
            case .restart, .postgresFast, .postgresImmediate, .terminate, .terminateListeners, .nginxRestart: nil
            }
        let instance = kind == .restart ? instances.map { random.next(below: $0) } : nil
        let after = 100 + random.next(below: 600)
        let duration =
            switch kind {
            case .kill: 50 + random.next(below: 1_500)
            case .restart, .postgresFast, .postgresImmediate, .nginxRestart: 100 + random.next(below: 1_500)
            case .cut, .terminate, .terminateListeners: 0
            case .blackHole, .delay: 200 + random.next(below: 3_000)
            }
        let delay = kind == .delay ? 50 + random.next(below: 450) : 0
        return Fault(
            number: counts.values.reduce(0, +),
            after: after,
            kind: kind,
            device: device,
            instance: instance,
            duration: duration,
            delay: delay
        )
    }
}
