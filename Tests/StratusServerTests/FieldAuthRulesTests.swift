import Foundation
import StratusCodegen
import Testing

@testable import StratusServer

/// Field-level `@auth` rules on everything that reaches a field: writes (Amplify's access
/// matrix, `Unauthorized on [field]`), subscription events, filters and conditions, and the
/// server's item in a `ConflictUnhandled` error. One request each, exact bodies.
@Suite struct FieldAuthRulesTests {
    /// Owners, co-owners who may update, an admin group and public reads; `secret` is the
    /// owner's alone. `Guarded` keeps its `owner` field from being reassigned.
    static let schema = """
        type Note @model @auth(rules: [
          { allow: owner }
          { allow: owner, ownerField: "editors", operations: [update, read] }
          { allow: groups, groups: ["Admins"] }
          { allow: public, operations: [read] }
        ]) {
          id: ID!
          content: String
          editors: [String]
          secret: String @auth(rules: [{ allow: owner }])
        }

        type Guarded @model @auth(rules: [
          { allow: owner }
          { allow: owner, ownerField: "editors", operations: [update, read] }
        ]) {
          id: ID!
          content: String
          editors: [String]
          owner: String @auth(rules: [
            { allow: owner, operations: [read, delete] }
            { allow: owner, ownerField: "editors", operations: [read] }
          ])
        }
        """

    static func user(_ name: String, groups: [String] = [], sub: String? = nil) -> Identity {
        Identity(
            authorizationMode: .amazonCognitoUserPools,
            claims: [
                "sub": .string(sub ?? "sub-\(name)"), "cognito:username": .string(name),
                "cognito:groups": .array(groups.map { .string($0) }),
            ]
        )
    }

    static let alice = user("alice")
    static let ben = user("ben")
    static let admin = user("root", groups: ["Admins"])

    /// A `Mutation` field's `Unauthorized on [...]`, as Amplify's resolvers raise it.
    static func deniedFields(_ field: String, _ fields: String, column: Int = 12) -> String {
        #"{"data":{"\#(field)":null},"errors":[{"path":["\#(field)"],"data":null,"errorType":"Unauthorized","#
            + #""errorInfo":null,"locations":[{"line":1,"column":\#(column),"sourceName":null}],"#
            + #""message":"Unauthorized on [\#(fields)]"}]}"#
    }

    static func notAuthorized(_ root: String, field: String, type: String, column: Int) -> String {
        #"{"data":{"\#(root)":null},"errors":[{"path":["\#(root)"],"data":null,"errorType":"Unauthorized","#
            + #""errorInfo":null,"locations":[{"line":1,"column":\#(column),"sourceName":null}],"#
            + #""message":"Not Authorized to access \#(field) on type \#(type)"}]}"#
    }

