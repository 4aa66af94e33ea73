import Amplify
import Foundation
import GRDB
import Testing

@testable import AWSDataStorePlugin

/// A registration's version changes: the tables migrate, the records and the outbox stay, and
/// whatever cannot fit the new shape is logged as it is discarded.
@Suite struct MigrationTests {
    struct Registration: AmplifyModelRegistration {
        let version: String
        let types: [any Model.Type]

        func registerModels(registry: ModelRegistry.Type) {
            for type in types { registry.register(modelType: type) }
        }
    }

    /// The first shape of a note.
    struct NoteV1: Model, Equatable {
        static var modelName: String { "Note" }
        let id: String
        var title: String
        var body: String?
        var count: Int?

        enum CodingKeys: String, ModelKey {
            case id, title, body, count
        }

        static let schema = defineSchema(name: "Note") { model in
            let note = CodingKeys.self
            model.fields(
                .field(note.id, is: .required, ofType: .string),
                .field(note.title, is: .required, ofType: .string),
                .field(note.body, is: .optional, ofType: .string),
                .field(note.count, is: .optional, ofType: .int)
            )
        }
    }

    /// Gains optional fields and an index: the table is altered in place.
    struct NoteV2: Model, Equatable {
        static var modelName: String { "Note" }
        let id: String
        var title: String
        var body: String?
        var count: Int?
        var tags: [String]?
        var done: Bool?

        enum CodingKeys: String, ModelKey {
            case id, title, body, count, tags, done
        }

        static let schema = defineSchema(name: "Note") { model in
            let note = CodingKeys.self
            model.attributes(.index(fields: ["title"], name: "byTitle"))
            model.fields(
                .field(note.id, is: .required, ofType: .string),
                .field(note.title, is: .required, ofType: .string),
                .field(note.body, is: .optional, ofType: .string),
                .field(note.count, is: .optional, ofType: .int),
                .field(note.tags, is: .optional, ofType: .embeddedCollection(of: .string)),
                .field(note.done, is: .optional, ofType: .bool)
            )
        }
    }

    /// Loses `body`, and `count` becomes a string: the table is rebuilt.
    struct NoteV3: Model, Equatable {
        static var modelName: String { "Note" }
        let id: String
        var title: String
        var count: String?

        enum CodingKeys: String, ModelKey {
            case id, title, count
        }

        static let schema = defineSchema(name: "Note") { model in
            let note = CodingKeys.self
            model.fields(
                .field(note.id, is: .required, ofType: .string),
                .field(note.title, is: .required, ofType: .string),
                .field(note.count, is: .optional, ofType: .string)
            )
        }
    }

    /// `count` becomes a required number: records whose count is missing or not a number go.
    struct NoteV4: Model, Equatable {
        static var modelName: String { "Note" }
        let id: String
        var title: String
        var count: Int

        enum CodingKeys: String, ModelKey {
            case id, title, count
        }

        static let schema = defineSchema(name: "Note") { model in
            let note = CodingKeys.self
            model.fields(
                .field(note.id, is: .required, ofType: .string),
                .field(note.title, is: .required, ofType: .string),
                .field(note.count, is: .required, ofType: .int)
            )
        }
    }

    /// Another model, to be removed.
    struct Label: Model, Equatable {
        let id: String
        var name: String

        enum CodingKeys: String, ModelKey {
            case id, name
        }

        static let schema = defineSchema { model in
            let label = CodingKeys.self
            model.fields(
                .field(label.id, is: .required, ofType: .string),
                .field(label.name, is: .required, ofType: .string)
            )
        }
    }

    func plugin(_ store: TestStore, _ version: String, _ types: [any Model.Type]) -> AWSDataStorePlugin {
        store.reopened(Registration(version: version, types: types))
    }

