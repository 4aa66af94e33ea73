import AWSPluginsCore
import Amplify
import Foundation
import StratusTesting
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Three `stratus serve` processes on one PostgreSQL database behind nginx, as
/// `Examples/cluster` runs them: one is SIGKILLed while subscribers listen and a writer writes
/// through nginx.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx"), "needs Debian's nginx"))
struct ClusterTests {
    static let apiKey = "da2-clusterclusterclustercluster"

    /// An API key on the real-time connection.
    struct APIKeyAuthorizer: AppSyncRealTimeAuthorizer {
        func connectionAuthorization(graphQLURL: URL) async throws -> [String: String] {
            ["host": "\(graphQLURL.host ?? ""):\(graphQLURL.port ?? 80)", "x-api-key": ClusterTests.apiKey]
        }

        func startAuthorization(graphQLURL: URL, data: String) async throws -> [String: String] {
            try await connectionAuthorization(graphQLURL: graphQLURL)
        }
    }

    /// What one subscriber heard: `id@rating` per update, and how often its connection dropped.
    final class Heard: Sendable {
        private let state = Mutex<(updates: [String], drops: Int, connected: Bool)>(([], 0, false))
        func record(_ update: String) { state.withLock { $0.updates.append(update) } }
        func connection(_ connected: Bool) {
            state.withLock {
                if $0.connected && !connected { $0.drops += 1 }
                $0.connected = connected
            }
        }
        var updates: [String] { state.withLock { $0.updates } }
        var drops: Int { state.withLock { $0.drops } }
        var connected: Bool { state.withLock { $0.connected } }
    }

