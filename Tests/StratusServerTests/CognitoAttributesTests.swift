import Foundation
import StratusTesting
import Testing

@testable import StratusCognito
@testable import StratusServer

/// Attributes are the schema's (standard and `custom:*`); `sub`, `cognito:groups`,
/// `cognito:username` and the other claims the pool writes never come from one.
@Suite struct CognitoAttributesTests {
    typealias Fixture = CognitoUserPoolTests.Fixture

    /// The claims of a JWT, unverified.
    static func claims(_ token: JSON?) throws -> JSONObject {
        let text = try #require(token?.stringValue)
        return try #require(TokenVerifier.unverifiedClaims(of: text))
    }

    @Test func signUpAndUpdatesRefuseAttributesOutsideTheSchemaOrThePoolsOwn() async throws {
        let fixture = try await Fixture()
        func signUp(_ attributes: JSON) async -> String {
            await fixture.call(
                "SignUp",
                [
                    "ClientId": "unitclient", "Username": "mallory", "Password": "Mallory-pass1!",
                    "UserAttributes": attributes,
                ]
            ).body.text
        }
        // The attack: groups and a username of someone else's, which tokens carried as claims.
        #expect(
            await signUp([["Name": "cognito:groups", "Value": "Admins"], ["Name": "username", "Value": "alice"]])
                == #"{"__type":"InvalidParameterException","message":"Attributes did not conform to the schema: cognito:groups: Attribute does not exist in the schema.\nusername: Attribute does not exist in the schema.\n"}"#
        )
        #expect(
            await signUp([["Name": "email_verified", "Value": "true"]])
                == #"{"__type":"NotAuthorizedException","message":"A client attempted to write unauthorized attribute"}"#
        )
        #expect(
            await signUp([["Name": "sub", "Value": "00000000-0000-4000-8000-000000000000"]])
                == #"{"__type":"NotAuthorizedException","message":"A client attempted to write unauthorized attribute"}"#
        )
        // The administrator's path (the configured users, `stratus users add`) has the same schema.
        await #expect {
            try await fixture.pool.addUser(
                username: "mallory",
                password: "Mallory-pass1!",
                attributes: ["cognito:groups": "Admins"]
            )
        } throws: { error in
            "\(error)"
                == "InvalidParameterException: Attributes did not conform to the schema: cognito:groups: Attribute does not exist in the schema.\n"
        }

        let tokens = try await fixture.signIn()
        let accessToken = try #require(tokens["AccessToken"]?.stringValue)
        func update(_ attributes: JSON) async -> String {
            await fixture.call(
                "UpdateUserAttributes",
                ["AccessToken": .string(accessToken), "UserAttributes": attributes]
            ).body.text
        }
        #expect(
            await update([["Name": "cognito:groups", "Value": "Owners"]])
                == #"{"__type":"InvalidParameterException","message":"user.cognito:groups: Attribute does not exist in the schema.\n"}"#
        )
        #expect(
            await update([["Name": "username", "Value": "ben"]])
                == #"{"__type":"InvalidParameterException","message":"user.username: Attribute does not exist in the schema.\n"}"#
        )
        #expect(
            await update([["Name": "email_verified", "Value": "true"]])
                == #"{"__type":"NotAuthorizedException","message":"A client attempted to write unauthorized attribute"}"#
        )
        #expect(
            await update([["Name": "name", "Value": "Alice A."], ["Name": "custom:team", "Value": "blue"]])
                == #"{"CodeDeliveryDetailsList":[]}"#
        )
        let claims = try Self.claims(try await fixture.signIn()["IdToken"])
        #expect(claims["cognito:groups"] == ["Admins"])
        #expect(claims["cognito:username"] == "alice")
        #expect(claims["username"] == nil)
        #expect(claims["name"] == "Alice A.")
        #expect(claims["custom:team"] == "blue")
    }

    @Test func attributesStoredBeforeTheSchemaWasEnforcedNeverBecomeClaims() async throws {
        let fixture = try await Fixture()
        var alice = try #require(try await fixture.pool.store.read(CognitoUser.self, "alice"))
        let sub = alice.sub
        // As an earlier version let a client store them.
        alice.attributes = [
            "email": "a@example.com", "cognito:groups": "Owners", "username": "ben", "sub": "someone-else",
            "iss": "https://evil.example.com", "cognito:username": "ben",
        ]
        try await fixture.pool.store.write(alice)
        let tokens = try await fixture.signIn()
        let id = try Self.claims(tokens["IdToken"])
        #expect(id["sub"]?.stringValue == sub)
        #expect(id["cognito:groups"] == ["Admins"])
        #expect(id["cognito:username"] == "alice")
        #expect(id["username"] == nil)
        #expect(id["iss"]?.stringValue == "\(CognitoUserPoolTests.origin)/us-east-1_Unit")
        #expect(id["email"] == "a@example.com")
        let user = await fixture.call(
            "GetUser",
            ["AccessToken": .string(try #require(tokens["AccessToken"]?.stringValue))]
        )
        #expect(
            user.body.text
                == #"{"Username":"alice","UserAttributes":[{"Name":"sub","Value":"\#(sub)"},{"Name":"email","Value":"a@example.com"}]}"#
        )
    }

    @Test func aNewPasswordChallengeCannotSetTheSubOrAnAttributeOutsideTheSchema() async throws {
        let fixture = try await Fixture()
        let alice = try #require(try await fixture.pool.store.read(CognitoUser.self, "alice"))
        func create(_ attributes: JSON) async -> (status: Int, body: JSON) {
            await fixture.pool.respond(
                target: "AWSCognitoIdentityProviderService.AdminCreateUser",
                body: Data(
                    JSON.object([
                        "UserPoolId": "us-east-1_Unit", "Username": "mallory", "TemporaryPassword": "Temp-pass1!",
                        "UserAttributes": attributes,
                    ]).text.utf8
                )
            )
        }
        #expect(
            await create([["Name": "sub", "Value": .string(alice.sub)]]).body.text
                == #"{"__type":"InvalidParameterException","message":"Cannot modify the non-mutable attribute sub"}"#
        )
        #expect(await create([]).status == 200)
        let first = await fixture.passwordSignIn("mallory", "Temp-pass1!")
        #expect(first.body["ChallengeName"] == "NEW_PASSWORD_REQUIRED")
        let session = try #require(first.body["Session"])
        func answer(_ attributes: JSONObject) async -> (status: Int, body: JSON) {
            var responses: JSONObject = ["USERNAME": "mallory", "NEW_PASSWORD": "Mallory-pass1!"]
            for (name, value) in attributes { responses["userAttributes.\(name)"] = value }
            return await fixture.call(
                "RespondToAuthChallenge",
                [
                    "ChallengeName": "NEW_PASSWORD_REQUIRED", "ClientId": "unitclient", "Session": session,
                    "ChallengeResponses": .object(responses),
                ]
            )
        }
        // The attack: the account took alice's sub, and with it her items.
        #expect(
            await answer(["sub": .string(alice.sub)]).body.text
                == #"{"__type":"InvalidParameterException","message":"Cannot modify the non-mutable attribute sub"}"#
        )
        #expect(
            await answer(["cognito:groups": "Admins"]).body.text
                == #"{"__type":"InvalidParameterException","message":"user.cognito:groups: Attribute does not exist in the schema.\n"}"#
        )
        #expect(
            await answer(["email_verified": "true"]).body.text
                == #"{"__type":"InvalidParameterException","message":"Cannot modify the non-mutable attribute email_verified"}"#
        )
        let signedIn = await answer(["name": "Mallory"])
        let claims = try Self.claims(signedIn.body["AuthenticationResult"]?["IdToken"])
        #expect(claims["sub"] != nil)
        #expect(claims["sub"]?.stringValue != alice.sub)
        #expect(claims["name"] == "Mallory")
        #expect(claims["cognito:groups"] == nil)
    }
}