    @Test func addingOptionalFieldsAltersTheTableInPlace() async throws {
        let store = try TestStore(Registration(version: "v1", types: [NoteV1.self]))
        try await store.plugin.save(NoteV1(id: "n1", title: "One", body: "Body", count: 1))
        try await store.plugin.stop()

        let v2 = plugin(store, "v2", [NoteV2.self])
        let note = try #require(try await v2.query(NoteV2.self, byId: "n1"))
        #expect(note == NoteV2(id: "n1", title: "One", body: "Body", count: 1, tags: nil, done: nil))
        try await v2.save(NoteV2(id: "n2", title: "Two", tags: ["a"], done: true))
        #expect(try await v2.query(NoteV2.self, where: NoteV2.CodingKeys.tags.contains("a")).map(\.id) == ["n2"])
        #expect(try await v2.pendingMutations().map(\.modelId) == ["n1", "n2"])
        #expect(
            store.logs.messages == [
                "Migrating from model version v1 to v2.", "Added the field Note.tags.", "Added the field Note.done.",
            ]
        )
        let indexes = try await v2.openEngine().pool.read { db in try db.indexes(on: "Note").map(\.name) }
        #expect(indexes.contains("Note:byTitle"))
        let version = try await v2.openEngine().pool.read { db in try SystemTables.metadataValue(db, "registryVersion")
        }
        #expect(version == "v2")
    }

    @Test func retypingAndRemovingFieldsRebuildsTheTableKeepingRecords() async throws {
        let store = try TestStore(Registration(version: "v1", types: [NoteV1.self]))
        try await store.plugin.save(NoteV1(id: "n1", title: "One", body: "Body", count: 1))
        try await store.plugin.save(NoteV1(id: "n2", title: "Two", body: nil, count: nil))
        try await store.plugin.stop()

        let v3 = plugin(store, "v3", [NoteV3.self])
        #expect(
            try await v3.query(NoteV3.self) == [
                NoteV3(id: "n1", title: "One", count: "1"), NoteV3(id: "n2", title: "Two", count: nil),
            ]
        )
        #expect(try await v3.pendingMutations().count == 2)
        #expect(
            store.logs.messages == [
                "Migrating from model version v1 to v3.",
                "Discarding the field Note.body, which the model no longer has: 1 record(s) held a value in it.",
                "Rebuilt the table of Note: kept 2 record(s), discarded 0.",
            ]
        )
        // The rebuilt table is still STRICT and typed.
        let sql = try await v3.openEngine().pool.read { db in
            try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'Note'")
        }
        #expect(sql == NoteV3.schemaTable.createTableSQL())
    }

    @Test func recordsThatCannotFitAreLoggedThenDiscarded() async throws {
        let store = try TestStore(Registration(version: "v3", types: [NoteV3.self]))
        try await store.plugin.save(NoteV3(id: "n1", title: "Number", count: "12"))
        try await store.plugin.save(NoteV3(id: "n2", title: "Word", count: "twelve"))
        try await store.plugin.save(NoteV3(id: "n3", title: "None", count: nil))
        try await store.plugin.stop()

        let v4 = plugin(store, "v4", [NoteV4.self])
        #expect(try await v4.query(NoteV4.self) == [NoteV4(id: "n1", title: "Number", count: 12)])
        #expect(try await v4.pendingMutations().map(\.modelId) == ["n1", "n2", "n3"])
        #expect(
            store.logs.messages == [
                "Migrating from model version v3 to v4.",
                "Discarding Note 'n2': its count value \"twelve\" does not convert to Int.",
                "Discarding Note 'n3': count is now required and the record has no value for it.",
                "Rebuilt the table of Note: kept 1 record(s), discarded 2.",
            ]
        )
    }

    @Test func aRemovedModelsRecordsAreLoggedThenDropped() async throws {
        let store = try TestStore(Registration(version: "v1", types: [NoteV1.self, Label.self]))
        try await store.plugin.save(Label(id: "l1", name: "red"))
        try await store.plugin.save(NoteV1(id: "n1", title: "One"))
        try await store.plugin.stop()

        let withoutLabels = plugin(store, "v1b", [NoteV1.self])
        #expect(try await withoutLabels.query(NoteV1.self).map(\.id) == ["n1"])
        #expect(try await withoutLabels.pendingMutations().map(\.modelName) == ["Label", "Note"])
        #expect(
            store.logs.messages == [
                "Migrating from model version v1 to v1b.",
                "Discarding the 1 record(s) of Label, a model the registration no longer contains. Their pending changes stay in the outbox.",
            ]
        )
    }

    @Test func anUnchangedVersionMigratesNothing() async throws {
        let store = try TestStore(Registration(version: "v1", types: [NoteV1.self]))
        try await store.plugin.save(NoteV1(id: "n1", title: "One"))
        try await store.plugin.stop()
        let again = plugin(store, "v1", [NoteV1.self])
        #expect(try await again.query(NoteV1.self).count == 1)
        #expect(store.logs.messages.isEmpty)
    }

    @Test func aNewModelGetsItsTable() async throws {
        let store = try TestStore(Registration(version: "v1", types: [NoteV1.self]))
        try await store.plugin.save(NoteV1(id: "n1", title: "One"))
        try await store.plugin.stop()
        let withLabels = plugin(store, "v2", [NoteV1.self, Label.self])
        try await withLabels.save(Label(id: "l1", name: "red"))
        #expect(try await withLabels.query(Label.self).count == 1)
        #expect(try await withLabels.query(NoteV1.self).count == 1)
        #expect(
            store.logs.messages == [
                "Migrating from model version v1 to v2.", "Created the table of the new model Label.",
            ]
        )
    }
}

extension MigrationTests.NoteV3 {
    static var schemaTable: ModelTable {
        try! ModelTable(schema: schema, schemas: ["Note": schema])
    }
}