    /// Sends a mutation through nginx with an Idempotency-Key, again until it is answered (an
    /// instance killed under it answers nothing; the key makes the repeat safe).
    static func mutate(_ query: String, at endpoint: URL) async throws -> String {
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["query": query]), as: UTF8.self)
        let key = UUID().uuidString
        var last = ""
        for _ in 0..<50 {
            if let exchange = try? await HTTPExchange(
                endpoint,
                post: body,
                headers: ["x-api-key": apiKey, "Idempotency-Key": key, "Content-Type": "application/json"]
            ), exchange.status == 200 {
                return exchange.body
            }
            last = "no answer"
            try await Task.sleep(for: .milliseconds(100))
        }
        return last
    }

    /// Starts nginx from `Examples/cluster/nginx.conf.template` in `directory/nginx`, in front of
    /// the instances on `upstreamPorts`, and waits until it answers `/health`; returns it and
    /// its port.
    static func startNginx(upstreamPorts: [Int], in directory: TemporaryDirectory) async throws -> (ChildProcess, Int) {
        let port = try freeLoopbackPort()
        let template = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "Examples/cluster/nginx.conf.template")
        let nginxDirectory = directory.url.appending(path: "nginx")
        try FileManager.default.createDirectory(at: nginxDirectory, withIntermediateDirectories: true)
        let configuration = try String(contentsOf: template, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("#") }
            .joined(separator: "\n")
            // One process, no workers: when the test ends, however it ends, killing nginx leaves
            // no worker behind without its master.
            .replacingOccurrences(of: "daemon off;", with: "daemon off;\nmaster_process off;")
            .replacingOccurrences(of: "@DIR@", with: nginxDirectory.path)
            .replacingOccurrences(of: "@PORT@", with: "\(port)")
            .replacingOccurrences(
                of: "@UPSTREAMS@",
                with: upstreamPorts.map { "        server 127.0.0.1:\($0);" }.joined(separator: "\n")
            )
        let configurationFile = try directory.write(configuration, to: "nginx/nginx.conf")
        let nginx = try await ChildProcess.start(
            ["/usr/sbin/nginx", "-c", configurationFile.path, "-p", nginxDirectory.path],
            in: directory.url,
            output: directory.url.appending(path: "nginx/stdout.txt"),
            errorOutput: directory.url.appending(path: "nginx/stderr.txt")
        )
        var ready = false
        for _ in 0..<100 where !ready {
            ready = (try? await HTTPExchange(URL(string: "http://127.0.0.1:\(port)/health")!))?.status == 200
            if !ready { try await Task.sleep(for: .milliseconds(50)) }
        }
        let nginxErrors = [
            (try? String(contentsOf: nginxDirectory.appending(path: "stderr.txt"), encoding: .utf8)) ?? "",
            (try? String(contentsOf: nginxDirectory.appending(path: "error.log"), encoding: .utf8)) ?? "",
        ].joined()
        guard ready else {
            nginx.kill()
            throw StratusProcess.Failure(description: "nginx did not answer: \(nginxErrors)")
        }
        return (nginx, port)
    }

    /// Sends a WebSocket upgrade of the real-time endpoint on a connection of its own to
    /// `127.0.0.1:port` and returns the status line of the answer.
    static func upgradeStatusLine(port: Int, apiKey: String) throws -> String {
        let header = Data(#"{"host":"127.0.0.1:\#(port)","x-api-key":"\#(apiKey)"}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "%3D")
        let request =
            "GET /graphql/realtime?header=\(header)&payload=e30%3D HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
            + "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: graphql-ws\r\n\r\n"
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        try #require(connected, "no connection to 127.0.0.1:\(port)")
        let bytes = Array(request.utf8)
        try #require(send(descriptor, bytes, bytes.count, 0) == bytes.count)
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while !String(decoding: answer, as: UTF8.self).contains("\r\n") {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            answer += buffer[0..<count]
        }
        return String(String(decoding: answer, as: UTF8.self).split(separator: "\r\n").first ?? "")
    }

    /// nginx keeps upstream connections alive between requests; a real-time upgrade sent on one
    /// that served a request before was answered 307 by the instance (a redirect to the same
    /// URI with `Connection: close`), which clients take as a failed handshake.
    @Test(.timeLimit(.minutes(1)))
    func anUpgradeAfterRequestsThroughNginxIsAnUpgrade() async throws {
        let directory = try TemporaryDirectory()
        let schema = try directory.write("type Post @model { id: ID! title: String }", to: "schema.graphql")
        let server = try await ServeCommandTests.Serving(
            ["--schema", schema.path, "--data-dir", directory.path("data")],
            in: directory
        )
        let (nginx, port) = try await Self.startNginx(upstreamPorts: [server.port], in: directory)
        defer { nginx.kill() }
        let endpoint = try #require(URL(string: "http://127.0.0.1:\(port)/graphql"))
        #expect(try Self.upgradeStatusLine(port: port, apiKey: server.apiKey) == "HTTP/1.1 101 Switching Protocols")
        for _ in 0..<3 {
            let listed = try await HTTPExchange(
                endpoint,
                post: #"{"query": "{ listPosts { items { id } } }"}"#,
                headers: ["x-api-key": server.apiKey]
            )
            #expect(listed.status == 200)
            #expect(try Self.upgradeStatusLine(port: port, apiKey: server.apiKey) == "HTTP/1.1 101 Switching Protocols")
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func aKilledInstancesSubscribersReconnectThroughNginxAndResyncWithoutLoss() async throws {
        let directory = try TemporaryDirectory()
        let database = try await PostgresTestCluster.shared.makeDatabase()
        try directory.write(
            #"{"authorization": {"defaultMode": "API_KEY", "apiKeys": [{"value": "\#(Self.apiKey)"}]}}"#,
            to: "stratus.json"
        )
        let schema = try directory.write(
            "type Post @model { id: ID! title: String! rating: Int! }",
            to: "schema.graphql"
        )
        var servers: [ServeCommandTests.Serving] = []
        for instance in 0..<3 {
            let output = directory.url.appending(path: "instance-\(instance)")
            try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
            servers.append(
                try await ServeCommandTests.Serving(
                    [
                        "--schema", schema.path, "--config", "stratus.json", "--database", database,
                        "--config-output", output.path,
                    ],
                    in: directory
                )
            )
        }

        // nginx in front, from the example's template.
        let (nginx, port) = try await Self.startNginx(upstreamPorts: servers.map(\.port), in: directory)
        defer { nginx.kill() }
        let endpoint = try #require(URL(string: "http://127.0.0.1:\(port)/graphql"))

        let records = 10
        for record in 0..<records {
            let created = try await Self.mutate(
                #"mutation { createPost(input: {id: "r\#(record)", title: "t", rating: 0}) { id } }"#,
                at: endpoint
            )
            #expect(created == #"{"data":{"createPost":{"id":"r\#(record)"}}}"#)
        }

        // Subscribers through nginx, each on a connection of its own: nginx spreads them.
        var reconnection = AppSyncRealTimeConfiguration()
        reconnection.initialDelay = .milliseconds(100)
        reconnection.maximumDelay = .milliseconds(500)
        // STRATUS_CLUSTER_SUBSCRIBERS and STRATUS_CLUSTER_UPDATES scale the run up by hand.
        let environment = ProcessInfo.processInfo.environment
        let subscribers = environment["STRATUS_CLUSTER_SUBSCRIBERS"].flatMap { Int($0) } ?? 12
        var heard: [Heard] = []
        var listeners: [Task<Void, Never>] = []
        for _ in 0..<subscribers {
            let client = AppSyncRealTimeClient(
                graphQLURL: endpoint,
                authorizer: APIKeyAuthorizer(),
                configuration: reconnection
            )
            let events = await client.subscribe(data: #"{"query":"subscription { onUpdatePost { id rating } }"}"#)
            let subscriber = Heard()
            heard.append(subscriber)
            listeners.append(
                Task {
                    do {
                        for try await event in events {
                            switch event {
                            case .connection(.connected): subscriber.connection(true)
                            case .connection(.disconnected), .connection(.connecting): subscriber.connection(false)
                            case .data(let value):
                                let post = value["data"]?["onUpdatePost"]
                                subscriber.record(
                                    "\(post?["id"]?.stringValue ?? "?")@\(post?["rating"]?.intValue ?? -1)"
                                )
                            }
                        }
                    } catch {
                        subscriber.record("error: \(error)")
                    }
                }
            )
        }
        defer { for listener in listeners { listener.cancel() } }
        let deadline = ContinuousClock.now + .seconds(30)
        while !heard.allSatisfy(\.connected), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let allConnected = heard.allSatisfy { $0.connected }
        try #require(allConnected)

        // 200 updates through nginx; the first instance is SIGKILLed after 60 of them.
        let updates = max(100, environment["STRATUS_CLUSTER_UPDATES"].flatMap { Int($0) } ?? 200)
        var versions = Array(repeating: 1, count: records)
        for update in 1...updates {
            if update == 61 {
                servers[0].process.killNow()
                // Its subscribers see the drop and reconnect through nginx to another instance.
                let dropDeadline = ContinuousClock.now + .seconds(20)
                while !(heard.contains { $0.drops > 0 } && heard.allSatisfy { $0.connected }),
                    ContinuousClock.now < dropDeadline
                {
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            let record = update % records
            let answer = try await Self.mutate(
                #"mutation { updatePost(input: {id: "r\#(record)", rating: \#(update), _version: \#(versions[record])}) "#
                    + "{ id rating } }",
                at: endpoint
            )
            versions[record] += 1
            #expect(answer == #"{"data":{"updatePost":{"id":"r\#(record)","rating":\#(update)}}}"#)
        }
        let all = (1...updates).map { "r\($0 % records)@\($0)" }
        let waitUntil = ContinuousClock.now + .seconds(20)
        while heard.contains(where: { $0.drops == 0 ? $0.updates.count < updates : $0.updates.last != all.last }),
            ContinuousClock.now < waitUntil
        {
            try await Task.sleep(for: .milliseconds(50))
        }

        // Resync, as DataStore does after a reconnection: each item's last state.
        let sync = try await Self.mutate("query { syncPosts(lastSync: 0) { items { id rating } } }", at: endpoint)
        let items =
            try #require(
                ((try JSONSerialization.jsonObject(with: Data(sync.utf8)) as? [String: Any])?["data"] as? [String: Any])?[
                    "syncPosts"
                ] as? [String: Any]
            )["items"] as? [[String: Any]]
        let finalRating = Dictionary(
            uniqueKeysWithValues: (items ?? []).map { ($0["id"] as? String ?? "?", $0["rating"] as? Int ?? -1) }
        )
        for record in 0..<records {
            #expect(finalRating["r\(record)"] == updates - (updates - record) % records)
        }

        let dropped = heard.filter { $0.drops > 0 }
        #expect(!dropped.isEmpty, "no subscriber was on the killed instance")
        for subscriber in heard {
            let received = subscriber.updates
            #expect(Set(received).count == received.count, "duplicated deliveries: \(received.count)")
            #expect(Set(received).isSubset(of: Set(all)), "unexpected deliveries")
            if subscriber.drops == 0 {
                #expect(received == all)
            } else {
                // It reconnected through nginx to another instance and heard every update made
                // after that; what it missed while away, the resync above gives.
                #expect(subscriber.connected)
                #expect(Set(all[60...]).isSubset(of: Set(received)))
                // Each item's order is kept across the reconnection.
                for record in 0..<records {
                    let ratings = received.filter { $0.hasPrefix("r\(record)@") }.compactMap {
                        Int($0.split(separator: "@")[1])
                    }
                    #expect(ratings == ratings.sorted())
                }
            }
        }
    }
}
