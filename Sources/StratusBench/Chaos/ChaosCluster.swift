#if STRATUS_BENCH_DATASTORE
    import Foundation
    import Logging
    import PostgresNIO
    import StratusServer
    import StratusTesting
    import Synchronization

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// The backend of `StratusBench chaos --store postgres`: a throwaway PostgreSQL cluster
    /// (`scripts/postgres-throwaway`) and `stratus serve` processes sharing one database of it,
    /// each on a port of its own, which the nemesis kills, restarts, and cuts from the database;
    /// with `--nginx`, nginx in front of them (``ChaosNginx``).
    ///
    /// The cluster commits synchronously (the throwaway script turns that off for tests): an
    /// immediate shutdown is a crash, and a commit acknowledged before its WAL left PostgreSQL's
    /// memory would be lost by PostgreSQL, not by the servers under test. It still skips `fsync`:
    /// the machine does not crash, only processes do.
    final class ChaosCluster: Sendable {
        /// The database the instances share.
        static let database = "chaos"
        static let apiKey = "da2-chaoschaoschaoschaoschaoschaos"

        /// The cluster's directory (data in `data/`, log in `postgres.log`).
        let directory: URL
        /// The port PostgreSQL listens on, kept across restarts.
        let port: Int
        /// `postgres://stratus@127.0.0.1:<port>/chaos`.
        var databaseURL: String { "postgres://stratus@127.0.0.1:\(port)/\(Self.database)" }
        /// Each instance's GraphQL endpoint, kept across restarts.
        let endpoints: [URL]

        private let files: URL
        private let bin: URL
        private let stratus: URL
        private let processes = Mutex<[Int: ChildProcess]>([:])
        private let starts = Mutex<[Int: Int]>([:])
        private let hangs = Mutex<[String]>([])
        private let front = Mutex<ChaosNginx?>(nil)

        private init(files: URL, directory: URL, port: Int, bin: URL, stratus: URL, endpoints: [URL]) {
            self.files = files
            self.directory = directory
            self.port = port
            self.bin = bin
            self.stratus = stratus
            self.endpoints = endpoints
        }

        /// The repository's `scripts/postgres-throwaway`.
        static let throwaway = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                "scripts/postgres-throwaway"
            )

        /// Starts a cluster in `files/postgres`, makes the shared database, and starts `instances`
        /// instances of `stratus` on it with `conflicts`, and nginx in front of them in
        /// `files/nginx` when `nginx` is true.
        ///
        /// - Throws: ``ChaosError`` naming what is missing (PostgreSQL, the `stratus` executable,
        ///   nginx) or what failed to start.
        static func start(
            in files: URL,
            instances: Int,
            stratus: URL,
            conflicts: ChaosOptions.Conflicts,
            nginx: Bool = false
        ) async throws -> ChaosCluster {
            // Before PostgreSQL starts: a missing nginx is told at once.
            if nginx { try ChaosNginx.requireInstalled() }
            guard FileManager.default.isExecutableFile(atPath: stratus.path) else {
                throw ChaosError(
                    "There is no stratus executable at \(stratus.path), which --store postgres runs as its instances. "
                        + "Build it (swift build -c release --product stratus) or pass --stratus PATH."
                )
            }
            let bin = try postgresBin()
            let directory = files.appendingPathComponent("postgres")
            let started = try await ChildProcess.run([throwaway.path, "start", directory.path])
            guard started.status == .exited(0), let url = URLComponents(string: started.outputText.trimmed),
                let port = url.port
            else {
                throw ChaosError(
                    "\(throwaway.path) start \(directory.path) \(started.status):\n\(started.errorText)"
                )
            }
            try await withConnection(port: port, database: "postgres") { connection, logger in
                for sql in [
                    "ALTER SYSTEM SET synchronous_commit = on", "SELECT pg_reload_conf()",
                    "CREATE DATABASE \"\(database)\"",
                ] {
                    try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
                }
            }
            let schema = files.appendingPathComponent("schema.graphql")
            try Data(ChaosSchema.text.utf8).write(to: schema)
            // The custom handler is this program's `chaos-conflict-handler`, as a command.
            let handler = JSON.array([
                .string(URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path),
                "chaos-conflict-handler",
            ])
            let resolution: String =
                switch conflicts {
                case .automerge: #""conflictResolution": "AUTOMERGE""#
                case .optimistic: #""conflictResolution": "OPTIMISTIC_CONCURRENCY""#
                case .custom: #""conflictHandler": {"command": \#(handler.text), "timeoutSeconds": 30}"#
                }
            // The journal is kept a week, as the embedded backend keeps it: a run outlasts the
            // default 30 minutes, and the check reads every change of the run back from it.
            try Data(
                #"""
                {"authorization": {"defaultMode": "API_KEY", "apiKeys": [{"value": "\#(apiKey)"}]},
                 "deltaSyncTTLSeconds": 604800, \#(resolution)}
                """#
                .utf8
            ).write(to: files.appendingPathComponent("stratus.json"))
            var endpoints: [URL] = []
            for _ in 0..<instances {
                endpoints.append(URL(string: "http://127.0.0.1:\(try freeLoopbackPort())/graphql")!)
            }
            let cluster = ChaosCluster(
                files: files,
                directory: directory,
                port: port,
                bin: bin,
                stratus: stratus,
                endpoints: endpoints
            )
            do {
                for instance in 0..<instances { try await cluster.startInstance(instance) }
                if nginx {
                    let started = try await ChaosNginx.start(in: files, upstreams: endpoints)
                    cluster.front.withLock { $0 = started }
                }
            } catch {
                await cluster.stop()
                throw error
            }
            return cluster
        }

        /// nginx in front of the instances, when the run has it.
        var nginx: ChaosNginx? { front.withLock { $0 } }

        // MARK: - Instances

        /// How many processes of `stratus serve` were started, those that failed to start included.
        var startCount: Int { starts.withLock { $0.values.reduce(0) { $0 + $1 + 1 } } }

        /// Starts that did not serve within ``startTimeout`` and were killed, a line each.
        var hungStarts: [String] { hangs.withLock { $0 } }

        /// How long a start may take before it counts as hung: an instance serves within a second
        /// or two once PostgreSQL answers.
        static let startTimeout = Duration.seconds(20)

        /// Starts instance `instance` on its port and waits until it serves; an instance that
        /// ends before (PostgreSQL restarting, the port not yet free) is started again, and one
        /// that neither serves nor ends within ``startTimeout`` is killed, recorded in
        /// ``hungStarts`` and started again, for up to two minutes.
        func startInstance(_ instance: Int) async throws {
            let deadline = ContinuousClock.now + .seconds(120)
            let port = endpoints[instance].port ?? 0
            let outputDirectory = files.appendingPathComponent("instance-\(instance)")
            try FileManager.default.createDirectory(at: outputDirectory, withIntermediateDirectories: true)
            while true {
                let start = starts.withLock { starts in
                    starts[instance, default: -1] += 1
                    return starts[instance]!
                }
                let output = files.appendingPathComponent("instance-\(instance).\(start).out")
                let process = try await ChildProcess.start(
                    [
                        stratus.path, "serve", "--port", String(port), "--schema",
                        files.appendingPathComponent("schema.graphql").path, "--config",
                        files.appendingPathComponent("stratus.json").path, "--database", databaseURL,
                        "--config-output", outputDirectory.path, "--log-requests",
                        // What each instance read from the journal, in the files a failing run keeps.
                        "--log-level", "journal=debug",
                    ],
                    in: files,
                    output: output
                )
                let hung = ContinuousClock.now + Self.startTimeout
                while process.isRunning, ContinuousClock.now < min(deadline, hung) {
                    let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
                    if text.contains("GraphQL endpoint: ") {
                        processes.withLock { $0[instance] = process }
                        return
                    }
                    try await Task.sleep(for: .milliseconds(50))
                }
                if process.isRunning {
                    let line =
                        "stratus serve (instance \(instance)) neither served nor ended within "
                        + "\(Self.startTimeout) of its start; its output is in \(output.path)"
                    print("chaos: HUNG \(line)")
                    hangs.withLock { $0.append(line) }
                }
                process.kill()
                guard ContinuousClock.now < deadline else {
                    throw ChaosError(
                        "stratus serve (instance \(instance)) did not serve within two minutes; its output is in "
                            + output.path
                    )
                }
                try await Task.sleep(for: .milliseconds(250))
            }
        }

        /// SIGKILLs instance `instance` and waits until it ended.
        func killInstance(_ instance: Int) async throws {
            guard let process = processes.withLock({ $0.removeValue(forKey: instance) }) else { return }
            process.send(signal: SIGKILL)
            _ = try await process.wait()
        }

        /// The instances that were started and ended without being killed, with how they ended.
        func instancesEndedByThemselves() async throws -> [(instance: Int, status: ChildProcess.Status)] {
            let ended = processes.withLock { processes in
                let ended = processes.filter { !$0.value.isRunning }
                for instance in ended.keys { processes.removeValue(forKey: instance) }
                return ended
            }
            var result: [(instance: Int, status: ChildProcess.Status)] = []
            for (instance, process) in ended.sorted(by: { $0.key < $1.key }) {
                result.append((instance, try await process.wait()))
            }
            return result
        }

        /// Whether instance `instance` runs (was started and not killed).
        func isRunning(_ instance: Int) -> Bool { processes.withLock { $0[instance]?.isRunning == true } }

        // MARK: - The database

        /// Stops PostgreSQL with `pg_ctl stop -m <mode>` (`fast` or `immediate`).
        ///
        /// - Throws: ``ChaosError`` with `pg_ctl`'s output when it fails.
        func stopPostgres(mode: String) async throws {
            try await pgCtl(["-D", directory.appendingPathComponent("data").path, "-m", mode, "-w", "-t", "60", "stop"])
        }

        /// Starts PostgreSQL again on its port.
        ///
        /// - Throws: ``ChaosError`` with `pg_ctl`'s output when it fails.
        func startPostgres() async throws {
            try await pgCtl([
                "-D", directory.appendingPathComponent("data").path, "-l",
                directory.appendingPathComponent("postgres.log").path, "-w", "-t", "60", "-o", "-p \(port)", "start",
            ])
        }

        /// Terminates the instances' connections to the database (`pg_terminate_backend`): all of
        /// them, or only those listening for other instances' writes. Returns how many.
        func terminate(listenersOnly: Bool) async throws -> Int {
            let listening = listenersOnly ? " AND \"query\" ILIKE 'LISTEN%'" : ""
            return try await Self.withConnection(port: port, database: "postgres") { connection, logger in
                let rows = try await connection.query(
                    PostgresQuery(
                        unsafeSQL: "SELECT count(pg_terminate_backend(\"pid\"))::bigint FROM pg_stat_activity "
                            + "WHERE \"datname\" = '\(Self.database)' AND \"pid\" <> pg_backend_pid() "
                            + "AND \"backend_type\" = 'client backend'\(listening)"
                    ),
                    logger: logger
                )
                var count = 0
                for try await (terminated) in rows.decode(Int64.self) { count = Int(terminated) }
                return count
            }
        }

        /// What every connection to the shared database does, a line each, for a run that did
        /// not settle.
        func activity() async throws -> [String] {
            try await Self.withConnection(port: port, database: "postgres") { connection, logger in
                let rows = try await connection.query(
                    PostgresQuery(
                        unsafeSQL:
                            "SELECT \"pid\"::text, coalesce(\"state\", ''), coalesce(\"wait_event_type\", '') || ' ' "
                            + "|| coalesce(\"wait_event\", ''), coalesce(now() - \"state_change\", '0')::text, "
                            + "left(\"query\", 200) FROM pg_stat_activity WHERE \"datname\" = '\(Self.database)' "
                            + "AND \"pid\" <> pg_backend_pid() ORDER BY \"state_change\""
                    ),
                    logger: logger
                )
                var lines: [String] = []
                for try await (pid, state, wait, age, query) in rows.decode(
                    (String, String, String, String, String).self
                ) {
                    lines.append("pid \(pid) \(state) for \(age) waiting \(wait): \(query)")
                }
                return lines
            }
        }

        /// The delta journal of the shared database, in position order.
        ///
        /// - Throws: ``ChaosError`` when an entry cannot be read, or PostgreSQL's error.
        func journal() async throws -> [ChaosJournalEntry] {
            let rows = try await Self.withConnection(port: port, database: Self.database) { connection, logger in
                var rows: [(String, String)] = []
                let result = try await connection.query(
                    "SELECT \"model\", \"item\" FROM \"_stratus_delta\" ORDER BY \"position\"",
                    logger: logger
                )
                for try await (model, item) in result.decode((String, String).self) { rows.append((model, item)) }
                return rows
            }
            return try rows.map { try ChaosStores.journalEntry(model: $0.0, item: $0.1) }
        }

        /// Writes the shared database to `url` with `pg_dump`, for a failed run's files.
        func dump(to url: URL) async throws {
            let result = try await ChildProcess.run([
                bin.appendingPathComponent("pg_dump").path, "--dbname", databaseURL, "--file", url.path,
            ])
            guard result.status == .exited(0) else {
                throw ChaosError("pg_dump \(result.status): \(result.errorText)")
            }
        }

        /// Stops nginx, kills every instance, and stops and removes the cluster (nginx's files
        /// stay in the run's directory).
        func stop() async {
            await nginx?.stop()
            let running = processes.withLock { processes in
                defer { processes.removeAll() }
                return Array(processes.values)
            }
            for process in running {
                process.send(signal: SIGKILL)
                _ = try? await process.wait()
            }
            _ = try? await ChildProcess.run([Self.throwaway.path, "stop", directory.path])
        }

        // MARK: - Helpers

        /// Runs `pg_ctl` as the cluster's owner (`postgres` when this program runs as root).
        private func pgCtl(_ arguments: [String]) async throws {
            let pgCtl = bin.appendingPathComponent("pg_ctl").path
            let command = (getuid() == 0 ? ["runuser", "-u", "postgres", "--"] : []) + [pgCtl] + arguments
            let result = try await ChildProcess.run(command)
            guard result.status == .exited(0) else {
                throw ChaosError(
                    "\(command.joined(separator: " ")) \(result.status): \(result.outputText)\(result.errorText)"
                )
            }
        }

        /// PostgreSQL's bin directory, as `scripts/postgres-throwaway` finds it.
        private static func postgresBin() throws -> URL {
            if let given = ProcessInfo.processInfo.environment["PG_BIN"], !given.isEmpty {
                return URL(fileURLWithPath: given)
            }
            let root = URL(fileURLWithPath: "/usr/lib/postgresql")
            let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).compactMap(
                Int.init
            )
            guard let newest = versions.max() else {
                throw ChaosError(
                    "--store postgres needs PostgreSQL: install Debian's package 'postgresql' or set PG_BIN to the "
                        + "directory of pg_ctl."
                )
            }
            return root.appendingPathComponent("\(newest)/bin")
        }

        private static func withConnection<T: Sendable>(
            port: Int,
            database: String,
            _ body: (PostgresConnection, Logger) async throws -> T
        ) async throws -> T {
            let configuration = PostgresConnection.Configuration(
                host: "127.0.0.1",
                port: port,
                username: "stratus",
                password: nil,
                database: database,
                tls: .disable
            )
            let logger = Logger(label: "StratusBench.chaos") { _ in SwiftLogNoOpLogHandler() }
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
            do {
                let result = try await body(connection, logger)
                try await connection.close()
                return result
            } catch {
                try? await connection.close()
                throw error
            }
        }
    }

    extension String {
        fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
    }
#endif
