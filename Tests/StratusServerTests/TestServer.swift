import Foundation
import StratusCodegen
import StratusServer
import Synchronization
import Testing

/// A clock tests set and advance by hand.
final class TestClock: Sendable {
    private let instant: Mutex<Date>

    /// Starts at 2023-11-14T22:13:20.000Z (1,700,000,000,000 ms).
    init(milliseconds: Int = 1_700_000_000_000) {
        instant = Mutex(Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    var now: Date { instant.withLock { $0 } }

    func advance(milliseconds: Int) {
        instant.withLock { $0 += Double(milliseconds) / 1000 }
    }
}

/// The messages a server logged.
final class LogRecorder: Sendable {
    private let storage = Mutex<[String]>([])

    func record(_ message: String) {
        storage.withLock { $0.append(message) }
    }

    var messages: [String] { storage.withLock { $0 } }
}

/// A server on a temporary data directory, removed when the test ends.
final class TestServer: Sendable {
    let server: StratusServer
    let clock: TestClock
    let directory: URL
    let log = LogRecorder()
    private let removesDirectory: Bool

    init(
        _ source: String,
        configuration: ServerConfiguration = ServerConfiguration(),
        directory: URL? = nil,
        clock: TestClock = TestClock()
    ) throws {
        let schema = try SchemaParser().parse(source, fileName: "schema.graphql")
        removesDirectory = directory == nil
        self.directory = directory ?? temporaryDirectory()
        self.clock = clock
        let log = log
        server = try StratusServer(
            schema: schema,
            configuration: configuration,
            dataDirectory: self.directory,
            clock: { clock.now },
            log: { log.record($0) }
        )
    }

    /// Runs a request and returns the response body as text.
    func run(_ query: String, _ variables: JSONObject = [:], identity: Identity = .apiKey) async -> String {
        await server.execute(query: query, variables: variables, identity: identity).text
    }

    /// Runs a request and returns the response body.
    func json(_ query: String, _ variables: JSONObject = [:]) async -> JSON {
        await server.execute(query: query, variables: variables, identity: .apiKey).body
    }

    deinit {
        try? server.close()
        if removesDirectory {
            try? FileManager.default.removeItem(at: directory)
        }
    }
}

/// A new directory path under the temporary directory.
func temporaryDirectory() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("stratus-tests-\(UUID().uuidString)")
}
