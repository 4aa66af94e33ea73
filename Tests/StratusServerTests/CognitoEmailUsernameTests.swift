import Foundation
import StratusTesting
import Testing

@testable import StratusCognito
@testable import StratusServer

/// A pool whose users sign in with their email (`UsernameAttributes`), driven by boto3 and
/// pycognito's SRP (Interop/cognito_email_usernames.py).
@Suite struct CognitoEmailUsernameTests {
    static let script = URL(filePath: #filePath).deletingLastPathComponent().appending(
        path: "Interop/cognito_email_usernames.py"
    )

    @Test func theEmailIsTheSignInNameAndTheSubTheUsername() async throws {
        var configuration = CognitoConfiguration(
            userPoolId: "us-east-1_Email",
            clients: [.init(clientId: "emailclient")]
        )
        configuration.usernameAttributes = [.email]
        let backend = try await LocalBackend.start(
            schema: "type Note @model { id: ID! }",
            additionalModes: [.amazonCognitoUserPools],
            cognito: configuration
        )
        defer { Task { await backend.stop() } }
        let result = try await ChildProcess.run([
            "python3", Self.script.path, backend.origin.absoluteString, "us-east-1_Email", "emailclient",
        ])
        let output = result.outputText + result.errorText
        try #require(
            result.status == .exited(0),
            "cognito_email_usernames.py failed (python3 -m pip install -r Tests/requirements.txt):\n\(output)"
        )
        let line = try #require(result.outputText.split(separator: "\n").last)
        let json = try JSON(parsing: String(line))

        #expect(json["signUpWithoutEmail"] == "InvalidParameterException: Username should be an email.")
        #expect(json["signUpAgain"] == "UsernameExistsException: An account with the given email already exists.")
        #expect(json["unconfirmed"] == "UserNotConfirmedException: User is not confirmed.")
        #expect(json["confirm"] == 200)
        #expect(json["passwordSignIn"]?.text == #"{"email":"ivy@example.com","usernameIsSub":true}"#)
        #expect(json["wrongPassword"] == "NotAuthorizedException: Incorrect username or password.")
        #expect(json["srpSignIn"]?.text == #"{"email":"ivy@example.com","usernameIsSub":true}"#)
        #expect(json["accessUsernameIsSub"] == true)
        #expect(json["adminGetUser"] == "ivy@example.com")
        #expect(json["listUsers"]?.text == #"[[true,"ivy@example.com"]]"#)
    }

    /// A pool, without the fixture's `alice`, whose users sign in with their email.
    static func emailPool() async throws -> CognitoUserPoolTests.Fixture {
        try await CognitoUserPoolTests.Fixture(poolId: "us-east-1_Email") {
            $0.clientRequestLimit = nil
            $0.usernameAttributes = [.email]
            $0.autoConfirmsSignUp = true
            $0.users = []
        }
    }

    static let aliasExists =
        #"{"__type":"AliasExistsException","message":"An account with the given email already exists."}"#

    /// The attack: mallory set her email to a victim's; the victim's own password was refused,
    /// mallory signed in with the victim's email, and a reset asked for it reset mallory's account.
    @Test func anEmailAnotherUserSignsInWithIsRefused() async throws {
        let fixture = try await Self.emailPool()
        let people = [("victim@corp.example", "Victim-pass1!"), ("mallory@evil.example", "Mallory-pass1!")]
        for (email, password) in people {
            let answer = await fixture.call(
                "SignUp",
                ["ClientId": "unitclient", "Username": .string(email), "Password": .string(password)]
            )
            #expect(answer.status == 200, "\(answer.body.text)")
        }
        let mallory = try #require(
            try await fixture.signIn("mallory@evil.example", "Mallory-pass1!")["AccessToken"]?.stringValue
        )
        let update = await fixture.call(
            "UpdateUserAttributes",
            ["AccessToken": .string(mallory), "UserAttributes": [["Name": "email", "Value": "victim@corp.example"]]]
        )
        #expect(update.body.text == Self.aliasExists)
        _ = try await fixture.signIn("victim@corp.example", "Victim-pass1!")
        #expect(
            await fixture.passwordSignIn("victim@corp.example", "Mallory-pass1!").body.text
                == CognitoGuessingTests.incorrect
        )
        // The administrator's paths keep it too.
        let create = await fixture.pool.respond(
            target: "AWSCognitoIdentityProviderService.AdminCreateUser",
            body: Data(
                JSON.object(["UserPoolId": "us-east-1_Email", "Username": "victim@corp.example"]).text.utf8
            )
        )
        #expect(
            create.body.text
                == #"{"__type":"UsernameExistsException","message":"An account with the given email already exists."}"#
        )
        let malloryRecord = try #require(
            try await fixture.pool.store.all(CognitoUser.self).first {
                $0.attributes["email"] == "mallory@evil.example"
            }
        )
        let adminUpdate = await fixture.pool.respond(
            target: "AWSCognitoIdentityProviderService.AdminUpdateUserAttributes",
            body: Data(
                JSON.object([
                    "UserPoolId": "us-east-1_Email", "Username": .string(malloryRecord.username),
                    "UserAttributes": [["Name": "email", "Value": "victim@corp.example"]],
                ]).text.utf8
            )
        )
        #expect(adminUpdate.body.text == Self.aliasExists)

        // Two users holding one email (as a store written before it was checked may): the email
        // names neither, rather than the first found.
        var copy = malloryRecord
        copy.attributes["email"] = "victim@corp.example"
        try await fixture.pool.store.write(copy)
        #expect(
            await fixture.passwordSignIn("victim@corp.example", "Victim-pass1!").body.text
                == CognitoGuessingTests.incorrect
        )
    }
}
