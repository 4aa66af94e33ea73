import Foundation
import StratusCognito
import StratusServer
import StratusTesting
import Testing

/// The local Cognito driven by clients nobody here wrote (Interop/cognito_clients.py): boto3's
/// `cognito-idp` and `cognito-identity`, pycognito's SRP, PyJWT verifying against the JWKS, and
/// gql authorized by the ID token and by the identity pool's credentials.
@Suite struct CognitoInteropTests {
    static let script = URL(filePath: #filePath).deletingLastPathComponent().appending(
        path: "Interop/cognito_clients.py"
    )

    /// Two app clients (one with a secret), a group, and models guarded by owner and IAM rules.
    static let configuration = CognitoConfiguration(
        userPoolId: "us-east-1_Interop",
        clients: [.init(clientId: "interopclient"), .init(clientId: "interopsecret", clientSecret: "interop-secret")],
        groups: ["Admins"]
    )

    static let schema = """
        type Note @model @auth(rules: [{allow: owner}, {allow: private, provider: iam}]) {
          id: ID!
          text: String
          owner: String
        }
        type Notice @model @auth(rules: [{allow: public, provider: iam}, {allow: private, provider: iam}]) {
          id: ID!
          text: String
        }
        """

    @Test func clientsNobodyHereWroteAgainstTheLocalPool() async throws {
        let backend = try await LocalBackend.start(
            schema: Self.schema,
            additionalModes: [.awsIAM, .amazonCognitoUserPools],
            cognito: Self.configuration
        )
        defer { Task { await backend.stop() } }
        let result = try await ChildProcess.run([
            "python3", Self.script.path, backend.origin.absoluteString, backend.dataDirectory.path,
            "us-east-1_Interop", "interopclient", "interopsecret", "interop-secret",
            try #require(Self.configuration.identityPoolId),
        ])
        let output = result.outputText + result.errorText
        try #require(
            result.status == .exited(0),
            "cognito_clients.py failed (python3 -m pip install -r Tests/requirements.txt):\n\(output)"
        )
        let line = try #require(result.outputText.split(separator: "\n").last)
        let json = try JSON(parsing: String(line))
        func text(_ name: String) -> String? { json[name]?.stringValue }

