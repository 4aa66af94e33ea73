import Foundation
import StratusServer
import Testing

/// `@auth` rules and `@aws_*` directives (backend.md §5), one request each, exact bodies.
@Suite struct AuthRulesTests {
    static let schema = """
        type Note @model @auth(rules: [
          { allow: owner }
          { allow: groups, groups: ["Admins"] }
          { allow: public, operations: [read] }
        ]) {
          id: ID!
          content: String!
          secret: String @auth(rules: [{ allow: owner }])
        }

        type Doc @model @auth(rules: [{ allow: groups, groupsField: "editors" }]) {
          id: ID!
          title: String!
          editors: [String]
        }

        type Setting @model @auth(rules: [{ allow: owner, ownerField: "editor", identityClaim: "username" }]) {
          id: ID!
          value: String
        }

        type Metric @model @aws_api_key @aws_iam {
          id: ID!
          value: Int!
          internal: String @aws_iam
          staff: String @aws_cognito_user_pools(cognito_groups: ["Staff"])
        }

        type Event @model @auth(rules: [{ allow: private, provider: iam }, { allow: custom }]) {
          id: ID!
          name: String
        }
        """

    static func user(_ name: String, groups: [String] = []) -> Identity {
        Identity(
            authorizationMode: .amazonCognitoUserPools,
            claims: [
                "sub": .string("sub-\(name)"), "cognito:username": .string(name),
                "cognito:groups": .array(groups.map { .string($0) }),
            ]
        )
    }

    static let alice = user("alice")
    static let bob = user("bob")
    static let admin = user("root", groups: ["Admins"])
    static let iam = Identity(authorizationMode: .awsIAM, claims: ["accessKeyId": "AKIDTEST"])
    static let lambda = Identity(authorizationMode: .function)

    static func unauthorized(_ field: String, _ type: String, line: Int = 1, column: Int) -> String {
        #"{"path":["\#(field)"],"data":null,"errorType":"Unauthorized","errorInfo":null,"#
            + #""locations":[{"line":\#(line),"column":\#(column),"sourceName":null}],"#
            + #""message":"Not Authorized to access \#(field) on type \#(type)"}"#
    }

