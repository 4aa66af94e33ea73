#if STRATUS_BENCH_DATASTORE
    import Foundation
    import StratusBackend
    import StratusCodegen
    import StratusServer
    import StratusTesting
    import Synchronization

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// `StratusBench chaos`: devices in processes of their own, each behind its own fault proxy,
    /// edit shared records against the local backend while a seeded nemesis kills devices,
    /// restarts the server and breaks the network; then every fault heals, the harness waits for
    /// quiescence and checks what ``ChaosCheck`` describes.
    ///
    /// The backend is one server in this process on SQLite, or `stratus serve` instances sharing
    /// a PostgreSQL database (``ChaosCluster``), device `d` on instance `d % instances`, or every
    /// device through nginx in front of the instances (`--nginx`).
    final class ChaosHarness: Sendable {
        /// What serves the devices.
        enum Servers: Sendable {
            case local(LocalBackend)
            case cluster(ChaosCluster)

            var apiKey: String {
                switch self {
                case .local(let backend): backend.apiKey
                case .cluster: ChaosCluster.apiKey
                }
            }

            /// Every server endpoint.
            var endpoints: [URL] {
                switch self {
                case .local(let backend): [backend.endpoint]
                case .cluster(let cluster): cluster.endpoints
                }
            }

            /// The endpoint device `device` syncs with: nginx's when it stands in front of the
            /// instances.
            func endpoint(of device: Int) -> URL {
                switch self {
                case .local(let backend): backend.endpoint
                case .cluster(let cluster):
                    cluster.nginx?.endpoint ?? cluster.endpoints[device % cluster.endpoints.count]
                }
            }
        }

        let options: ChaosOptions
        let directory: URL
        private let servers: Servers
        private let proxies: [FaultProxy]
        private let processes: Mutex<[Int: ChildProcess]>
        private let incarnations: Mutex<[Int: Int]>
        private let faultCounts = Mutex<[ChaosNemesis.Kind: Int]>([:])
        /// The device processes started with a clock that is off (``ChaosDevice/clockSkew(seed:device:incarnation:)``).
        private let skewedClocks = Mutex(0)
        /// Instances that ended without being killed, with how they ended.
        private let crashes = Mutex<[String]>([])
        /// The harness's own subscribers, one on each server endpoint.
        private let observers: [ChaosObserver]
        /// On PostgreSQL, a server of this process on the shared database that reads the records
        /// once every fault healed.
        private let reader = Mutex<Backend?>(nil)

        private init(
            options: ChaosOptions,
            directory: URL,
            servers: Servers,
            proxies: [FaultProxy],
            observers: [ChaosObserver]
        ) {
            self.options = options
            self.directory = directory
            self.servers = servers
            self.proxies = proxies
            self.observers = observers
            processes = Mutex([:])
            incarnations = Mutex([:])
        }

        /// Runs a chaos run of `options` and prints its result; `false` when a check failed.
        static func run(_ options: ChaosOptions) async throws -> Bool {
            let directory =
                options.directory
                ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                    "stratus-chaos-\(options.seed)-\(UUID())"
                )
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let servers: Servers
            switch options.store {
            case .sqlite:
                servers = .local(
                    try await LocalBackend.start(
                        schema: ChaosSchema.text,
                        configuration: ServerConfiguration(
                            conflictResolution: {
                                switch options.conflicts {
                                case .automerge: .automerge
                                case .optimistic: .optimisticConcurrency
                                case .custom: .custom(ChaosConflictRule.handler)
                                }
                            }(),
                            deltaSyncTTL: .seconds(7 * 86_400)
                        )
                    )
                )
            case .postgres:
                let stratus =
                    options.stratus
                    ?? URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.deletingLastPathComponent()
                    .appendingPathComponent("stratus")
                servers = .cluster(
                    try await ChaosCluster.start(
                        in: directory,
                        instances: options.instances,
                        stratus: stratus,
                        conflicts: options.conflicts,
                        nginx: options.nginx
                    )
                )
            }
            var proxies: [FaultProxy] = []
            for device in 0..<options.devices {
                proxies.append(try await FaultProxy.start(forwardingTo: servers.endpoint(of: device)))
            }
            var observers: [ChaosObserver] = []
            for (index, endpoint) in servers.endpoints.enumerated() {
                let name = options.store == .postgres ? "observer on instance \(index)" : "observer"
                observers.append(
                    await ChaosObserver.start(name: name, endpoint: endpoint, apiKey: servers.apiKey, listener: index)
                )
            }
            let harness = ChaosHarness(
                options: options,
                directory: directory,
                servers: servers,
                proxies: proxies,
                observers: observers
            )
            let store =
                switch servers {
                case .local: "sqlite"
                case .cluster(let cluster):
                    "postgres (\(options.instances) instances of stratus serve on \(cluster.databaseURL)"
                        + (cluster.nginx.map { ", behind nginx on port \($0.port)" } ?? "") + ")"
                }
            print(
                "chaos: seed \(options.seed), \(options.devices) devices × \(options.operations) operations "
                    + "(\(options.appSyncDeviceCount) on AWSAppSyncClient) on "
                    + "\(options.records) records, conflicts \(options.conflicts.rawValue), store \(store), "
                    + "directory \(directory.path)"
            )
            let passed: Bool
            do {
                passed = try await harness.run()
            } catch {
                await harness.tearDown()
                print("chaos: the run failed: \(error); seed \(options.seed); files in \(directory.path)")
                throw error
            }
            await harness.tearDown()
            if passed, options.directory == nil { try? FileManager.default.removeItem(at: directory) }
            return passed
        }

        private func run() async throws -> Bool {
            let started = ContinuousClock.now
            for device in 0..<options.devices { try await start(device) }
            let deadline = started + .seconds(options.minutes * 60)
            let operating = Task { try await nemesis(until: deadline) }
            do {
                try await operating.value
            } catch {
                operating.cancel()
                throw error
            }
            try await healAll()
            let healed = ContinuousClock.now
            let settled = try await waitForQuiescence()
            let quiet = settled != nil
            if !quiet { await describeUnsettled() }
            let converged = (settled ?? ContinuousClock.now) - healed
            let logs = try (0..<options.devices).reduce(into: [Int: [OperationLogEntry]]()) {
                $0[$1] = try OperationLog.entries(at: logURL($1))
            }
            var devices: [Int: ChaosDeviceState] = [:]
            for device in 0..<options.devices { devices[device] = try deviceState(device) }
            var heard: [String: [OperationLogEntry]] = [:]
            for device in 0..<options.devices {
                heard["device \(device)"] = try OperationLog.entries(at: heardURL(device))
            }
            for (index, observer) in observers.enumerated() {
                heard[observer.name] = observer.heard
                // Beside the devices' files, for a failed run.
                let file = try OperationLog(
                    appendingTo: directory.appendingPathComponent("observer-\(index).heard.jsonl"),
                    synced: false
                )
                for line in observer.heard { try file.append(line) }
            }
            let check = ChaosCheck(
                logs: logs,
                journal: try await journal(),
                backend: try await backendRecords(),
                devices: devices,
                heard: heard,
                conflicts: options.conflicts
            )
            let passed = report(check, quiet: quiet, converged: converged)
            if !passed {
                switch servers {
                case .local(let backend):
                    try ChaosStores.copyBackend(backend, to: directory.appendingPathComponent("backend.sqlite"))
                case .cluster(let cluster):
                    try await cluster.dump(to: directory.appendingPathComponent("backend.sql"))
                }
                let store =
                    options.store == .postgres
                    ? " --store postgres --instances \(options.instances)\(options.nginx ? " --nginx" : "")" : ""
                print(
                    "chaos: FAILED; the devices' databases and logs and the backend's database"
                        + (options.nginx ? " and nginx's logs (nginx/)" : "") + " are in "
                        + "\(directory.path). Replay the schedule with: swift run -c release StratusBench chaos "
                        + "--devices \(options.devices) --operations \(options.operations) --seed \(options.seed) "
                        + "--appsync-devices \(options.appSyncDeviceCount) --conflicts \(options.conflicts.rawValue) "
                        + "--pace \(options.pace) --records \(options.records)"
                        + (options.faultsPerKind.map { " --faults-per-kind \($0)" } ?? "") + store
                )
            }
            return passed
        }

        // MARK: - The backend's data

        private func journal() async throws -> [ChaosJournalEntry] {
            switch servers {
            case .local(let backend): try ChaosStores.journal(backend)
            case .cluster(let cluster): try await cluster.journal()
            }
        }

        private func backendRecords() async throws -> [ChaosKey: ChaosRecord] {
            switch servers {
            case .local(let backend):
                return try await ChaosStores.backendRecords(backend)
            case .cluster(let cluster):
                if let open = reader.withLock({ $0 }) { return try await ChaosStores.backendRecords(open.server) }
                let opened = try await Backend.open(
                    Backend.Configuration(
                        schema: try SchemaParser().parse(ChaosSchema.text),
                        store: .database(
                            try PostgresLocation(cluster.databaseURL + "?sslmode=disable"),
                            connections: 2
                        ),
                        authorization: ServerAuthorization(
                            defaultMode: .apiKey,
                            apiKeys: [APIKey(value: ChaosCluster.apiKey)]
                        ),
                        httpLog: { _ in },
                        cognitoLog: { _ in }
                    )
                )
                reader.withLock { $0 = opened }
                return try await ChaosStores.backendRecords(opened.server)
            }
        }

        // MARK: - Devices

        /// The file that tells devices to make no more operations.
        private var stopURL: URL { directory.appendingPathComponent("stop-operations") }
        private func logURL(_ device: Int) -> URL { directory.appendingPathComponent("device-\(device).log.jsonl") }
        /// Device `device`'s DataStore file, or its `AWSAppSyncClient` directory.
        private func databaseURL(_ device: Int) -> URL {
            switch options.client(of: device) {
            case .datastore: directory.appendingPathComponent("device-\(device).sqlite")
            case .appsync: directory.appendingPathComponent("device-\(device).appsync")
            }
        }

        /// What device `device` holds.
        private func deviceState(_ device: Int) throws -> ChaosDeviceState {
            switch options.client(of: device) {
            case .datastore: try ChaosStores.device(at: databaseURL(device))
            case .appsync: try ChaosStores.appSyncDevice(at: databaseURL(device))
            }
        }
        private func heardURL(_ device: Int) -> URL { directory.appendingPathComponent("device-\(device).heard.jsonl") }

        /// Starts device `device`'s next process.
        private func start(_ device: Int) async throws {
            let incarnation = incarnations.withLock { incarnations in
                incarnations[device, default: -1] += 1
                return incarnations[device]!
            }
            if ChaosDevice.clockSkew(seed: options.seed, device: device, incarnation: incarnation) != 0 {
                skewedClocks.withLock { $0 += 1 }
            }
            let executable = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
            let arguments = [
                executable, "chaos-device", "--database", databaseURL(device).path, "--log", logURL(device).path,
                "--heard", heardURL(device).path,
                "--endpoint", proxies[device].url(proxying: servers.endpoint(of: device)).absoluteString, "--api-key",
                servers.apiKey, "--device", String(device), "--incarnation", String(incarnation), "--seed",
                String(options.seed), "--operations", String(options.operations), "--pace", String(options.pace),
                "--conflicts", options.conflicts.rawValue, "--records", String(options.records), "--stop", stopURL.path,
                "--client", options.client(of: device).rawValue,
            ]
            let process = try await ChildProcess.start(
                arguments,
                output: directory.appendingPathComponent("device-\(device).\(incarnation).out")
            )
            processes.withLock { $0[device] = process }
        }

        private func kill(_ device: Int) async throws {
            guard let process = processes.withLock({ $0.removeValue(forKey: device) }) else { return }
            process.send(signal: SIGKILL)
            _ = try await process.wait()
        }

        /// Whether every device logged that it made all its operations.
        private func allFinished() throws -> Bool {
            try (0..<options.devices).allSatisfy { device in
                try OperationLog.entries(at: logURL(device)).contains { $0.entry == .finished }
            }
        }

        // MARK: - Faults

        /// Runs the schedule until every device finished its operations and a few more faults
        /// hit their draining outboxes (an even schedule: until each kind had its faults and
        /// every device finished), or until `deadline`.
        private func nemesis(until deadline: ContinuousClock.Instant) async throws {
            var schedule = ChaosNemesis(
                seed: options.seed,
                devices: options.devices,
                instances: options.store == .postgres ? options.instances : nil,
                nginx: options.nginx,
                perKind: options.faultsPerKind
            )
            var healing: [String: Task<Void, any Error>] = [:]
            var drainFaults = 0
            // An even schedule goes on until each kind had its faults; the usual one stops soon
            // after every device finished its operations.
            while ContinuousClock.now < deadline,
                options.faultsPerKind == nil ? drainFaults < 2 * options.devices : !schedule.complete
            {
                if options.faultsPerKind == nil, try allFinished() { drainFaults += 1 }
                let fault = schedule.next()
                try await Task.sleep(for: .milliseconds(fault.after))
                try await restartCrashedInstances()
                try await healing[fault.target]?.value
                // The wall-clock time matches the devices' logs of what their sync engines did.
                print("chaos: \(Date()) \(fault)")
                faultCounts.withLock { $0[fault.kind, default: 0] += 1 }
                healing[fault.target] = try await apply(fault)
            }
            for task in healing.values { try await task.value }
            // An even schedule can end before the devices made their operations (a `--pace`
            // too slow for the faults): they go on without faults, and the check waits for them.
            while ContinuousClock.now < deadline, try !allFinished() {
                try await Task.sleep(for: .milliseconds(500))
            }
            if ContinuousClock.now >= deadline {
                print("chaos: the time bound passed; the devices make no more operations")
                try Data().write(to: stopURL)
            }
        }

        /// Starts `fault`; the task it returns heals it after its duration.
        private func apply(_ fault: ChaosNemesis.Fault) async throws -> Task<Void, any Error> {
            let duration = Duration.milliseconds(fault.duration)
            switch fault.kind {
            case .kill:
                let device = fault.device ?? 0
                try await kill(device)
                return Task {
                    try await Task.sleep(for: duration)
                    try await self.start(device)
                }
            case .restart:
                switch servers {
                case .local(let backend):
                    await backend.kill()
                    return Task {
                        try await Task.sleep(for: duration)
                        try await backend.restart()
                    }
                case .cluster(let cluster):
                    let instance = fault.instance ?? 0
                    try await cluster.killInstance(instance)
                    return Task {
                        try await Task.sleep(for: duration)
                        try await cluster.startInstance(instance)
                    }
                }
            case .postgresFast, .postgresImmediate:
                let cluster = try self.cluster(for: fault)
                try await cluster.stopPostgres(mode: fault.kind == .postgresFast ? "fast" : "immediate")
                return Task {
                    try await Task.sleep(for: duration)
                    try await cluster.startPostgres()
                }
            case .terminate, .terminateListeners:
                let terminated = try await cluster(for: fault).terminate(
                    listenersOnly: fault.kind == .terminateListeners
                )
                print("chaos: \(terminated) connections terminated")
                return Task {}
            case .nginxRestart:
                guard case .cluster(let cluster) = servers, let nginx = cluster.nginx else {
                    throw ChaosError("\(fault) hits nginx, but the run has none.")
                }
                try await nginx.kill()
                return Task {
                    try await Task.sleep(for: duration)
                    try await nginx.start()
                }
            case .cut:
                proxies[fault.device ?? 0].cutAllConnections()
                return Task {}
            case .blackHole, .delay:
                let proxy = proxies[fault.device ?? 0]
                if fault.kind == .blackHole { proxy.blackHole() } else { proxy.delay(by: .milliseconds(fault.delay)) }
                return Task {
                    try await Task.sleep(for: duration)
                    proxy.resume()
                }
            }
        }

        /// The cluster a fault of the database hits.
        private func cluster(for fault: ChaosNemesis.Fault) throws -> ChaosCluster {
            guard case .cluster(let cluster) = servers else {
                throw ChaosError("\(fault) hits PostgreSQL, but the run is on sqlite.")
            }
            return cluster
        }

        /// Starts again the instances (and nginx) that ended without being killed, and records
        /// them: an instance must survive whatever its database and its clients do.
        private func restartCrashedInstances() async throws {
            guard case .cluster(let cluster) = servers else { return }
            for (instance, status) in try await cluster.instancesEndedByThemselves() {
                let line = "instance \(instance) \(status) by itself; its output is in \(directory.path)"
                print("chaos: CRASH \(line)")
                crashes.withLock { $0.append(line) }
                try await cluster.startInstance(instance)
            }
            if let nginx = cluster.nginx, let status = try await nginx.endedByItself() {
                let line = "nginx \(status) by itself; its output and logs are in \(nginx.directory.path)"
                print("chaos: CRASH \(line)")
                crashes.withLock { $0.append(line) }
                try await nginx.start()
            }
        }

        /// Ends every fault: the network flows, the server and every device run.
        private func healAll() async throws {
            try await restartCrashedInstances()
            for proxy in proxies { proxy.resume() }
            for device in 0..<options.devices where processes.withLock({ $0[device]?.isRunning != true }) {
                print("chaos: device \(device) is not running; starting it")
                try await start(device)
            }
        }

        /// Waits until every outbox is empty, every device holds what the backend holds, and
        /// neither changed for three seconds. Returns when that state began, or `nil` when the
        /// timeout passed with no progress (a device that stays behind the backend, a lost
        /// subscription not mended, is given the whole timeout to catch up). Progress, an outbox
        /// shrinking, starts the timeout again, up to ten timeouts in all: an `AWSAppSyncClient`
        /// queue sends every mutation it holds, one at a time, and may hold more than it sends
        /// in one timeout.
        private func waitForQuiescence() async throws -> ContinuousClock.Instant? {
            let timeout = Duration.seconds(options.quiescenceTimeout)
            let limit = ContinuousClock.now + timeout * 10
            var deadline = ContinuousClock.now + timeout
            var last: [String] = []
            var since = ContinuousClock.now
            var fewest: [Int: Int] = [:]
            while ContinuousClock.now < min(deadline, limit) {
                let records = try await backendRecords()
                var snapshot = [try await journal().count.description]
                var devices: [Int: ChaosDeviceState] = [:]
                for device in 0..<options.devices {
                    let state = try deviceState(device)
                    devices[device] = state
                    snapshot.append(state.records.values.map(\.description).sorted().joined(separator: ";"))
                    if state.outbox < fewest[device, default: .max] {
                        fewest[device] = state.outbox
                        deadline = ContinuousClock.now + timeout
                    }
                }
                let settled = ChaosCheck(logs: [:], journal: [], backend: records, devices: devices)
                if snapshot != last || !settled.passed {
                    last = snapshot
                    since = ContinuousClock.now
                } else if ContinuousClock.now - since >= .seconds(3) {
                    return since
                }
                try await Task.sleep(for: .milliseconds(250))
            }
            return nil
        }

        /// Prints what the outboxes still hold and, on PostgreSQL, what the database's connections
        /// do: what a run that did not settle waits for.
        private func describeUnsettled() async {
            for device in 0..<options.devices {
                do {
                    let outbox =
                        switch options.client(of: device) {
                        case .datastore: try ChaosStores.outbox(at: databaseURL(device))
                        case .appsync: try ChaosStores.appSyncQueue(at: databaseURL(device))
                        }
                    for line in outbox {
                        print("chaos: device \(device) outbox: \(line)")
                    }
                } catch {
                    print("chaos: device \(device)'s outbox cannot be read: \(error)")
                }
            }
            guard case .cluster(let cluster) = servers else { return }
            do {
                for line in try await cluster.activity() { print("chaos: postgres: \(line)") }
            } catch {
                print("chaos: PostgreSQL's activity cannot be read: \(error)")
            }
        }

        // MARK: - Result

        private func report(_ check: ChaosCheck, quiet: Bool, converged: Duration) -> Bool {
            for line in check.lost.prefix(20) { print("chaos: LOST \(line)") }
            for line in check.duplicated.prefix(20) { print("chaos: DUPLICATED \(line)") }
            for line in check.diverged.prefix(20) { print("chaos: DIVERGED \(line)") }
            for line in check.outboxes { print("chaos: OUTBOX \(line)") }
            for line in check.outOfOrder.prefix(20) { print("chaos: OUT OF ORDER \(line)") }
            for line in check.misresolved.prefix(20) { print("chaos: MISRESOLVED \(line)") }
            let unobserved = observers.flatMap(\.failed)
            for line in unobserved { print("chaos: UNOBSERVED \(line)") }
            let crashes = crashes.withLock { $0 }
            for line in crashes { print("chaos: CRASHED \(line)") }
            if case .cluster(let cluster) = servers {
                let hangs = cluster.hungStarts
                for line in hangs { print("chaos: HUNG \(line)") }
                print(
                    "chaos: \(cluster.startCount) starts of stratus serve, \(hangs.count) hung (killed and started "
                        + "again), \(crashes.count) ended by themselves"
                        + (cluster.nginx.map { "; \($0.startCount) starts of nginx" } ?? "")
                )
            }
            if !quiet {
                print(
                    "chaos: no quiescence: outboxes not empty or devices not equal to the backend "
                        + "\(Int(options.quiescenceTimeout)) s after the last outbox shrank, or "
                        + "\(Int(options.quiescenceTimeout * 10)) s after every fault healed"
                )
            }
            let counts = faultCounts.withLock { $0 }
            let skewed = skewedClocks.withLock { $0 }
            let faults =
                ChaosNemesis.Kind.of(options.store, nginx: options.nginx).map {
                    "\(counts[$0, default: 0]) \($0.rawValue)"
                } + ["\(skewed) clock-skew"]
            print(
                "chaos: \(check.acknowledged) acknowledged writes; \(check.applied) writes in the journal; excused: "
                    + "\(check.superseded) by a later write of the device, \(check.settledByConflict) by a conflict or "
                    + "refusal, \(check.supersededByDelete) by a tombstone, \(check.cancelledCreates) deletes of unsent "
                    + "creates; \(check.orphans) orphaned notes"
            )
            print(
                "chaos: \(check.heard) subscription deliveries checked for order (devices and \(observers.count) "
                    + "harness subscriber\(observers.count == 1 ? "" : "s")); \(check.resolved) conflict resolutions checked against \(options.conflicts.rawValue)"
            )
            let seconds = Double(converged.components.seconds) + Double(converged.components.attoseconds) / 1e18
            print(
                "chaos: \(check.acknowledged) operations, \(counts.values.reduce(0, +) + skewed) faults "
                    + "(\(faults.joined(separator: ", "))), \(check.lost.count) lost, \(check.duplicated.count) duplicated, "
                    + "\(check.diverged.count) diverged, \(check.outOfOrder.count) out of order, \(check.misresolved.count) "
                    + "misresolved, converged in \(String(format: "%.1f", seconds)) s, seed \(options.seed)"
            )
            return check.passed && quiet && crashes.isEmpty && unobserved.isEmpty
        }

        private func tearDown() async {
            let running = processes.withLock { processes in
                defer { processes.removeAll() }
                return Array(processes.values)
            }
            for process in running { process.kill() }
            for observer in observers { observer.stop() }
            for proxy in proxies { await proxy.stop() }
            if let reader = reader.withLock({ $0 }) { try? reader.close() }
            switch servers {
            case .local(let backend): await backend.stop()
            case .cluster(let cluster): await cluster.stop()
            }
        }
    }
#endif