    /// Alice's note `n1`, which ben may edit, with a secret.
    static func serverWithAlicesNote() async throws -> TestServer {
        let server = try await TestServer(Self.schema)
        #expect(
            await server.run(
                #"mutation { createNote(input: {id: "n1", content: "c", editors: ["sub-ben::ben"], secret: "s3cr3t"}) { id } }"#,
                identity: Self.alice
            ) == #"{"data":{"createNote":{"id":"n1"}}}"#
        )
        return server
    }

    // MARK: - Writes

    @Test func aFieldTheCallersRolesMayNotWriteIsRefusedOnUpdate() async throws {
        let server = try await Self.serverWithAlicesNote()
        #expect(
            await server.run(
                #"mutation { updateNote(input: {id: "n1", secret: "admin's", _version: 1}) { id } }"#,
                identity: Self.admin
            ) == Self.deniedFields("updateNote", "secret"),
            "the admin group may update the note but not its owner-only field"
        )
        #expect(
            await server.run(
                #"mutation { updateNote(input: {id: "n1", content: "ben's", secret: "ben's", _version: 1}) { id } }"#,
                identity: Self.ben
            ) == Self.deniedFields("updateNote", "secret"),
            "nor may an editor"
        )
        #expect(
            await server.run(
                #"mutation { updateNote(input: {id: "n1", secret: null, _version: 1}) { id } }"#,
                identity: Self.ben
            ) == Self.deniedFields("updateNote", "secret"),
            "nor remove it"
        )
        #expect(
            await server.run(#"{ getNote(id: "n1") { content secret _version } }"#, identity: Self.alice)
                == #"{"data":{"getNote":{"content":"c","secret":"s3cr3t","_version":1}}}"#,
            "nothing was written"
        )
        #expect(
            await server.run(
                #"mutation { updateNote(input: {id: "n1", content: "ben's", _version: 1}) { content } }"#,
                identity: Self.ben
            ) == #"{"data":{"updateNote":{"content":"ben's"}}}"#,
            "the fields the editor may write"
        )
        #expect(
            await server.run(
                #"mutation { updateNote(input: {id: "n1", secret: "new", _version: 2}) { secret } }"#,
                identity: Self.alice
            ) == #"{"data":{"updateNote":{"secret":"new"}}}"#,
            "the owner writes her own field"
        )
    }

    /// A create by someone who is not the item's owner may not set the owner's field. (A create
    /// that leaves the owner out makes the caller its owner, who may.)
    @Test func aFieldTheCallersRolesMayNotCreateIsRefused() async throws {
        let server = try await TestServer(Self.schema)
        #expect(
            await server.run(
                #"mutation { createNote(input: {id: "a1", owner: "sub-alice::alice", secret: "planted"}) { id } }"#,
                identity: Self.admin
            ) == Self.deniedFields("createNote", "secret")
        )
        #expect(await server.run(#"{ getNote(id: "a1") { id } }"#) == #"{"data":{"getNote":null}}"#, "nothing written")
        #expect(
            await server.run(
                #"mutation { createNote(input: {id: "a1", owner: "sub-alice::alice", content: "c"}) { id } }"#,
                identity: Self.admin
            ) == #"{"data":{"createNote":{"id":"a1"}}}"#
        )
        #expect(
            await server.run(
                #"mutation { createNote(input: {id: "a2", secret: "mine"}) { id owner secret } }"#,
                identity: Self.admin
            ) == #"{"data":{"createNote":{"id":"a2","owner":"sub-root::root","secret":"mine"}}}"#,
            "as in Amplify, a create fills the owner field of any user it admits"
        )
    }

    /// A delete needs a role that may delete every field: the admin group is not named on
    /// `secret`, so it may update notes but not delete them, as in Amplify.
    @Test func aDeleteNeedsDeleteOnEveryField() async throws {
        let server = try await Self.serverWithAlicesNote()
        #expect(
            await server.run(#"mutation { deleteNote(input: {id: "n1", _version: 1}) { id } }"#, identity: Self.admin)
                == Self.notAuthorized("deleteNote", field: "deleteNote", type: "Mutation", column: 12)
        )
        #expect(
            await server.run(#"mutation { deleteNote(input: {id: "n1", _version: 1}) { id } }"#, identity: Self.alice)
                == #"{"data":{"deleteNote":{"id":"n1"}}}"#
        )
    }

    /// An owner field with rules of its own keeps co-owners from taking the item over; the
    /// owner still creates (the field is filled, not sent) and reads it.
    @Test func anOwnerFieldWithItsOwnRulesCannotBeReassigned() async throws {
        let server = try await TestServer(Self.schema)
        #expect(
            await server.run(
                #"mutation { createGuarded(input: {id: "g1", content: "c", editors: ["sub-ben::ben"]}) { id owner } }"#,
                identity: Self.alice
            ) == #"{"data":{"createGuarded":{"id":"g1","owner":"sub-alice::alice"}}}"#
        )
        for owner in [#""sub-ben::ben""#, "null"] {
            #expect(
                await server.run(
                    #"mutation { updateGuarded(input: {id: "g1", owner: \#(owner), _version: 1}) { id } }"#,
                    identity: Self.ben
                ) == Self.deniedFields("updateGuarded", "owner")
            )
        }
        #expect(
            await server.run(
                #"mutation { createGuarded(input: {id: "g2", owner: "sub-ben::ben"}) { id } }"#,
                identity: Self.ben
            ) == Self.deniedFields("createGuarded", "owner"),
            "no one sets the owner field by hand"
        )
        #expect(
            await server.run(
                #"mutation { deleteGuarded(input: {id: "g1", _version: 1}) { id } }"#,
                identity: Self.ben
            ) == Self.notAuthorized("deleteGuarded", field: "deleteGuarded", type: "Mutation", column: 12)
        )
        #expect(
            await server.run(#"{ getGuarded(id: "g1") { owner content _version } }"#, identity: Self.alice)
                == #"{"data":{"getGuarded":{"owner":"sub-alice::alice","content":"c","_version":1}}}"#
        )
    }

    /// Without rules of its own, an owner field can be changed by every owner rule that may
    /// update: the server says so when it starts, as Amplify's transformer does.
    @Test func ownerFieldsTheOwnersMayChangeAreNamedAtStart() async throws {
        let server = try await TestServer(Self.schema)
        #expect(
            server.server.api.warnings == [
                "Warning: the owners of Note may give its items away ('owner' may change 'editors', 'owner'; "
                    + "'editors' may change 'editors', 'owner'). If that is not intended, give these fields @auth "
                    + "rules of their own, such as "
                    + "`owner: String @auth(rules: [{ allow: owner, operations: [read, delete] }])`.",
                "Warning: the owners of Guarded may give its items away ('owner' may change 'editors'; "
                    + "'editors' may change 'editors'). If that is not intended, give these fields @auth "
                    + "rules of their own, such as "
                    + "`owner: String @auth(rules: [{ allow: owner, operations: [read, delete] }])`.",
            ]
        )
        #expect(
            await server.run(
                #"mutation { createNote(input: {id: "n1", content: "c", editors: ["sub-ben::ben"]}) { id } }"#,
                identity: Self.alice
            ) == #"{"data":{"createNote":{"id":"n1"}}}"#
        )
        #expect(
            await server.run(
                #"mutation { updateNote(input: {id: "n1", owner: "sub-ben::ben", _version: 1}) { owner } }"#,
                identity: Self.ben
            ) == #"{"data":{"updateNote":{"owner":"sub-ben::ben"}}}"#,
            "as in Amplify, a co-owner who may update takes the item over"
        )
    }

    // MARK: - Filters and conditions

    /// A filter on a field the caller may not read would answer questions about its value: it
    /// is refused, in every place a filter or condition is read.
    @Test func filtersAndConditionsOnAFieldTheCallerMayNotReadAreRefused() async throws {
        let server = try await Self.serverWithAlicesNote()
        #expect(
            await server.run(#"{ listNotes(filter: {secret: {beginsWith: "s"}}) { items { id } } }"#)
                == Self.notAuthorized("listNotes", field: "secret", type: "Note", column: 3)
        )
        let filters = [
            ("{secret: {attributeExists: true}}", "[]"), ("{secret: {size: {gt: 3}}}", "[]"),
            (#"{not: {secret: {eq: "x"}}}"#, #"[{"id":"n1"}]"#),
        ]
        for (filter, forTheAdmin) in filters {
            #expect(
                await server.run("{ listNotes(filter: \(filter)) { items { id } } }", identity: .apiKey)
                    == Self.notAuthorized("listNotes", field: "secret", type: "Note", column: 3)
            )
            #expect(
                await server.run("{ listNotes(filter: \(filter)) { items { id } } }", identity: Self.admin)
                    == #"{"data":{"listNotes":{"items":"# + forTheAdmin + "}}}",
                "a user who could own notes reads the field of their own only: on alice's, the condition is false"
            )
        }
        #expect(
            await server.run(#"{ syncNotes(filter: {secret: {beginsWith: "s"}}) { items { id } } }"#)
                == Self.notAuthorized("syncNotes", field: "secret", type: "Note", column: 3)
        )
        for prefix in ["s", "x"] {
            #expect(
                await server.run(
                    #"mutation { updateNote(input: {id: "n1", content: "x", _version: 1}, condition: {secret: {beginsWith: "\#(prefix)"}}) { id } }"#,
                    identity: Self.ben
                ).contains(#""errorType":"ConditionalCheckFailedException""#),
                "the editor's condition on alice's field fails whatever its value"
            )
        }
        #expect(
            await server.run(
                #"{ listNotes(filter: {secret: {beginsWith: "s"}}) { items { id } } }"#,
                identity: Self.alice
            ) == #"{"data":{"listNotes":{"items":[{"id":"n1"}]}}}"#,
            "the owner filters on her own field"
        )
    }

    /// Where the caller may read a field on some items only, a condition on it holds only on
    /// those: the others answer the same whatever their value.
    @Test func aFilterOnAFieldReadableOnSomeItemsHoldsOnlyOnThose() async throws {
        let server = try await TestServer(
            """
            type Entry @model @auth(rules: [{ allow: private }]) {
              id: ID!
              owner: String
              secret: String @auth(rules: [{ allow: owner }])
            }
            """
        )
        for (id, caller) in [("a", Self.alice), ("b", Self.ben)] {
            _ = await server.run(
                #"mutation { createEntry(input: {id: "\#(id)", secret: "same"}) { id } }"#,
                identity: caller
            )
        }
        #expect(
            await server.run(#"{ listEntries(filter: {secret: {eq: "same"}}) { items { id } } }"#, identity: Self.alice)
                == #"{"data":{"listEntries":{"items":[{"id":"a"}]}}}"#
        )
        #expect(
            await server.run(
                #"{ listEntries(filter: {not: {secret: {eq: "same"}}}) { items { id } } }"#,
                identity: Self.alice
            )
                == #"{"data":{"listEntries":{"items":[{"id":"b"}]}}}"#,
            "ben's item passes the negation as it would with any value"
        )
    }

    /// An index whose sort key is a field the caller may not read answers only the items whose
    /// key it may read: neither a key condition nor the order says anything of hidden values.
    @Test func anIndexOnAHiddenFieldAnswersOnlyTheItemsWhoseKeyTheCallerMayRead() async throws {
        let server = try await TestServer(
            """
            type Doc @model @auth(rules: [{ allow: owner }, { allow: public, operations: [read] }]) {
              id: ID!
              category: String @index(name: "byCategory", sortKeyFields: ["rank"], queryField: "docsByCategory")
              rank: String @auth(rules: [{ allow: owner }])
              tag: String @auth(rules: [{ allow: owner }]) @index(name: "byTag", queryField: "docsByTag")
            }
            """
        )
        for (id, rank, caller) in [("a", "m-salary-95000", Self.alice), ("b", "x-salary-150000", Self.ben)] {
            #expect(
                await server.run(
                    #"mutation { createDoc(input: {id: "\#(id)", category: "hr", rank: "\#(rank)", tag: "t"}) { id } }"#,
                    identity: caller
                ) == #"{"data":{"createDoc":{"id":"\#(id)"}}}"#
            )
        }
        #expect(
            await server.run(#"{ docsByCategory(category: "hr", rank: {beginsWith: "m-salary-9"}) { items { id } } }"#)
                == Self.notAuthorized("docsByCategory", field: "rank", type: "Doc", column: 3),
            "the API key reads no one's rank"
        )
        #expect(
            await server.run(#"{ docsByTag(tag: "t") { items { id } } }"#)
                == Self.notAuthorized("docsByTag", field: "tag", type: "Doc", column: 3)
        )
        #expect(
            await server.run(
                #"{ docsByCategory(category: "hr", sortDirection: DESC) { items { id } } }"#,
                identity: Self.alice
            ) == #"{"data":{"docsByCategory":{"items":[{"id":"a"}]}}}"#,
            "alice pages through the ranks she may read"
        )
    }

    /// An embedded value's member guarded by `@aws_*` directives is `null` in the events of a
    /// subscriber it does not admit, as the executor answers it.
    @Test func subscriptionEventsHideTheGuardedMembersOfEmbeddedValues() async throws {
        let test = try await TestServer(
            """
            type Meta { label: String hidden: String @aws_cognito_user_pools }
            type Card @model @auth(rules: [{ allow: owner }, { allow: public, operations: [read] }]) {
              id: ID!
              meta: Meta
            }
            """
        )
        let model = try #require(test.server.api.schema.model(named: "Card"))
        let item = ResolvedItem(
            model: model,
            item: StoredItem(
                values: ["id": "c1", "meta": ["label": "l", "hidden": "h"], "owner": "sub-alice::alice"],
                version: 1,
                deleted: nil,
                lastChangedAt: 0
            )
        )
        let event = WriteEvent(sequence: 1, kind: .create, item: item)
        for (identity, expected) in [
            (Identity.apiKey, #"{"data":{"onCreateCard":{"id":"c1","meta":{"label":"l","hidden":null}}}}"#),
            (Self.alice, #"{"data":{"onCreateCard":{"id":"c1","meta":{"label":"l","hidden":"h"}}}}"#),
        ] {
            let request = try test.server.subscriptionRequest(
                query: "subscription { onCreateCard { id meta { label hidden } } }",
                variables: [:],
                operationName: nil,
                identity: identity
            )
            #expect(request.payload(for: event).text == expected)
        }
    }

    // MARK: - Subscriptions

    /// Each subscriber's events carry the fields it may read: the owner sees `secret`, the API
    /// key and the admin group get `null`; a filter on it is refused at `start`.
    @Test func subscriptionEventsCarryOnlyTheFieldsTheSubscriberMayRead() async throws {
        let test = try await TestServer(Self.schema)
        let model = try #require(test.server.api.schema.model(named: "Note"))
        let item = ResolvedItem(
            model: model,
            item: StoredItem(
                values: ["id": "n1", "content": "c", "secret": "s3cr3t", "owner": "sub-alice::alice"],
                version: 1,
                deleted: nil,
                lastChangedAt: 0
            )
        )
        let event = WriteEvent(sequence: 1, kind: .create, item: item)
        let document = "subscription { onCreateNote { id secret } }"
        var keys: Set<String> = []
        for (identity, expected) in [
            (Identity.apiKey, #"{"data":{"onCreateNote":{"id":"n1","secret":null}}}"#),
            (Self.admin, #"{"data":{"onCreateNote":{"id":"n1","secret":null}}}"#),
            (Self.alice, #"{"data":{"onCreateNote":{"id":"n1","secret":"s3cr3t"}}}"#),
            (Self.ben, #"{"data":{"onCreateNote":{"id":"n1","secret":null}}}"#),
        ] {
            let request = try test.server.subscriptionRequest(
                query: document,
                variables: [:],
                operationName: nil,
                identity: identity
            )
            #expect(request.payload(for: event).text == expected)
            keys.insert(request.selectionKey)
        }
        #expect(keys.count == 4, "readers of different fields never share an encoded payload")
        #expect(
            throws: RealtimeError(errorType: .unauthorized, message: "Not Authorized to access secret on type Note")
        ) {
            try test.server.subscriptionRequest(
                query: #"subscription { onCreateNote(filter: {secret: {beginsWith: "s"}}) { id } }"#,
                variables: [:],
                operationName: nil,
                identity: .apiKey
            )
        }
    }

    // MARK: - Conflicts

    @Test func aConflictsItemHidesTheFieldsTheCallerMayNotRead() async throws {
        let server = try await Self.serverWithAlicesNote()
        let body = await server.run(
            #"mutation { deleteNote(input: {id: "n1", _version: 7}) { id secret } }"#,
            identity: Self.alice
        )
        #expect(body.contains(#""data":{"id":"n1","secret":"s3cr3t"}"#), "the owner sees her field: \(body)")
        let configuration = ServerConfiguration(
            conflictResolution: .optimisticConcurrency
        )
        let strict = try await TestServer(Self.schema, configuration: configuration)
        _ = await strict.run(
            #"mutation { createNote(input: {id: "n1", content: "c", secret: "s3cr3t"}) { id } }"#,
            identity: Self.alice
        )
        #expect(
            await strict.run(
                #"mutation { updateNote(input: {id: "n1", content: "x", _version: 7}) { id secret } }"#,
                identity: Self.admin
            )
                == #"{"data":{"updateNote":null},"errors":[{"path":["updateNote"],"data":{"id":"n1","secret":null},"#
                + #""errorType":"ConflictUnhandled","errorInfo":null,"#
                + #""locations":[{"line":1,"column":12,"sourceName":null}],"#
                + #""message":"Conflict resolver rejects mutation."}]}"#
        )
    }

    // MARK: - Owner values

    /// A name spelt with other code points that Swift takes as the same text (a Kelvin sign for
    /// a K) is another user: owner values and owner arguments are compared byte for byte.
    @Test func aLookAlikeNameIsAnotherUser() async throws {
        let server = try await TestServer(
            #"type Memo @model @auth(rules: [{ allow: owner, identityClaim: "username" }]) { id: ID! text: String }"#
        )
        let kate = Self.user("Kate")
        let impostor = Self.user("\u{212A}ate")
        #expect(
            await server.run(#"mutation { createMemo(input: {id: "m1", text: "private"}) { owner } }"#, identity: kate)
                == #"{"data":{"createMemo":{"owner":"Kate"}}}"#
        )
        #expect(
            await server.run(#"{ getMemo(id: "m1") { text } }"#, identity: impostor)
                == Self.notAuthorized("getMemo", field: "getMemo", type: "Query", column: 3)
        )
        #expect(
            await server.run(#"mutation { deleteMemo(input: {id: "m1", _version: 1}) { id } }"#, identity: impostor)
                == Self.notAuthorized("deleteMemo", field: "deleteMemo", type: "Mutation", column: 12)
        )
        let request = try server.server.subscriptionRequest(
            query: #"subscription { onCreateMemo(owner: "Kate") { id } }"#,
            variables: [:],
            operationName: nil,
            identity: impostor
        )
        #expect(
            throws: RealtimeError(
                errorType: .unauthorized,
                message: "Not Authorized to access onCreateMemo on type Subscription"
            )
        ) {
            try SubscriptionAuthorization.authorize(request, identity: impostor)
        }
    }

    /// A user named after another user's `sub` (which owner values show) does not own what that
    /// user owns under the bare `sub`; a user whose name is their own `sub` still does.
    @Test func aUsernameThatIsAnotherUsersSubOwnsNothingOfTheirs() async throws {
        let server = try await Self.serverWithAlicesNote()
        let bensSub = "5f0e3a52-9c1d-4f5e-8a7b-2d3c4e5f6a7b"
        _ = await server.run(
            #"mutation { updateNote(input: {id: "n1", editors: ["\#(bensSub)"], _version: 1}) { id } }"#,
            identity: Self.alice
        )
        let impostor = Self.user(bensSub, sub: "9a8b7c6d-0000-4000-8000-000000000001")
        #expect(
            await server.run(#"{ getNote(id: "n1") { id } }"#, identity: impostor)
                == Self.notAuthorized("getNote", field: "getNote", type: "Query", column: 3)
        )
        let ben = Self.user(bensSub, sub: bensSub)
        #expect(
            await server.run(#"{ getNote(id: "n1") { id } }"#, identity: ben) == #"{"data":{"getNote":{"id":"n1"}}}"#,
            "in a pool that signs in by email, the username is the sub"
        )
    }

    /// A user whose name is another user's `sub::username` does not own that user's items.
    @Test func aUsernameSpellingAnotherUsersOwnerValueOwnsNothing() async throws {
        let server = try await Self.serverWithAlicesNote()
        let impostor = Self.user("sub-alice::alice", sub: "sub-mallory")
        #expect(
            await server.run(#"{ getNote(id: "n1") { id secret } }"#, identity: impostor)
                == Self.notAuthorized("getNote", field: "getNote", type: "Query", column: 3)
        )
        #expect(
            await server.run(
                #"mutation { updateNote(input: {id: "n1", content: "mine now", _version: 1}) { id } }"#,
                identity: impostor
            ) == Self.notAuthorized("updateNote", field: "updateNote", type: "Mutation", column: 12)
        )
    }
}