    @Test func ownerCreateFillsTheOwnerAndAForeignOwnerIsRefused() async throws {
        let server = try await TestServer(Self.schema)
        #expect(
            await server.run(
                #"mutation { createNote(input: {id: "n1", content: "mine"}) { id content owner } }"#,
                identity: Self.alice
            ) == #"{"data":{"createNote":{"id":"n1","content":"mine","owner":"sub-alice::alice"}}}"#
        )
        #expect(
            await server.run(
                #"mutation { createNote(input: {id: "n2", content: "x", owner: "sub-bob::bob"}) { id } }"#,
                identity: Self.alice
            ) == #"{"data":{"createNote":null},"errors":["# + Self.unauthorized("createNote", "Mutation", column: 12)
                + "]}"
        )
        #expect(await server.run(#"{ getNote(id: "n2") { id } }"#) == #"{"data":{"getNote":null}}"#, "nothing written")
        #expect(
            await server.run(#"mutation { createNote(input: {content: "key"}) { id } }"#)
                == #"{"data":{"createNote":null},"errors":["# + Self.unauthorized("createNote", "Mutation", column: 12)
                + "]}",
            "public rules allow only reads"
        )
    }

    @Test func readsAreFilteredToTheCallersItems() async throws {
        let server = try await TestServer(Self.schema)
        for (id, caller) in [("a1", Self.alice), ("a2", Self.alice), ("b1", Self.bob)] {
            _ = await server.run(
                #"mutation { createNote(input: {id: "\#(id)", content: "c"}) { id } }"#,
                identity: caller
            )
        }
        let list = "{ listNotes { items { id } } }"
        #expect(
            await server.run(list, identity: Self.alice)
                == #"{"data":{"listNotes":{"items":[{"id":"a1"},{"id":"a2"}]}}}"#
        )
        #expect(await server.run(list, identity: Self.bob) == #"{"data":{"listNotes":{"items":[{"id":"b1"}]}}}"#)
        let everything = #"{"data":{"listNotes":{"items":[{"id":"a1"},{"id":"a2"},{"id":"b1"}]}}}"#
        #expect(await server.run(list, identity: Self.admin) == everything, "a static group reads every item")
        #expect(await server.run(list) == everything, "public reads with the API key")
        #expect(
            await server.run(list, identity: Self.iam)
                == #"{"data":{"listNotes":null},"errors":["# + Self.unauthorized("listNotes", "Query", column: 3)
                + "]}",
            "no rule names IAM"
        )
        #expect(
            await server.run(#"{ getNote(id: "a1") { id } }"#, identity: Self.bob)
                == #"{"data":{"getNote":null},"errors":["# + Self.unauthorized("getNote", "Query", column: 3) + "]}"
        )
        #expect(
            await server.run(#"{ getNote(id: "a1") { id owner } }"#, identity: Self.alice)
                == #"{"data":{"getNote":{"id":"a1","owner":"sub-alice::alice"}}}"#
        )
        let sync = "{ syncNotes { items { id } } }"
        #expect(
            await server.run(sync, identity: Self.bob).hasPrefix(#"{"data":{"syncNotes":{"items":[{"id":"b1"}]"#),
            "sync is filtered too"
        )
    }

    @Test func updateAndDeleteOfAnothersItemAreRefused() async throws {
        let server = try await TestServer(Self.schema)
        _ = await server.run(#"mutation { createNote(input: {id: "a1", content: "v1"}) { id } }"#, identity: Self.alice)
        #expect(
            await server.run(
                #"mutation { updateNote(input: {id: "a1", content: "bob was here", _version: 1}) { content } }"#,
                identity: Self.bob
            ) == #"{"data":{"updateNote":null},"errors":["# + Self.unauthorized("updateNote", "Mutation", column: 12)
                + "]}"
        )
        #expect(
            await server.run(#"mutation { deleteNote(input: {id: "a1", _version: 1}) { id } }"#, identity: Self.bob)
                == #"{"data":{"deleteNote":null},"errors":["# + Self.unauthorized("deleteNote", "Mutation", column: 12)
                + "]}"
        )
        #expect(
            await server.run(#"{ getNote(id: "a1") { content _version _deleted } }"#, identity: Self.alice)
                == #"{"data":{"getNote":{"content":"v1","_version":1,"_deleted":null}}}"#,
            "nothing changed"
        )
        #expect(
            await server.run(
                #"mutation { updateNote(input: {id: "a1", content: "v2", _version: 1}) { content _version } }"#,
                identity: Self.admin
            ) == #"{"data":{"updateNote":{"content":"v2","_version":2}}}"#
        )
        #expect(
            await server.run(
                #"mutation { deleteNote(input: {id: "a1", _version: 2}) { id _deleted } }"#,
                identity: Self.alice
            )
                == #"{"data":{"deleteNote":{"id":"a1","_deleted":true}}}"#
        )
    }

    @Test func fieldRulesHideAFieldFromOthers() async throws {
        let server = try await TestServer(Self.schema)
        _ = await server.run(
            #"mutation { createNote(input: {id: "a1", content: "c", secret: "s"}) { id } }"#,
            identity: Self.alice
        )
        let query = #"{ getNote(id: "a1") { id secret } }"#
        #expect(
            await server.run(query, identity: Self.alice) == #"{"data":{"getNote":{"id":"a1","secret":"s"}}}"#
        )
        let hidden =
            #"{"data":{"getNote":{"id":"a1","secret":null}},"errors":[{"path":["getNote","secret"],"data":null,"#
            + #""errorType":"Unauthorized","errorInfo":null,"locations":[{"line":1,"column":26,"sourceName":null}],"#
            + #""message":"Not Authorized to access secret on type Note"}]}"#
        #expect(await server.run(query, identity: Self.admin) == hidden, "the group rule is not on the field")
        #expect(await server.run(query) == hidden, "nor is the public rule")
    }

    @Test func dynamicGroupsAdmitMembersOfTheItemsGroups() async throws {
        let server = try await TestServer(Self.schema)
        let writer = Self.user("w", groups: ["Writers"])
        let reader = Self.user("r", groups: ["Readers"])
        #expect(
            await server.run(
                #"mutation { createDoc(input: {id: "d1", title: "T", editors: ["Writers"]}) { id editors } }"#,
                identity: writer
            ) == #"{"data":{"createDoc":{"id":"d1","editors":["Writers"]}}}"#
        )
        #expect(
            await server.run(
                #"mutation { createDoc(input: {id: "d2", title: "T", editors: ["Writers"]}) { id } }"#,
                identity: reader
            ) == #"{"data":{"createDoc":null},"errors":["# + Self.unauthorized("createDoc", "Mutation", column: 12)
                + "]}",
            "a create must name one of the caller's groups"
        )
        #expect(
            await server.run("{ listDocs { items { id } } }", identity: writer)
                == #"{"data":{"listDocs":{"items":[{"id":"d1"}]}}}"#
        )
        #expect(
            await server.run("{ listDocs { items { id } } }", identity: reader)
                == #"{"data":{"listDocs":{"items":[]}}}"#
        )
        #expect(
            await server.run("{ listDocs { items { id } } }", identity: Self.alice)
                == #"{"data":{"listDocs":null},"errors":["# + Self.unauthorized("listDocs", "Query", column: 3) + "]}",
            "a caller in no group"
        )
    }

    @Test func ownerFieldAndIdentityClaimCanBeChosen() async throws {
        let server = try await TestServer(Self.schema)
        #expect(
            await server.run(
                #"mutation { createSetting(input: {id: "s1", value: "dark"}) { id editor } }"#,
                identity: Self.alice
            ) == #"{"data":{"createSetting":{"id":"s1","editor":"alice"}}}"#
        )
        #expect(
            await server.run("{ listSettings { items { id } } }", identity: Self.bob)
                == #"{"data":{"listSettings":{"items":[]}}}"#
        )
    }

    @Test func awsDirectivesGuardTypesAndFields() async throws {
        let server = try await TestServer(Self.schema)
        #expect(
            await server.run(
                #"mutation { createMetric(input: {id: "m1", value: 3, internal: "i", staff: "s"}) { id } }"#
            )
                == #"{"data":{"createMetric":{"id":"m1"}}}"#
        )
        let query = #"{ getMetric(id: "m1") { value internal } }"#
        #expect(
            await server.run(query)
                == #"{"data":{"getMetric":{"value":3,"internal":null}},"errors":[{"path":["getMetric","internal"],"#
                + #""data":null,"errorType":"Unauthorized","errorInfo":null,"#
                + #""locations":[{"line":1,"column":31,"sourceName":null}],"#
                + #""message":"Not Authorized to access internal on type Metric"}]}"#
        )
        #expect(
            await server.run(query, identity: Self.iam) == #"{"data":{"getMetric":{"value":3,"internal":"i"}}}"#
        )
        #expect(
            await server.run(query, identity: Self.alice)
                == #"{"data":{"getMetric":null},"errors":["# + Self.unauthorized("getMetric", "Query", column: 3)
                + "]}",
            "user pools is not among the type's modes"
        )
    }

    /// The guide's `result?.errors![0]` names the first field the query selects: the fields'
    /// errors come in the document's order, list items in index order, whatever order the
    /// executor resolved them in.
    @Test func fieldErrorsComeInTheOrderTheDocumentSelectsThem() async throws {
        let server = try await TestServer(Self.schema)
        for index in 0..<12 {
            #expect(
                await server.run(
                    #"mutation { createMetric(input: {id: "m\#(index)", value: \#(index), internal: "i", staff: "s"}) { id } }"#
                ) == #"{"data":{"createMetric":{"id":"m\#(index)"}}}"#
            )
        }
        let body = await server.json("{ listMetrics(limit: 12) { items { id internal value staff } } }")
        let ids = (body["data"]?["listMetrics"]?["items"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        #expect(ids.count == 12)
        let paths = (body["errors"]?.arrayValue ?? []).map { error in
            (error["path"]?.arrayValue ?? []).map { element in
                element.stringValue ?? element.intValue.map(String.init) ?? "?"
            }.joined(separator: ".")
        }
        let expected = ids.indices.flatMap { index in
            ["listMetrics.items.\(index).internal", "listMetrics.items.\(index).staff"]
        }
        #expect(paths == expected)
        let messages = (body["errors"]?.arrayValue ?? []).prefix(2).compactMap { $0["message"]?.stringValue }
        #expect(
            messages == [
                "Not Authorized to access internal on type Metric", "Not Authorized to access staff on type Metric",
            ]
        )
    }

    @Test func privateIAMAndCustomRulesAdmitTheirModes() async throws {
        let server = try await TestServer(Self.schema)
        let create = #"mutation { createEvent(input: {id: "e1", name: "launch"}) { id } }"#
        #expect(await server.run(create, identity: Self.iam) == #"{"data":{"createEvent":{"id":"e1"}}}"#)
        #expect(
            await server.run(#"{ getEvent(id: "e1") { name } }"#, identity: Self.lambda)
                == #"{"data":{"getEvent":{"name":"launch"}}}"#
        )
        #expect(
            await server.run(#"{ getEvent(id: "e1") { name } }"#)
                == #"{"data":{"getEvent":null},"errors":["# + Self.unauthorized("getEvent", "Query", column: 3) + "]}"
        )
    }
}
