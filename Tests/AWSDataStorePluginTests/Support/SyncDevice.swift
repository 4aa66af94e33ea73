import AWSAPIPlugin
import Amplify
import BlogModels
import Foundation
import StratusServer
import StratusTesting
import Synchronization

@testable import AWSDataStorePlugin

/// The blog fixture served by a local backend, with every model readable and writable with
/// the API key (a public rule added to each `@auth`), so that devices sync with the default mode.
enum SyncFixture {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Fixtures")

    static func schema() throws -> String {
        try String(contentsOf: fixtures.appending(path: "blog.graphql"), encoding: .utf8)
            .replacingOccurrences(of: "@auth(rules: [", with: "@auth(rules: [{ allow: public }, ")
    }

    static func backend(_ configuration: ServerConfiguration = ServerConfiguration()) async throws -> LocalBackend {
        try await LocalBackend.start(schema: try schema(), configuration: configuration)
    }
}

/// One device: a DataStore on its own database syncing through its own API plugin, with the
/// events of its own hub recorded.
final class SyncDevice: Sendable {
    let directory: TemporaryDirectory
    let plugin: AWSDataStorePlugin
    let hub = HubCategory()
    let events = Recorder<HubPayload>()
    let errors = Recorder<DataStoreError>()
    let logs = LogRecorder()

    init(
        backend: LocalBackend,
        registration: any AmplifyModelRegistration = BlogRegistration(),
        directory: TemporaryDirectory? = nil,
        through proxy: FaultProxy? = nil,
        interceptor: (any URLRequestInterceptor)? = nil,
        adjust: (inout DataStoreConfiguration) -> Void = { _ in }
    ) throws {
        self.directory = try directory ?? TemporaryDirectory()
        var configuration = DataStoreConfiguration(databaseURL: self.directory.file("datastore.sqlite"))
        configuration.log = logs.handler
        configuration.durability = .normal
        let errors = errors
        configuration.errorHandler = { errors.append($0) }
        adjust(&configuration)
        let api = try backend.makeAPIPlugin(through: proxy)
        if let interceptor { try api.add(interceptor: interceptor, for: "stratus") }
        plugin = AWSDataStorePlugin(
            modelRegistration: registration,
            configuration: configuration,
            api: api,
            hub: hub
        )
        let events = events
        hub.listen(to: .dataStore) { events.append($0) }
    }

    /// The names of the events so far.
    var eventNames: [String] { events.values.map(\.eventName) }

    /// Starts syncing and waits until DataStore is ready.
    func startAndWaitUntilReady() async throws {
        try await plugin.start()
        do {
            // Generous: each device subscribes to three events of every model, and the whole suite
            // running in parallel on two cores makes that slow.
            try await AWSDataStorePluginTests.waitUntil(
                "\(HubPayload.EventName.DataStore.ready) on this device",
                timeout: .seconds(90)
            ) {
                self.eventNames.contains(HubPayload.EventName.DataStore.ready)
            }
        } catch {
            throw WaitTimeout(
                what: "DataStore.ready (events: \(eventNames); errors: \(errors.values); log: \(logs.messages))"
            )
        }
    }

    /// What happened on this device, for a failure message: the last Hub events, the errors
    /// and the log.
    var diagnostics: String {
        "events: \(eventNames.suffix(40)); errors: \(errors.values); log: \(logs.messages.suffix(20))"
    }

    /// Waits until `condition` holds on this device; a timeout says what the device went through.
    func waitUntil(_ what: String, _ condition: @Sendable () async throws -> Bool) async throws {
        do {
            try await AWSDataStorePluginTests.waitUntil(what, condition)
        } catch let timeout as WaitTimeout {
            throw WaitTimeout(what: "\(timeout.what) (\(diagnostics))")
        }
    }

    /// Waits until the outbox is empty.
    func waitUntilOutboxIsEmpty() async throws {
        try await waitUntil("an empty outbox") { try await self.plugin.pendingMutations().isEmpty }
    }
}

/// Waits until `condition` holds, checking every 20 ms, for at most `timeout`.
func waitUntil(
    _ what: String,
    timeout: Duration = .seconds(60),
    _ condition: @Sendable () async throws -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while clock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw WaitTimeout(what: what)
}

/// A condition a test waited for did not come true in time.
struct WaitTimeout: Error, CustomStringConvertible {
    let what: String
    var description: String { "Timed out waiting for \(what)." }
}