        // Sign-up, confirmation with the code kept in the data directory, refusals.
        #expect(
            json["signUp"]?.text
                == #"{"CodeDeliveryDetails":{"AttributeName":"email","DeliveryMedium":"EMAIL","Destination":"c***@example.com"},"UserConfirmed":false}"#
        )
        #expect(text("signInUnconfirmed") == "UserNotConfirmedException: User is not confirmed.")
        #expect(text("wrongCode") == "CodeMismatchException: Invalid verification code provided, please try again.")
        #expect(json["confirm"] == 200)
        #expect(text("signUpAgain") == "UsernameExistsException: User already exists")
        #expect(
            text("weakPassword")
                == "InvalidPasswordException: Password did not conform with policy: Password not long enough"
        )
        #expect(text("wrongPassword") == "NotAuthorizedException: Incorrect username or password.")
        // PreventUserExistenceErrors: an unknown name is answered as a wrong password.
        #expect(text("unknownUser") == "NotAuthorizedException: Incorrect username or password.")
        #expect(text("missingUsername") == "InvalidParameterException: Missing required parameter USERNAME")

        // Tokens as Cognito issues them, verified by PyJWT against the JWKS.
        #expect(text("tokenType") == "Bearer")
        #expect(
            json["idClaims"]?.text
                == #"["aud","auth_time","cognito:username","email","event_id","exp","iat","iss","jti","origin_jti","sub","token_use"]"#
        )
        let issuer = "\(backend.origin.absoluteString)/us-east-1_Interop"
        #expect(
            json["idValues"]?.text
                == #"{"aud":"interopclient","cognito:username":"carol","email":"carol@example.com","token_use":"id"}"#
        )
        #expect(text("issuer") == issuer)
        #expect(
            json["accessClaims"]?.text
                == #"["auth_time","client_id","event_id","exp","iat","iss","jti","origin_jti","scope","sub","token_use","username"]"#
        )
        #expect(
            json["accessValues"]?.text
                == #"{"client_id":"interopclient","scope":"aws.cognito.signin.user.admin","token_use":"access","username":"carol"}"#
        )
        #expect(json["sameOrigin"] == true)
        #expect(text("tamperedPyJWT") == "InvalidSignatureError: Signature verification failed")
        #expect(json["getUser"]?.text == #"{"Names":["sub","email"],"Username":"carol"}"#)
        #expect(json["refresh"]?.text == #"["AccessToken","ExpiresIn","IdToken","TokenType"]"#)

        // The administrator's calls, signed by botocore.
        #expect(text("adminCreate") == "FORCE_CHANGE_PASSWORD")
        #expect(json["adminSetPassword"] == 200)
        #expect(json["adminGroup"] == 200)
        #expect(json["erinGroups"]?.text == #"["Admins"]"#)
        #expect(json["listUsers"]?.text == #"["carol","erin"]"#)
        #expect(json["adminConfirm"]?.text == #"["AccessToken","ExpiresIn","IdToken","RefreshToken","TokenType"]"#)
        // A deleted user's sign-in is a wrong password's, as an unknown name's is.
        #expect(text("adminDelete") == "NotAuthorizedException: Incorrect username or password.")
        #expect(
            text("wrongAdminSecret")?.hasPrefix("InvalidSignatureException: ") == true,
            "\(json["wrongAdminSecret"] ?? nil)"
        )

        // A client with a secret.
        #expect(json["secretClient"]?.text == #"["AccessToken","ExpiresIn","IdToken","RefreshToken","TokenType"]"#)
        #expect(
            text("secretClientWithoutHash")
                == "NotAuthorizedException: Client interopsecret is configured for secret but secret was not received"
        )

        // SRP as pycognito computes it.
        #expect(text("pycognitoSRP") == "carol")
        #expect(text("pycognitoWrongPassword") == "NotAuthorizedException: Incorrect username or password.")

        // The identity pool.
        #expect(
            json["identity"]?.text == #"{"expires":true,"guestKey":"ASIA","sameIdentityAgain":true,"userKey":"ASIA"}"#
        )
        #expect(
            text("userIdentityWithoutLogins")
                == "NotAuthorizedException: Logins don't match. Please include at least one valid login for this identity or identity pool."
        )
        #expect(
            text("wrongProvider")
                == "NotAuthorizedException: Invalid login token. Unknown provider: cognito-idp.us-east-1.amazonaws.com/x"
        )

        // gql with the ID token, and with the identity pool's credentials signed by botocore.
        #expect(
            json["gqlOwnerCreate"]?.text == #"{"createNote":{"id":"n1","owner":""# + "\(try ownerOf(json))" + #""}}"#
        )
        #expect(json["gqlUserIAMPrivate"]?.text == #"{"listNotes":{"items":[{"id":"n1","text":"mine"}]}}"#)
        #expect(text("gqlGuestIAMPrivate")?.contains("Not Authorized to access listNotes on type Query") == true)
        #expect(json["gqlGuestIAMPublic"]?.text == #"{"createNotice":{"id":"p1"}}"#)

        // Revocation and sign-out.
        #expect(json["revoke"] == 200)
        #expect(text("refreshRevoked") == "NotAuthorizedException: Refresh Token has been revoked")
        #expect(text("getUserRevoked") == "NotAuthorizedException: Access Token has been revoked")
        #expect(json["globalSignOut"] == 200)
        #expect(text("getUserAfterSignOut") == "NotAuthorizedException: Access Token has been revoked")
        #expect(text("refreshAfterSignOut") == "NotAuthorizedException: Refresh Token has been revoked")
    }

    /// The owner the API wrote: `<sub>::<username>`.
    private func ownerOf(_ json: JSON) throws -> String {
        try #require(json["gqlOwnerCreate"]?["createNote"]?["owner"]?.stringValue)
    }
}
