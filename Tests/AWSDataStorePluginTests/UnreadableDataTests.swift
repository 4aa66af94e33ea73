import Amplify
import BlogModels
import Foundation
import GRDB
import Testing

@testable import AWSDataStorePlugin
@testable import Amplify

/// Stored data DataStore cannot read, and values it cannot write, are refused with an error that
/// names the record and the problem: nothing is replaced by a stand-in value.
@Suite struct UnreadableDataTests {
    /// A model with an embedded value read as raw JSON.
    struct Setting: Model, Equatable {
        let id: String
        var payload: JSONValue?

        enum CodingKeys: String, ModelKey {
            case id, payload
        }

        static let schema = defineSchema { model in
            let setting = CodingKeys.self
            model.fields(
                .field(setting.id, is: .required, ofType: .string),
                .field(setting.payload, is: .optional, ofType: .embedded(name: "Payload"))
            )
        }
    }

    struct SettingRegistration: AmplifyModelRegistration {
        let version = "settings-1"

        func registerModels(registry: ModelRegistry.Type) {
            registry.register(modelType: Setting.self)
        }
    }

    @Test func anUnreadableOutboxCreatedAtIsAnErrorNotNow() async throws {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())
        let eventID = try await store.engine.pool.write { db in
            try db.execute(sql: #"UPDATE "_stratus_outbox" SET "createdAt" = 'yesterday'"#)
            return try String.fetchOne(db, sql: #"SELECT "id" FROM "_stratus_outbox""#)
        }
        let temporalError = try #require(throws: TemporalError.self) {
            try Temporal.DateTime(iso8601String: "yesterday")
        }
        let error = try await #require(throws: DataStoreError.self) {
            try await store.plugin.pendingMutations()
        }
        #expect(error.code == .invalidDatabase)
        #expect(
            error.message
                == "The outbox event '\(try #require(eventID))' for Blog 'b1' cannot be read: its createdAt "
                + "\(temporalError) The table _stratus_outbox was changed outside DataStore. Correct or delete that "
                + "row, or call DataStore.clear() to start over without the pending changes."
        )
    }

    @Test func anUnknownOutboxMutationTypeIsAnErrorNotANewEvent() async throws {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())
        // The table's CHECK holds the three kinds DataStore writes; a row of another kind comes
        // from outside DataStore, which SQLite lets through with the check turned off.
        let eventID = try await store.engine.pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
            try db.execute(sql: #"UPDATE "_stratus_outbox" SET "mutationType" = 'upsert'"#)
            try db.execute(sql: "PRAGMA ignore_check_constraints = OFF")
            return try String.fetchOne(db, sql: #"SELECT "id" FROM "_stratus_outbox""#)
        }
        let error = try await #require(throws: DataStoreError.self) {
            try await store.plugin.save(Fixtures.blog(name: "Renamed"))
        }
        #expect(error.code == .invalidDatabase)
        #expect(
            error.message
                == "The outbox event '\(try #require(eventID))' for Blog 'b1' cannot be read: its mutationType "
                + "'upsert' is not create, update or delete. The table _stratus_outbox was changed outside "
                + "DataStore. Correct or delete that row, or call DataStore.clear() to start over without the "
                + "pending changes."
        )
        // The save was rolled back: the record and the outbox are as they were.
        #expect(try await store.plugin.query(Blog.self, byId: "b1")?.name == "Blog")
        let rows = try await store.engine.pool.read { db in
            try String.fetchAll(db, sql: #"SELECT "mutationType" FROM "_stratus_outbox""#)
        }
        #expect(rows == ["upsert"])
    }

    @Test func aHubPayloadWhoseModelDoesNotDecodeIsReportedNotDroppedInSilence() async throws {
        let store = try TestStore()
        let errors = Recorder<String>()
        var configuration = DataStoreConfiguration(databaseURL: store.databaseURL)
        configuration.errorHandler = { errors.append($0.message) }
        let hub = HubCategory()
        let heard = Recorder<String>()
        let listener = hub.listen(to: .dataStore) { heard.append($0.eventName) }
        defer { hub.removeListener(listener) }
        // Only the hub's part is exercised: nothing reaches the API.
        let engine = SyncEngine(
            storage: try store.plugin.openStore(),
            api: UnconfiguredAPI(),
            hub: hub,
            configuration: configuration
        )
        // A Blog without its required name: what a model whose decoding does not read what it
        // encodes gives.
        let event = MutationEvent(modelId: "b1", modelName: "Blog", json: #"{"id":"b1"}"#, mutationType: .create)
        let enqueueError = try #require(throws: (any Error).self) { try event.decodeModel() }
        let processError = try #require(throws: (any Error).self) {
            try ModelRegistry.decode(modelName: "Blog", from: ["id": "b1"])
        }
        let processed = HubPayload.EventName.DataStore.outboxMutationProcessed

        engine.enqueued(
            OutboxChange(events: [event], enqueued: [event], snapshot: OutboxSnapshot(stamp: 1, isEmpty: false))
        )
        #expect(engine.outboxEvent("Blog", ["id": "b1"], telling: processed) == nil)

        #expect(
            errors.values == [
                "DataStore cannot tell the hub's DataStore.outboxMutationEnqueued of Blog 'b1': the saved record does "
                    + "not decode as Blog: \(enqueueError). Make the model decode what it encodes (regenerate it "
                    + "with `stratus codegen models`).",
                #"DataStore tells the hub's DataStore.outboxMutationProcessed of Blog without its model: the record "#
                    + #"{"id":"b1"} (an object) does not decode as Blog: \#(processError). Regenerate the models "#
                    + "with `stratus codegen models` so that they match the backend's schema.",
            ]
        )
        #expect(heard.values == [HubPayload.EventName.DataStore.outboxStatus])
    }

    @Test func unreadableStoredJSONIsAnErrorNotNull() async throws {
        let store = try TestStore(SettingRegistration())
        try await store.plugin.save(Setting(id: "s1", payload: ["theme": "dark"]))
        try await store.engine.pool.write { db in
            try db.execute(sql: #"UPDATE "Setting" SET "payload" = '{"theme": '"#)
        }
        let error = try await #require(throws: DataStoreError.self) {
            try await store.plugin.query(Setting.self, byId: "s1")
        }
        let parseError = try #require(throws: (any Error).self) { try JSONValue(parsing: #"{"theme": "#) }
        #expect(error.code == .invalidDatabase)
        #expect(
            error.message
                == #"The stored Setting 's1' cannot be read: in payload, the stored text '{"theme": ' is not JSON ("#
                + "\(parseError)). The database was changed outside DataStore. Save the Setting again with a valid "
                + "payload, or delete it."
        )
    }

    @Test func unreadableStoredJSONFailsAPredicateInsteadOfNotMatching() async throws {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())
        var post = Fixtures.post("p1")
        post.locations = [GeoPoint(latitude: 1.5, longitude: -2)]
        try await store.plugin.save(post)
        try await store.engine.pool.write { db in
            try db.execute(sql: #"UPDATE "Post" SET "locations" = '[{"latitude": 1.5'"#)
        }
        let predicate = QueryPredicateOperation(
            field: "locations",
            operator: .contains(["latitude": 1.5, "longitude": -2])
        )
        let error = try await #require(throws: DataStoreError.self) {
            try await store.plugin.query(BlogPost.self, where: predicate)
        }
        let parseError = try #require(throws: (any Error).self) { try JSONValue(parsing: #"[{"latitude": 1.5"#) }
        // The evaluator runs inside SQLite, so its error reaches the caller as SQLite's message.
        #expect(error.code == .storage)
        #expect(
            error.message.contains(
                #"The stored Post 'p1' cannot be read: in locations, the stored text '[{"latitude": 1.5' is not JSON ("#
                    + "\(parseError)). The database was changed outside DataStore. Save the Post again with a valid "
                    + "locations, or delete it."
            )
        )
    }

    @Test func aConditionTheBackendCannotReceiveIsRefusedNotStoredAsNull() async throws {
        let store = try TestStore()
        try await store.plugin.save(Fixtures.blog())
        var post = Fixtures.post("p1")
        post.score = 4.5
        try await store.plugin.save(post)
        let error = try await #require(throws: DataStoreError.self) {
            try await store.plugin.save(post, where: BlogPost.keys.score != Double.nan)
        }
        #expect(error.code == .invalidCondition)
        #expect(
            error.message
                == "The condition of the save of Post 'p1' cannot be sent to the backend: it compares with an "
                + "infinite or NaN number, which a GraphQL filter cannot hold. Compare with finite numbers."
        )
        let filters = try await store.plugin.pendingMutations().map(\.graphQLFilterJSON)
        #expect(filters == [nil, nil])
    }
}
