import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The configuration of nginx in front of the chaos cluster's instances: the repository's
/// `Examples/cluster/nginx.conf.template` with its placeholders filled, in one process.
enum ChaosNginxConfiguration {
    /// The repository's `Examples/cluster/nginx.conf.template`.
    static let template = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            "Examples/cluster/nginx.conf.template"
        )

    /// `template` with `@DIR@` (where nginx writes its pid, logs and temporary files), `@PORT@`
    /// (where it listens) and `@UPSTREAMS@` (a `server` line for each of `upstreams`) filled, its
    /// comments dropped, and `master_process off;`: one process and no workers, so that killing
    /// it (the nemesis, the end of the run, the end of this program) leaves no worker serving
    /// without its master.
    ///
    /// - Throws: ``ChaosError`` when the template lacks one of the placeholders or an upstream
    ///   has no port.
    static func filled(_ template: String, directory: URL, port: Int, upstreams: [URL]) throws -> String {
        for placeholder in ["@DIR@", "@PORT@", "@UPSTREAMS@", "daemon off;"] where !template.contains(placeholder) {
            throw ChaosError(
                "The nginx template \(Self.template.path) has no '\(placeholder)', which --nginx fills in."
            )
        }
        let servers = try upstreams.map { upstream in
            guard let port = upstream.port else {
                throw ChaosError("The instance endpoint \(upstream) has no port for nginx's upstream.")
            }
            return "        server 127.0.0.1:\(port);"
        }
        return template.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("#") }
            .joined(separator: "\n")
            .replacingOccurrences(of: "daemon off;", with: "daemon off;\nmaster_process off;")
            .replacingOccurrences(of: "@DIR@", with: directory.path)
            .replacingOccurrences(of: "@PORT@", with: String(port))
            .replacingOccurrences(of: "@UPSTREAMS@", with: servers.joined(separator: "\n"))
    }
}

#if STRATUS_BENCH_DATASTORE
    import StratusTesting
    import Synchronization

    /// nginx in front of the chaos cluster's instances (`StratusBench chaos --nginx`): Debian's
    /// `/usr/sbin/nginx` on a port of its own, its files (configuration, pid, `access.log`,
    /// `error.log`, and each start's standard output and error) in `nginx/` of the run's
    /// directory, which a failing run keeps. Devices reach it through their fault proxies, and
    /// it passes each request and real-time WebSocket on to any instance.
    final class ChaosNginx: Sendable {
        static let executable = URL(fileURLWithPath: "/usr/sbin/nginx")

        /// `nginx/` in the run's directory.
        let directory: URL
        /// The port it listens on, kept across restarts.
        let port: Int
        /// The GraphQL endpoint through nginx.
        var endpoint: URL { URL(string: "http://127.0.0.1:\(port)/graphql")! }

        private let process = Mutex<ChildProcess?>(nil)
        private let starts = Mutex(0)

        private init(directory: URL, port: Int) {
            self.directory = directory
            self.port = port
        }

        /// Writes the configuration for `upstreams` in `files/nginx` and starts nginx.
        ///
        /// - Throws: ``ChaosError`` when nginx is not installed, the template cannot be read or
        ///   filled, or nginx does not start.
        static func start(in files: URL, upstreams: [URL]) async throws -> ChaosNginx {
            try requireInstalled()
            let directory = files.appendingPathComponent("nginx")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let template: String
            do {
                template = try String(contentsOf: ChaosNginxConfiguration.template, encoding: .utf8)
            } catch {
                throw ChaosError("--nginx cannot read \(ChaosNginxConfiguration.template.path): \(error)")
            }
            let port = try freeLoopbackPort()
            try Data(
                try ChaosNginxConfiguration.filled(template, directory: directory, port: port, upstreams: upstreams)
                    .utf8
            ).write(to: directory.appendingPathComponent("nginx.conf"))
            let nginx = ChaosNginx(directory: directory, port: port)
            try await nginx.start()
            return nginx
        }

        /// - Throws: ``ChaosError`` naming the package to install when ``executable`` is missing.
        static func requireInstalled() throws {
            guard FileManager.default.isExecutableFile(atPath: executable.path) else {
                throw ChaosError(
                    "--nginx runs \(executable.path), which is not installed: install Debian's package 'nginx' "
                        + "(apt-get install nginx)."
                )
            }
        }

        /// How many times nginx was started.
        var startCount: Int { starts.withLock { $0 } }

        /// Starts nginx and waits until it accepts connections; a start that ends before (its
        /// port still held by the process just killed) is tried again, for up to a minute.
        func start() async throws {
            let deadline = ContinuousClock.now + .seconds(60)
            while true {
                let start = starts.withLock { starts in
                    defer { starts += 1 }
                    return starts
                }
                let output = directory.appendingPathComponent("nginx.\(start).out")
                let started = try await ChildProcess.start(
                    [
                        Self.executable.path, "-c", directory.appendingPathComponent("nginx.conf").path, "-p",
                        directory.path, "-e", directory.appendingPathComponent("error.log").path,
                    ],
                    in: directory,
                    output: output
                )
                while started.isRunning, ContinuousClock.now < deadline {
                    if Self.accepts(port: port) {
                        process.withLock { $0 = started }
                        return
                    }
                    try await Task.sleep(for: .milliseconds(50))
                }
                started.kill()
                _ = try? await started.wait()
                guard ContinuousClock.now < deadline else {
                    let said = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
                    throw ChaosError(
                        "nginx did not accept connections on port \(port) within a minute: \(said)(its files are in "
                            + "\(directory.path))"
                    )
                }
                try await Task.sleep(for: .milliseconds(100))
            }
        }

        /// SIGKILLs nginx and waits until it ended: every connection through it breaks at once.
        func kill() async throws {
            guard let running = process.withLock({ $0.take() }) else { return }
            running.send(signal: SIGKILL)
            _ = try await running.wait()
        }

        /// How nginx ended when it was started and ended without being killed; `nil` while it
        /// runs or after ``kill()``.
        func endedByItself() async throws -> ChildProcess.Status? {
            let ended = process.withLock { process -> ChildProcess? in
                guard let running = process, !running.isRunning else { return nil }
                process = nil
                return running
            }
            return try await ended?.wait()
        }

        /// Stops nginx (SIGTERM, then SIGKILL after five seconds).
        func stop() async {
            guard let running = process.withLock({ $0.take() }) else { return }
            _ = try? await running.stop()
        }

        /// Whether something accepts a TCP connection on `127.0.0.1:port`.
        private static func accepts(port: Int) -> Bool {
            #if canImport(Glibc)
                let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #else
                let descriptor = socket(AF_INET, SOCK_STREAM, 0)
            #endif
            guard descriptor >= 0 else { return false }
            defer { close(descriptor) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            return withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
        }
    }
#endif
