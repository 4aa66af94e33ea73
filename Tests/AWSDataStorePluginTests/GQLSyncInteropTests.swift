import Amplify
import BlogModels
import Foundation
import StratusTesting
import Testing

@testable import AWSDataStorePlugin

/// DataStore and gql, a client nobody here wrote, on the same backend: what gql writes reaches
/// DataStore's store and observers, and what DataStore saves reaches gql's subscription.
@Suite struct GQLSyncInteropTests {
    static let script = URL(filePath: #filePath).deletingLastPathComponent().appending(
        path: "Interop/gql_datastore.py"
    )
    static let install = "install it with: python3 -m pip install 'gql[aiohttp,websockets,botocore]'"

    @Test func writesMadeWithGQLReachObserversAndTheStore() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let device = try SyncDevice(backend: backend)
        try await device.startAndWaitUntilReady()
        let observed = Recorder<String>()
        let observation = Task {
            for try await event in device.plugin.observe(Blog.self) {
                let name = (try? event.decodeModel(as: Blog.self).name) ?? "?"
                observed.append("\(event.mutationType) \(event.modelId) \(name)")
            }
        }
        defer { observation.cancel() }

        let host = "\(backend.endpoint.host!):\(backend.endpoint.port!)"
        let result = try await ChildProcess.run([
            "python3", Self.script.path, "write", backend.endpoint.absoluteString, host, backend.apiKey,
        ])
        try #require(
            result.status == .exited(0),
            "gql failed (\(Self.install)):\n\(result.outputText)\(result.errorText)"
        )

        try await waitUntil("gql's writes in the store") {
            try await device.plugin.query(Blog.self, byId: "g1")?.name == "Edited by gql"
                && observed.values.contains("delete g2 Short-lived")
        }
        #expect(try await device.plugin.query(Blog.self, byId: "g2") == nil)
        #expect(
            observed.values == [
                "create g1 From gql", "update g1 Edited by gql", "create g2 Short-lived", "delete g2 Short-lived",
            ]
        )
        let received = device.events.values.filter { $0.eventName == HubPayload.EventName.DataStore.syncReceived }
        #expect(received.count == 4)
        try await device.plugin.stop()
    }

    @Test func savesMadeWithDataStoreReachAGQLSubscriber() async throws {
        let backend = try await SyncFixture.backend()
        defer { Task { await backend.stop() } }
        let device = try SyncDevice(backend: backend)
        try await device.startAndWaitUntilReady()
        let directory = try TemporaryDirectory()
        let output = directory.file("gql.txt")
        let host = "\(backend.endpoint.host!):\(backend.endpoint.port!)"
        let realtime = "ws://\(host)/graphql/realtime"
        let listener = try await ChildProcess.start(
            ["python3", Self.script.path, "listen", realtime, host, backend.apiKey, "2"],
            output: output
        )
        try await waitUntil("gql's subscription", timeout: .seconds(60)) {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            return text.contains("ready") || !listener.isRunning
        }
        try await device.plugin.save(Blog(id: "d1", name: "From DataStore"))
        try await device.plugin.save(Blog(id: "d2", name: "Also from DataStore"))
        let status = try await listener.wait(timeout: .seconds(60))
        let text = try String(contentsOf: output, encoding: .utf8)
        try #require(status == .exited(0), "gql failed (\(Self.install)):\n\(text)")
        let events = try JSONValue(parsing: String(text.split(separator: "\n").last ?? ""))
        // Independent records go out in parallel: their events may come in either order.
        let sorted = (events.arrayValue ?? []).sorted { ($0["id"]?.stringValue ?? "") < ($1["id"]?.stringValue ?? "") }
        #expect(
            JSONValue.array(sorted)
                == .array([
                    ["_deleted": .null, "_version": 1, "id": "d1", "name": "From DataStore"],
                    ["_deleted": .null, "_version": 1, "id": "d2", "name": "Also from DataStore"],
                ])
        )
        try await device.plugin.stop()
    }
}
