import AWSPluginsCore
import Foundation
import NIOCore
import NIOPosix
import StratusBackend
import StratusCodegen
import StratusServer
import StratusTesting

#if canImport(Glibc)
    import Glibc
#endif
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Real-time fan-out with the subscribers in another process: this process runs the server and
/// the mutating side, `StratusBench fanout-clients` (``FanoutClients``) opens the subscriptions
/// and counts what each receives. With `taskset` installed, the server is pinned to CPU 0 and
/// the clients to CPU 1, so neither figure includes the other's work, and the server runs one
/// event loop (unless `NIO_SINGLETON_GROUP_LOOP_COUNT` says otherwise).
///
/// The mutating side updates `records` posts in turn at a steady rate; each update carries its
/// number (`title`), the record's update count (`rating`) and the wall-clock time it was sent
/// (`sentAt`), from which the clients compute the mutation-to-delivery latency. Prints p50 and
/// p99 latency, the achieved mutation rate, the deliveries lost, duplicated and out of order,
/// and both processes' CPU time during the run.
///
/// First, unless `STRATUS_FANOUT_BARE=0` or a database is set, the same clients and mutations
/// run against ``BareFanoutServer``, a SwiftNIO WebSocket server on the same event loop that only
/// writes the messages; the run ends with Stratus's latency and CPU time as multiples of its.
///
/// With `STRATUS_FANOUT_DATABASE` (a PostgreSQL URL), `STRATUS_FANOUT_INSTANCES` servers (3 by
/// default) share that database in this process, each on its own port: the subscribers are
/// spread over them in turn, and so are the mutations, so most deliveries cross servers through
/// the database's event journal.
///
/// With `STRATUS_FANOUT_OBSERVE` (one server on SQLite), the mutations are sent over HTTP, as
/// clients send them, to a server that neither counts nor traces, then to one serving `/metrics`
/// (`metrics`), exporting every request's spans, deliveries included, over OTLP to a collector
/// in this process (`tracing`), or both (`1`): the run ends with the second's latency and CPU
/// time as multiples of the first's.
struct FanoutBenchmark {
    /// Overridden by `STRATUS_FANOUT_SUBSCRIBERS`, `STRATUS_FANOUT_RATE` and `STRATUS_FANOUT_SECONDS`.
    var subscribers = Self.setting("STRATUS_FANOUT_SUBSCRIBERS") ?? 1000
    var mutationsPerSecond = Self.setting("STRATUS_FANOUT_RATE") ?? 100
    var seconds = Self.setting("STRATUS_FANOUT_SECONDS") ?? 30
    /// Deliveries may still arrive this long after the last mutation: as long as the run, at
    /// least 10 s, so that a server that falls behind shows as late rather than lossy.
    var drain: Duration = .seconds(max(10, Self.setting("STRATUS_FANOUT_SECONDS") ?? 30))

    private static func setting(_ name: String) -> Int? {
        ProcessInfo.processInfo.environment[name].flatMap { Int($0) }
    }

    private static let schema = """
        type Post @model {
          id: ID!
          title: String!
          rating: Int!
          sentAt: String!
        }
        """

    private static let apiKey = "da2-bench"

    private static let update =
        "mutation Update($input: UpdatePostInput!) { updatePost(input: $input) { id title rating sentAt } }"

