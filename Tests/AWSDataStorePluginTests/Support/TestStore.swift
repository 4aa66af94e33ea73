import Amplify
import BlogModels
import Foundation
import Synchronization

@testable import AWSDataStorePlugin

/// A directory under the system's temporary directory, removed when the test is done.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stratus-datastore-\(UUID().uuidString)",
            isDirectory: true
        )
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// The path of `name` in the directory.
    func file(_ name: String) -> URL { url.appendingPathComponent(name) }
}

/// The messages a plugin logged.
final class LogRecorder: Sendable {
    private let entries = Mutex<[DataStoreConfiguration.LogEntry]>([])

    var messages: [String] { entries.withLock { $0.map(\.message) } }

    var handler: @Sendable (DataStoreConfiguration.LogEntry) -> Void {
        { entry in self.entries.withLock { $0.append(entry) } }
    }
}

/// A plugin on a database of its own in a temporary directory.
struct TestStore: Sendable {
    let directory: TemporaryDirectory
    let plugin: AWSDataStorePlugin
    let logs: LogRecorder

    var databaseURL: URL { directory.file("datastore.sqlite") }

    /// A store of the blog fixture's models.
    init(
        _ registration: some AmplifyModelRegistration = BlogRegistration(),
        durability: DataStoreConfiguration.Durability = .normal
    ) throws {
        directory = try TemporaryDirectory()
        logs = LogRecorder()
        plugin = Self.makePlugin(
            registration,
            at: directory.file("datastore.sqlite"),
            logs: logs,
            durability: durability
        )
    }

    /// Another plugin on the same database, as the app would have after a restart.
    func reopened(_ registration: some AmplifyModelRegistration = BlogRegistration()) -> AWSDataStorePlugin {
        Self.makePlugin(registration, at: databaseURL, logs: logs, durability: .normal)
    }

    static func makePlugin(
        _ registration: some AmplifyModelRegistration,
        at url: URL,
        logs: LogRecorder,
        durability: DataStoreConfiguration.Durability = .normal
    ) -> AWSDataStorePlugin {
        var configuration = DataStoreConfiguration(databaseURL: url)
        configuration.log = logs.handler
        configuration.durability = durability
        return AWSDataStorePlugin(modelRegistration: registration, configuration: configuration)
    }

    /// Marks every pending outbox event as sent, as the sync engine does: later changes to
    /// their records queue behind them instead of merging into them.
    func markAllSent() async throws {
        let engine = try engine
        _ = try await engine.beginSending(try await engine.outboxEvents())
    }

    /// The open engine.
    var engine: StorageEngine {
        get throws { try plugin.openEngine() }
    }
}

/// Blog fixture models with the fields tests set.
enum Fixtures {
    static func blog(_ id: String = "b1", name: String = "Blog") -> Blog {
        Blog(id: id, name: name)
    }

    static func post(
        _ id: String,
        title: String = "Title",
        blog: Blog = Fixtures.blog(),
        status: PostStatus = .draft,
        rating: Int? = 3
    ) -> BlogPost {
        BlogPost(id: id, title: title, blog: blog, status: status, rating: rating)
    }
}

/// The blog fixture's models, named apart from the DataStore guide's models of this module.
typealias BlogPost = BlogModels.Post
typealias BlogComment = BlogModels.Comment
typealias BlogRegistration = BlogModels.AmplifyModels

/// Values collected from several tasks.
final class Recorder<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])

    func append(_ value: Value) {
        storage.withLock { $0.append(value) }
    }

    var values: [Value] { storage.withLock { $0 } }
    var count: Int { storage.withLock { $0.count } }
}
