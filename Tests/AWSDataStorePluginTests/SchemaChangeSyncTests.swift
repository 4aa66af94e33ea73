import AWSAPIPlugin
import Amplify
import Foundation
import StratusTesting
import Testing

@testable import AWSDataStorePlugin

/// After a schema change, the next sync of a changed model is a base sync that also rewrites the
/// records already at the backend's version: records synced before the change receive the
/// values of the fields it added, and changes still pending are neither lost nor overwritten.
@Suite struct SchemaChangeSyncTests {
    static let schema = """
        type Note @model @auth(rules: [{ allow: public }]) {
          id: ID!
          title: String!
          body: String
        }
        """

    struct Registration: AmplifyModelRegistration {
        let version: String
        let type: any Model.Type

        func registerModels(registry: ModelRegistry.Type) {
            registry.register(modelType: type)
        }
    }

    /// The app's first model: it does not know `body` yet.
    struct NoteV1: Model, Equatable {
        static var modelName: String { "Note" }
        let id: String
        var title: String

        enum CodingKeys: String, ModelKey {
            case id, title
        }

        static let schema = defineSchema(name: "Note") { model in
            let note = CodingKeys.self
            model.fields(
                .field(note.id, is: .required, ofType: .string),
                .field(note.title, is: .required, ofType: .string)
            )
        }
    }

    /// The next version of the app: `body` added.
    struct NoteV2: Model, Equatable {
        static var modelName: String { "Note" }
        let id: String
        var title: String
        var body: String?

        enum CodingKeys: String, ModelKey {
            case id, title, body
        }

        static let schema = defineSchema(name: "Note") { model in
            let note = CodingKeys.self
            model.fields(
                .field(note.id, is: .required, ofType: .string),
                .field(note.title, is: .required, ofType: .string),
                .field(note.body, is: .optional, ofType: .string)
            )
        }
    }

    func noteSynced(_ device: SyncDevice) throws -> ModelSyncedEvent {
        try #require(device.events.values.compactMap { $0.data as? ModelSyncedEvent }.first { $0.modelName == "Note" })
    }

    @Test func theNextSyncOfAChangedModelIsABaseSyncThatKeepsPendingChanges() async throws {
        let backend = try await LocalBackend.start(schema: Self.schema)
        defer { Task { await backend.stop() } }
        let api = try backend.makeAPIPlugin()
        for (id, title, body) in [("n1", "First", "First body"), ("n2", "Second", "Second body")] {
            _ = try await api.mutate(request: .create(NoteV2(id: id, title: title, body: body))).get()
        }
        let directory = try TemporaryDirectory()

        // The first version of the app syncs the notes without their bodies.
        let v1 = try SyncDevice(
            backend: backend,
            registration: Registration(version: "v1", type: NoteV1.self),
            directory: directory
        )
        try await v1.startAndWaitUntilReady()
        #expect(try await v1.plugin.query(NoteV1.self).map(\.id).sorted() == ["n1", "n2"])
        try await v1.plugin.stop()
        // A change made while the app is not syncing, still pending at the upgrade.
        let offline = TestStore.makePlugin(
            Registration(version: "v1", type: NoteV1.self),
            at: directory.file("datastore.sqlite"),
            logs: LogRecorder()
        )
        try await offline.save(NoteV1(id: "n2", title: "Changed offline"))
        try await offline.stop()

        // The next version, within the sync interval: a base sync, and the bodies arrive.
        let v2 = try SyncDevice(
            backend: backend,
            registration: Registration(version: "v2", type: NoteV2.self),
            directory: directory
        )
        try await v2.startAndWaitUntilReady()
        #expect(try noteSynced(v2).isFullSync)
        try await v2.waitUntilOutboxIsEmpty()
        try await v2.waitUntil("the pending change answered") {
            try await v2.plugin.query(NoteV2.self, byId: "n2")?.body == "Second body"
        }
        #expect(
            try await v2.plugin.query(NoteV2.self).sorted { $0.id < $1.id } == [
                NoteV2(id: "n1", title: "First", body: "First body"),
                NoteV2(id: "n2", title: "Changed offline", body: "Second body"),
            ]
        )
        let stored = try await api.query(request: .get(NoteV2.self, byId: "n2")).get()
        #expect(stored == NoteV2(id: "n2", title: "Changed offline", body: "Second body"))
        try await v2.plugin.stop()

        // Once done, the same version syncs by delta again.
        let again = try SyncDevice(
            backend: backend,
            registration: Registration(version: "v2", type: NoteV2.self),
            directory: directory
        )
        try await again.startAndWaitUntilReady()
        #expect(try noteSynced(again).isDeltaSync)
        try await again.plugin.stop()
    }
}