    func run() async throws {
        let mutations = seconds * mutationsPerSecond
        let records = max(1, min(mutationsPerSecond, mutations))
        let taskset = Self.which("taskset")
        print(
            "fanout: \(subscribers) subscribers in a child process, \(mutationsPerSecond) mutations/s for \(seconds) s"
                + (taskset == nil ? " (no taskset: processes not pinned)" : ", server on CPU 0, clients on CPU 1")
        )
        if let taskset {
            // One CPU, one event loop, as NIO sizes its loops for a server limited to one CPU by
            // its cgroup; an affinity set by `taskset` is not counted, and a second loop on the
            // same CPU only adds thread switches. Set before the server uses the loops.
            if ProcessInfo.processInfo.environment["NIO_SINGLETON_GROUP_LOOP_COUNT"] == nil {
                NIOSingletons.groupLoopCountSuggestion = 1
            }
            // Every thread of this process, and those it starts later, on CPU 0.
            let pinned = try await ChildProcess.run([taskset, "-a", "-p", "-c", "0", "\(getpid())"])
            guard pinned.status == .exited(0) else {
                throw FanoutError("taskset could not pin the server to CPU 0: \(pinned.errorText)")
            }
        }
        let directory = FileManager.default.temporaryDirectory.appending(path: "stratus-fanout-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        // The baseline first, on the same loop, pinning and load generator. It is one server:
        // against several sharing a database it would not compare like with like.
        let database = ProcessInfo.processInfo.environment["STRATUS_FANOUT_DATABASE"]
        var bare: Measured?
        if ProcessInfo.processInfo.environment["STRATUS_FANOUT_BARE"] != "0", database == nil,
            ProcessInfo.processInfo.environment["STRATUS_FANOUT_OBSERVE"] == nil
        {
            let bareServer = try await BareFanoutServer.start(group: MultiThreadedEventLoopGroup.singleton)
            print(
                "fanout bare: a SwiftNIO WebSocket server that only writes the same messages "
                    + "(STRATUS_FANOUT_BARE=0 skips it)"
            )
            bare = try await measure(
                label: "fanout bare:",
                ports: [bareServer.port],
                mutations: mutations,
                records: records,
                taskset: taskset,
                output: directory.appending(path: "bare-clients.log")
            ) { mutation, record, sequence, sentAt in
                bareServer.post(mutation: mutation, record: record, sequence: sequence, sentAt: sentAt)
                return true
            }
            try await bareServer.close()
        }

        var stores: [Backend.Store] = [.dataDirectory(directory.appending(path: "data"))]
        if let database {
            let location = try PostgresLocation(database)
            let instances = Self.setting("STRATUS_FANOUT_INSTANCES") ?? 3
            print("fanout: \(instances) servers sharing the PostgreSQL database \(location)")
            stores = Array(repeating: .database(location, connections: 16), count: instances)
        }
        // `metrics`, `tracing`, or `1` for both.
        let observe = ProcessInfo.processInfo.environment["STRATUS_FANOUT_OBSERVE"].map {
            $0 == "1" ? "metrics,tracing" : $0
        }
        let counts = observe?.contains("metrics") ?? false
        let traces = observe?.contains("tracing") ?? false
        if observe != nil, database != nil {
            throw FanoutError(
                "STRATUS_FANOUT_OBSERVE compares one server on SQLite with itself observed; unset STRATUS_FANOUT_DATABASE."
            )
        }
        if observe != nil, !counts, !traces {
            throw FanoutError("STRATUS_FANOUT_OBSERVE is metrics, tracing, or 1 for both.")
        }
        let observed = [counts ? "metrics" : nil, traces ? "tracing" : nil].compactMap { $0 }.joined(separator: " and ")
        if observe == nil {
            let measured = try await measureStratus(
                stores: stores,
                label: "fanout:",
                mutations: mutations,
                records: records,
                taskset: taskset,
                overHTTP: false,
                output: directory.appending(path: "clients.log")
            )
            if let bare {
                print(
                    "fanout: Stratus against the bare server: latency p50 "
                        + "\(Self.ratio(measured.deliveries.p50, bare.deliveries.p50)), "
                        + "p99 \(Self.ratio(measured.deliveries.p99, bare.deliveries.p99)); server CPU while mutating "
                        + "\(Self.ratio(measured.serverCPUMutations, bare.serverCPUMutations)), clients CPU "
                        + "\(Self.ratio(measured.clientsCPU, bare.clientsCPU))"
                )
            }
            return
        }
        // Alternating rounds: this machine's load comes and goes, and a ratio of one pair of runs
        // says as much of it as of what observing costs.
        let rounds = max(1, Self.setting("STRATUS_FANOUT_ROUNDS") ?? 3)
        print("fanout: the mutations go over HTTP, without and then with \(observed), \(rounds) alternating rounds")
        // One collector for every round, stopped after the last server: an exporter still sending
        // to a collector that is stopping would race its shutdown.
        let ratios = try await SpanCollector.run { collector, endpoint in
            var ratios: (p50: [Double], p99: [Double], cpu: [Double]) = ([], [], [])
            for round in 0..<rounds {
                let measured = try await measureStratus(
                    stores: [.dataDirectory(directory.appending(path: "plain-\(round)"))],
                    label: "fanout round \(round + 1):",
                    mutations: mutations,
                    records: records,
                    taskset: taskset,
                    overHTTP: true,
                    output: directory.appending(path: "clients-\(round).log")
                )
                let observedFigures = try await measureStratus(
                    stores: [.dataDirectory(directory.appending(path: "observed-\(round)"))],
                    label: "fanout round \(round + 1) observed:",
                    metrics: counts ? MetricsEndpoint() : nil,
                    tracing: traces ? try .otlp(endpoint: endpoint) : nil,
                    mutations: mutations,
                    records: records,
                    taskset: taskset,
                    overHTTP: true,
                    output: directory.appending(path: "observed-clients-\(round).log")
                )
                if traces {
                    print("fanout round \(round + 1) observed: the collector has \(collector.receivedBytes) bytes")
                }
                if let p50 = observedFigures.deliveries.p50, let base = measured.deliveries.p50, base > 0 {
                    ratios.p50.append(p50 / base)
                }
                if let p99 = observedFigures.deliveries.p99, let base = measured.deliveries.p99, base > 0 {
                    ratios.p99.append(p99 / base)
                }
                ratios.cpu.append(observedFigures.serverCPUMutations / measured.serverCPUMutations)
            }
            return ratios
        }
        print(
            "fanout: with \(observed) against without, medians of \(rounds) rounds: latency p50 "
                + String(format: "%.2fx, p99 %.2fx", median(ratios.p50), median(ratios.p99))
                + String(format: "; server CPU while mutating %.2fx", median(ratios.cpu))
                + " (target: within \(traces ? "1.10x" : "1.05x"); rounds "
                + ratios.cpu.map { String(format: "%.2fx", $0) }.joined(separator: ", ") + ")"
        )
    }

    /// Opens a server on each of `stores`, with `metrics` and `tracing`, measures them with
    /// ``measureStratus(_:ports:label:mutations:records:taskset:overHTTP:output:)`` and stops
    /// them, on a failure too, rather than serve on while the error is reported.
    private func measureStratus(
        stores: [Backend.Store],
        label: String,
        metrics: MetricsEndpoint? = nil,
        tracing: ServerTracing? = nil,
        mutations: Int,
        records: Int,
        taskset: String?,
        overHTTP: Bool,
        output: URL
    ) async throws -> Measured {
        let schema = try SchemaParser().parse(Self.schema, fileName: "schema.graphql")
        var backends: [Backend] = []
        var servings: [Backend.Serving] = []
        defer { for backend in backends { try? backend.close() } }
        for store in stores {
            let backend = try await Backend.open(
                Backend.Configuration(
                    schema: schema,
                    store: store,
                    server: ServerConfiguration(conflictDetection: false),
                    authorization: ServerAuthorization(defaultMode: .apiKey, apiKeys: [APIKey(value: Self.apiKey)]),
                    // Every subscriber connects from the loopback address.
                    limits: ServerLimits(maxConnectionsPerAddress: subscribers + 16, maxConnections: subscribers + 16),
                    httpLog: { print($0) },
                    metrics: metrics,
                    tracing: tracing
                )
            )
            backends.append(backend)
            servings.append(try await backend.start(port: 0))
        }
        do {
            let measured = try await measureStratus(
                backends.map(\.server),
                ports: servings.map(\.port),
                label: label,
                mutations: mutations,
                records: records,
                taskset: taskset,
                overHTTP: overHTTP,
                output: output
            )
            for serving in servings { await serving.stop() }
            return measured
        } catch {
            for serving in servings { await serving.stop() }
            throw error
        }
    }

    /// Creates the `records` posts, then measures the clients against `servers` on `ports`, the
    /// mutations spread over the servers: called in this process, or `overHTTP`, as clients send
    /// them.
    private func measureStratus(
        _ servers: [StratusServer],
        ports: [Int],
        label: String,
        mutations: Int,
        records: Int,
        taskset: String?,
        overHTTP: Bool,
        output: URL
    ) async throws -> Measured {
        for record in 0..<records {
            let response = await servers[0].execute(
                query:
                    #"mutation { createPost(input: {id: "r\#(record)", title: "-1", rating: 0, sentAt: "0"}) { id } }"#,
                identity: .apiKey
            )
            guard response.body["errors"] == nil else {
                throw FanoutError("Could not create post r\(record): \(response.body)")
            }
        }
        let transport = AsyncHTTPClientTransport()
        return try await measure(
            label: label,
            ports: ports,
            mutations: mutations,
            records: records,
            taskset: taskset,
            output: output
        ) { mutation, record, sequence, sentAt in
            let input: JSONObject = [
                "id": .string("r\(record)"), "title": .string("\(mutation)"),
                "rating": .int(sequence), "sentAt": .string("\(sentAt)"),
            ]
            if overHTTP {
                var request = URLRequest(url: URL(string: "http://127.0.0.1:\(ports[mutation % ports.count])/graphql")!)
                request.httpMethod = "POST"
                request.setValue("application/json", forHTTPHeaderField: "content-type")
                request.setValue(Self.apiKey, forHTTPHeaderField: "x-api-key")
                let body: JSON = ["query": .string(Self.update), "variables": ["input": .object(input)]]
                request.httpBody = Data(body.text.utf8)
                guard let response = try? await transport.send(request), response.statusCode == 200,
                    let body = try? JSON(parsing: response.body)
                else { return false }
                return body["errors"] == nil
            }
            // One document with variables, as clients send it: the server parses it once.
            let response = await servers[mutation % servers.count].execute(
                query: Self.update,
                variables: ["input": .object(input)],
                identity: .apiKey
            )
            return response.body["errors"] == nil
        }
    }

    /// What one run of the clients against a server measured.
    private struct Measured {
        var deliveries: DeliverySummary
        /// The server process's CPU time while the mutations were sent, in seconds.
        var serverCPUMutations: Double
        /// The clients' CPU time once every subscription was ready, in seconds.
        var clientsCPU: Double
    }

    /// Starts the clients in a child process against `ports`, waits for every subscription,
    /// calls `send` for each mutation at the benchmark's rate (one chain per record, so that a
    /// record's updates go in order), waits for the deliveries and prints what it measured, each
    /// line starting with `label`. `send` says whether the mutation succeeded.
    private func measure(
        label: String,
        ports: [Int],
        mutations: Int,
        records: Int,
        taskset: String?,
        output: URL,
        send: @escaping @Sendable (_ mutation: Int, _ record: Int, _ sequence: Int, _ sentAt: Int64) async -> Bool
    ) async throws -> Measured {
        let executable = try Self.executablePath()
        let clients = try await ChildProcess.start(
            (taskset.map { [$0, "-c", "1"] } ?? []) + [executable, "fanout-clients"],
            environment: [
                "STRATUS_FANOUT_PORT": ports.map(String.init).joined(separator: ","),
                "STRATUS_FANOUT_SUBSCRIBERS": "\(subscribers)",
                "STRATUS_FANOUT_MUTATIONS": "\(mutations)",
                "STRATUS_FANOUT_API_KEY": Self.apiKey,
                "STRATUS_FANOUT_TIMEOUT": "\(seconds * 4 + 120)",
            ],
            output: output,
            // Its process identifier is the clients' own (taskset runs the program in its place),
            // so SIGTERM reaches the clients, which then report what they have.
            tie: .none
        )
        defer { clients.kill() }

        // Wait for every subscription.
        let connectStart = ContinuousClock.now
        while !(try Self.text(of: output).contains("fanout-clients: ready")) {
            guard clients.isRunning else {
                throw FanoutError("The clients ended before they were ready: \(try Self.text(of: output))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let readyLine = try Self.text(of: output).split(separator: "\n").first { $0.hasPrefix("fanout-clients: ready") }
        print("\(label) \(readyLine.map(String.init) ?? "") in \(Self.format(ContinuousClock.now - connectStart)) s")

        let serverCPUStart = ProcessCPUTime.now()
        let interval = Duration.seconds(1) / mutationsPerSecond
        let began = ContinuousClock.now
        let beganWallClock = FanoutClients.wallClockMicroseconds()
        // How long each mutation took to answer, in microseconds: a slow write delays every
        // delivery of its event, which this tells apart from a slow fan-out.
        let (failures, answerTimes) = await withTaskGroup(of: (Int, [UInt32]).self) { group in
            for record in 0..<records {
                group.addTask {
                    var failures = 0
                    var answerTimes: [UInt32] = []
                    for mutation in stride(from: record, to: mutations, by: records) {
                        try? await Task.sleep(until: began + interval * mutation, clock: .continuous)
                        let sentAt = FanoutClients.wallClockMicroseconds()
                        let succeeded = await send(mutation, record, mutation / records + 1, sentAt)
                        answerTimes.append(UInt32(clamping: FanoutClients.wallClockMicroseconds() - sentAt))
                        if !succeeded { failures += 1 }
                    }
                    return (failures, answerTimes)
                }
            }
            return await group.reduce((0, [])) { ($0.0 + $1.0, $0.1 + $1.1) }
        }
        let elapsed = ContinuousClock.now - began
        let serverCPUMutations = ProcessCPUTime.now().seconds - serverCPUStart.seconds

        if try await clients.wait(timeout: drain) == nil {
            clients.send(signal: SIGTERM)
            guard try await clients.wait(timeout: .seconds(30)) != nil else {
                throw FanoutError("The clients did not report within 30 s of SIGTERM.")
            }
        }
        let serverCPU = ProcessCPUTime.now().seconds - serverCPUStart.seconds

        let log = try Self.text(of: output)
        guard let line = log.split(separator: "\n").first(where: { $0.hasPrefix("fanout-clients-report: ") }) else {
            throw FanoutError("The clients printed no report:\n\(log.suffix(2000))")
        }
        let report = try JSONDecoder().decode(
            FanoutClientsReport.self,
            from: Data(line.dropFirst("fanout-clients-report: ".count).utf8)
        )
        let deliveries = report.deliveries
        let elapsedSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(
            "\(label) \(mutations) mutations in \(Self.format(elapsed)) s, achieved "
                + String(format: "%.1f", Double(mutations) / elapsedSeconds) + " mutations/s"
                + (failures > 0 ? ", \(failures) failed" : "")
        )
        print(
            "\(label) \(deliveries.delivered) of \(deliveries.expected) deliveries; lost (not delivered \(Self.format(drain)) s after the last mutation) \(deliveries.lost), "
                + "duplicated \(deliveries.duplicated), out of order \(deliveries.outOfOrder), unexpected \(deliveries.unexpected)"
        )
        if report.lastDelivery > beganWallClock {
            let seconds = Double(report.lastDelivery - beganWallClock) / 1e6
            print(
                "\(label) "
                    + String(format: "%.0f deliveries/s", Double(deliveries.delivered) / seconds)
                    + " from the first mutation to the last delivery"
            )
        }
        print(
            "\(label) latency p50 \(Self.format(deliveries.p50)) ms, p99 \(Self.format(deliveries.p99)) ms, "
                + "max \(Self.format(deliveries.max)) ms"
        )
        let answered = answerTimes.sorted()
        print(
            "\(label) mutations answered in p50 \(Self.format(DeliverySummary.percentile(0.5, of: answered))) ms, "
                + "p99 \(Self.format(DeliverySummary.percentile(0.99, of: answered))) ms, max "
                + "\(Self.format(answered.last.map { Double($0) / 1000 })) ms"
        )
        print(
            "\(label) CPU time, server process "
                + String(format: "%.2f s (%.2f s while mutating)", serverCPU, serverCPUMutations)
                + ", clients process " + String(format: "%.2f s", report.cpuSeconds)
                + String(format: " (+%.2f s connecting)", report.connectCPUSeconds)
        )
        if let firstError = report.firstError {
            print("\(label) \(report.errors) client errors, first: \(firstError)")
        }
        return Measured(deliveries: deliveries, serverCPUMutations: serverCPUMutations, clientsCPU: report.cpuSeconds)
    }

    /// `value` as a multiple of `baseline`, such as `2.41x`.
    private static func ratio(_ value: Double?, _ baseline: Double?) -> String {
        guard let value, let baseline, baseline > 0 else { return "n/a" }
        return String(format: "%.2fx", value / baseline)
    }

    /// The path of this program, for starting it again as the clients.
    private static func executablePath() throws -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else {
            throw FanoutError("Could not read /proc/self/exe (errno \(errno)) to start the clients.")
        }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `name`'s path in `PATH`, if it is there.
    private static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }

    private static func text(of file: URL) throws -> String {
        guard FileManager.default.fileExists(atPath: file.path(percentEncoded: false)) else { return "" }
        return try String(contentsOf: file, encoding: .utf8)
    }

    private static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.1f", Double(seconds) + Double(attoseconds) / 1e18)
    }

    private static func format(_ milliseconds: Double?) -> String {
        milliseconds.map { String(format: "%.2f", $0) } ?? "n/a"
    }
}
