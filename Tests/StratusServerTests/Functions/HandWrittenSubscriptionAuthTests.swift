import Foundation
import StratusCodegen
import Testing

@testable import StratusServer

/// The model's `@auth` read rules on the writes a hand-written subscription hears through the
/// generated mutations it lists: the rows and fields each caller may read, as for the model's
/// own `onCreate` field.
@Suite struct HandWrittenSubscriptionAuthTests {
    static let schema =
        FieldAuthRulesTests.schema + """

            type Subscription {
              onAnyGuarded(content: String): Guarded @aws_subscribe(mutations: ["createGuarded", "updateGuarded"])
              onAnyNote: Note @aws_subscribe(mutations: ["createNote"])
            }
            """

    static func event(_ model: ModelType, _ values: JSONObject) -> WriteEvent {
        WriteEvent(
            sequence: 1,
            kind: .create,
            item: ResolvedItem(
                model: model,
                item: StoredItem(values: values, version: 1, deleted: nil, lastChangedAt: 0)
            )
        )
    }

    static func subscription(
        _ server: StratusServer,
        _ query: String,
        _ identity: Identity
    ) throws -> HandWrittenSubscription {
        try #require(
            try server.handWrittenSubscription(query: query, variables: [:], operationName: nil, identity: identity)
        )
    }

    /// Owner rules admit the owner's rows and the co-owners': another user hears nothing.
    /// A field guarded by its own rules is `null` for those they do not admit.
    @Test func eventsReachOnlyTheRowsAndFieldsTheCallerMayRead() async throws {
        let test = try await TestServer(Self.schema)
        let guarded = try #require(test.server.api.schema.model(named: "Guarded"))
        let event = Self.event(
            guarded,
            ["id": "g1", "content": "c", "editors": ["sub-ben::ben"], "owner": "sub-alice::alice"]
        )
        let query = "subscription { onAnyGuarded { id content owner } }"
        let carl = FieldAuthRulesTests.user("carl")
        for (identity, expected) in [
            (
                FieldAuthRulesTests.alice,
                #"{"data":{"onAnyGuarded":{"id":"g1","content":"c","owner":"sub-alice::alice"}}}"#
            ),
            (
                FieldAuthRulesTests.ben,
                #"{"data":{"onAnyGuarded":{"id":"g1","content":"c","owner":"sub-alice::alice"}}}"#
            ),
            (carl, nil),
        ] {
            let subscription = try Self.subscription(test.server, query, identity)
            #expect(subscription.payload(for: event)?.text == expected)
        }
        let filtered = try Self.subscription(
            test.server,
            #"subscription { onAnyGuarded(content: "other") { id } }"#,
            FieldAuthRulesTests.alice
        )
        #expect(filtered.payload(for: event) == nil, "the argument does not equal the result's field")

        let note = try #require(test.server.api.schema.model(named: "Note"))
        let noteEvent = Self.event(
            note,
            ["id": "n1", "content": "c", "editors": ["sub-ben::ben"], "secret": "s3cr3t", "owner": "sub-alice::alice"]
        )
        for (identity, expected) in [
            (Identity.apiKey, #"{"data":{"onAnyNote":{"id":"n1","secret":null}}}"#),
            (FieldAuthRulesTests.admin, #"{"data":{"onAnyNote":{"id":"n1","secret":null}}}"#),
            (FieldAuthRulesTests.alice, #"{"data":{"onAnyNote":{"id":"n1","secret":"s3cr3t"}}}"#),
            (FieldAuthRulesTests.ben, #"{"data":{"onAnyNote":{"id":"n1","secret":null}}}"#),
        ] {
            let subscription = try Self.subscription(test.server, "subscription { onAnyNote { id secret } }", identity)
            #expect(subscription.payload(for: noteEvent)?.text == expected)
        }
    }

    /// A caller the model's rules do not let read it is refused at `start`, as on `onCreate`.
    @Test func aCallerTheModelsRulesDoNotAdmitIsRefused() async throws {
        let test = try await TestServer(Self.schema)
        #expect(
            throws: RealtimeError(
                errorType: .unauthorized,
                message: "Not Authorized to access onAnyGuarded on type Subscription"
            )
        ) {
            try test.server.handWrittenSubscription(
                query: "subscription { onAnyGuarded { id } }",
                variables: [:],
                operationName: nil,
                identity: .apiKey
            )
        }
    }
}
