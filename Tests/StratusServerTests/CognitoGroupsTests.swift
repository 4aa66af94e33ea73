import Foundation
import StratusCognito
import StratusServer
import StratusTesting
import Testing

/// The local Cognito's groups driven by boto3 (Interop/cognito_groups.py): `CreateGroup`,
/// `GetGroup`, `ListGroups`, `AdminAddUserToGroup`, `AdminListGroupsForUser`, `DeleteGroup`,
/// the `cognito:groups` claim, and a `{allow: groups}` rule of the API that gql meets with the
/// pool's ID tokens.
@Suite struct CognitoGroupsTests {
    static let script = URL(filePath: #filePath).deletingLastPathComponent().appending(
        path: "Interop/cognito_groups.py"
    )

    @Test func groupsCreatedByTheAdministratorReachTokensAndRules() async throws {
        let backend = try await LocalBackend.start(
            schema: """
                type Article @model @auth(rules: [{ allow: groups, groups: ["Editors"] }]) {
                  id: ID!
                  title: String!
                }
                """,
            defaultMode: .amazonCognitoUserPools,
            additionalModes: [],
            cognito: CognitoConfiguration(
                userPoolId: "us-east-1_Groups",
                clients: [.init(clientId: "groupsclient")],
                groups: ["Readers"],
                users: [
                    .init(username: "gina", password: "Secret-pass1!"),
                    .init(username: "hank", password: "Secret-pass1!", groups: ["Readers"]),
                ]
            )
        )
        defer { Task { await backend.stop() } }
        let result = try await ChildProcess.run([
            "python3", Self.script.path, backend.origin.absoluteString, "us-east-1_Groups", "groupsclient",
        ])
        let output = result.outputText + result.errorText
        try #require(
            result.status == .exited(0),
            "cognito_groups.py failed (python3 -m pip install -r Tests/requirements.txt):\n\(output)"
        )
        let line = try #require(result.outputText.split(separator: "\n").last)
        let json = try JSON(parsing: String(line))
        func text(_ name: String) -> String? { json[name]?.text }

        let editors =
            #"{"Description":"Who may edit","GroupName":"Editors","Precedence":1,"UserPoolId":"us-east-1_Groups"}"#
        #expect(text("createGroup") == editors)
        #expect(
            json["createGroupAgain"]?.stringValue
                == "GroupExistsException: A group with the name Editors already exists."
        )
        #expect(text("getGroup") == editors)
        #expect(json["getUnknownGroup"]?.stringValue == "ResourceNotFoundException: Group not found.")
        #expect(text("listGroups") == #"[\#(editors),{"GroupName":"Readers","UserPoolId":"us-east-1_Groups"}]"#)
        #expect(json["addToGroup"] == 200)
        #expect(json["addToUnknownGroup"]?.stringValue == "ResourceNotFoundException: Group not found.")
        #expect(text("ginaGroups") == "[\(editors)]")
        #expect(text("ginaClaim") == #"["Editors"]"#)
        #expect(text("hankClaim") == #"["Readers"]"#)
        #expect(
            json["unsigned"]?.stringValue
                == "UnrecognizedClientException: The security token included in the request is invalid."
        )

        #expect(text("ginaCreates") == #"{"createArticle":{"id":"a1","title":"Draft"}}"#)
        #expect(
            json["hankCreates"]?.stringValue == "Unauthorized: Not Authorized to access createArticle on type Mutation"
        )
        #expect(json["hankLists"]?.stringValue == "Unauthorized: Not Authorized to access listArticles on type Query")
        #expect(text("ginaLists") == #"{"listArticles":{"items":[{"id":"a1"}]}}"#)

        #expect(json["deleteGroup"] == 200)
        #expect(json["ginaClaimAfterDelete"] == .null)
        #expect(text("listGroupsAfterDelete") == #"["Readers"]"#)
    }
}
