import Foundation
import StratusCognito
import StratusServer
import StratusTesting
import Testing

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
            additionalModes: [.userPools],
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
}
