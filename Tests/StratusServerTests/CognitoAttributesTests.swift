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
        #expect(
            await create([["Name": "email", "Value": "m@example.com"], ["Name": "email_verified", "Value": "true"]])
                .status == 200
        )
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
        // A new email, set with the new password, is unverified as any new email is.
        let signedIn = await answer(["name": "Mallory", "email": "a@example.com"])
        let claims = try Self.claims(signedIn.body["AuthenticationResult"]?["IdToken"])
        #expect(claims["sub"] != nil)
        #expect(claims["sub"]?.stringValue != alice.sub)
        #expect(claims["name"] == "Mallory")
        #expect(claims["email"] == "a@example.com")
        #expect(claims["email_verified"] == false)
        #expect(claims["cognito:groups"] == nil)
    }

    /// The attack stored 8 × 900 KB `custom:*` values for one self-signed-up user (a 9.6 MB ID
    /// token) and a name holding a NUL. Cognito holds a value to 2,048 characters, a name to its
    /// pattern and 32 characters (20 after `custom:`), and a schema to 50 custom attributes.
    @Test func attributeValuesNamesAndCountsAreHeldToCognitosLimits() async throws {
        let fixture = try await Fixture()
        let accessToken = try #require(try await fixture.signIn()["AccessToken"]?.stringValue)
        func update(_ attributes: JSON) async -> String {
            await fixture.call(
                "UpdateUserAttributes",
                ["AccessToken": .string(accessToken), "UserAttributes": attributes]
            ).body.text
        }
        let long = String(repeating: "A", count: 2049)
        #expect(
            await update([["Name": "name", "Value": "A."], ["Name": "custom:blob", "Value": .string(long)]])
                == #"{"__type":"InvalidParameterException","message":"1 validation error detected: Value at 'userAttributes.2.member.value' failed to satisfy constraint: Member must have length less than or equal to 2048"}"#
        )
        #expect(
            await update([["Name": "custom:nul\u{0}name", "Value": "x"]])
                == #"{"__type":"InvalidParameterException","message":"1 validation error detected: Value 'custom:nul\\u0000name' at 'userAttributes.1.member.name' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\p{L}\\p{M}\\p{S}\\p{N}\\p{P}]+"}"#
        )
        #expect(
            await update([["Name": "custom:abcdefghijklmnopqrstu", "Value": "x"]])
                == #"{"__type":"InvalidParameterException","message":"user.custom:abcdefghijklmnopqrstu: Attribute does not exist in the schema (a custom attribute's name has at most 20 characters after 'custom:').\n"}"#
        )
        #expect(
            await update([["Name": .string("custom:" + String(repeating: "n", count: 26)), "Value": "x"]])
                == #"{"__type":"InvalidParameterException","message":"1 validation error detected: Value 'custom:nnnnnnnnnnnnnnnnnnnnnnnnnn' at 'userAttributes.1.member.name' failed to satisfy constraint: Member must have length less than or equal to 32"}"#
        )
        // SignUp reads its attributes the same way.
        #expect(
            await fixture.call(
                "SignUp",
                [
                    "ClientId": "unitclient", "Username": "eve", "Password": "Eve-pass1!",
                    "UserAttributes": [["Name": "custom:blob", "Value": .string(long)]],
                ]
            ).body.text
                == #"{"__type":"InvalidParameterException","message":"1 validation error detected: Value at 'userAttributes.1.member.value' failed to satisfy constraint: Member must have length less than or equal to 2048"}"#
        )
        // 2,048 characters, and 50 custom attributes, are within the limits; a 51st is not.
        let full = String(repeating: "é", count: 2048)
        let fifty = JSON.array((0..<50).map { .object(["Name": .string("custom:a\($0)"), "Value": .string(full)]) })
        #expect(await update(fifty) == #"{"CodeDeliveryDetailsList":[]}"#)
        #expect(
            await update([["Name": "custom:a0", "Value": "again"], ["Name": "custom:b", "Value": "x"]])
                == #"{"__type":"InvalidParameterException","message":"A user has at most 50 custom attributes, as a Cognito user pool's schema holds at most 50; this would give it 51. Reuse the names of the ones it has."}"#
        )
        // The administrator's path is held to the same limits.
        await #expect {
            try await fixture.pool.addUser(username: "eve", password: "Eve-pass1!", attributes: ["custom:blob": long])
        } throws: { error in
            "\(error)"
                == "InvalidParameterException: The value of custom:blob has 2049 characters; an attribute's value has at most 2048."
        }
    }

    /// The attack: bob set his email to alice's, and his next ID token said
    /// `"email": "a@example.com", "email_verified": true`, which `identityClaim: "email"` trusted.
    /// As in Cognito, a new email or phone number is unverified until the code sent to it is given.
    @Test func aChangedEmailOrPhoneNumberIsUnverifiedUntilItsCodeIsGiven() async throws {
        let fixture = try await Fixture()
        try await fixture.pool.addUser(
            username: "bob",
            password: "Bob-pass1!",
            attributes: [
                "email": "bob@example.com", "email_verified": "true", "phone_number": "+15555550100",
                "phone_number_verified": "true",
            ]
        )
        let accessToken = try #require(try await fixture.signIn("bob", "Bob-pass1!")["AccessToken"]?.stringValue)
        func call(_ operation: String, _ input: JSONObject) async -> String {
            var input = input
            input["AccessToken"] = .string(accessToken)
            return await fixture.call(operation, .object(input)).body.text
        }
        func bobsClaims() async throws -> JSONObject {
            try Self.claims(try await fixture.signIn("bob", "Bob-pass1!")["IdToken"])
        }
        #expect(
            await call(
                "UpdateUserAttributes",
                [
                    "UserAttributes": [
                        ["Name": "email", "Value": "a@example.com"], ["Name": "phone_number", "Value": "+15555550199"],
                    ]
                ]
            )
                == #"{"CodeDeliveryDetailsList":[{"Destination":"a***@example.com","DeliveryMedium":"EMAIL","AttributeName":"email"},{"Destination":"+*******0199","DeliveryMedium":"SMS","AttributeName":"phone_number"}]}"#
        )
        var claims = try await bobsClaims()
        #expect(claims["email"] == "a@example.com")
        #expect(claims["email_verified"] == false)
        #expect(claims["phone_number_verified"] == false)

        let mismatch =
            #"{"__type":"CodeMismatchException","message":"Invalid verification code provided, please try again."}"#
        #expect(
            await call("VerifyUserAttribute", ["AttributeName": "email", "Code": "000000"]) == mismatch
        )
        #expect(await call("VerifyUserAttribute", ["AttributeName": "email", "Code": "424242"]) == "{}")
        #expect(
            await call("GetUserAttributeVerificationCode", ["AttributeName": "phone_number"])
                == #"{"CodeDeliveryDetails":{"Destination":"+*******0199","DeliveryMedium":"SMS","AttributeName":"phone_number"}}"#
        )
        #expect(await call("VerifyUserAttribute", ["AttributeName": "phone_number", "Code": "424242"]) == "{}")
        #expect(
            await call("GetUserAttributeVerificationCode", ["AttributeName": "name"])
                == #"{"__type":"InvalidParameterException","message":"Only email and phone_number are verified with a code; 'name' is not."}"#
        )
        claims = try await bobsClaims()
        #expect(claims["email_verified"] == true)
        #expect(claims["phone_number_verified"] == true)
        // The same value again changes nothing.
        #expect(
            await call("UpdateUserAttributes", ["UserAttributes": [["Name": "email", "Value": "a@example.com"]]])
                == #"{"CodeDeliveryDetailsList":[]}"#
        )

        // An administrator's change is unverified too, unless it says the new value is verified.
        func adminUpdate(_ attributes: JSON) async -> String {
            await fixture.pool.respond(
                target: "AWSCognitoIdentityProviderService.AdminUpdateUserAttributes",
                body: Data(
                    JSON.object(["UserPoolId": "us-east-1_Unit", "Username": "bob", "UserAttributes": attributes])
                        .text.utf8
                )
            ).body.text
        }
        #expect(await adminUpdate([["Name": "email", "Value": "c@example.com"]]) == "{}")
        var bob = try #require(try await fixture.pool.store.read(CognitoUser.self, "bob"))
        #expect(bob.attributes["email"] == "c@example.com")
        #expect(bob.attributes["email_verified"] == "false")
        #expect(
            await adminUpdate([
                ["Name": "email", "Value": "d@example.com"], ["Name": "email_verified", "Value": "true"],
            ]) == "{}"
        )
        bob = try #require(try await fixture.pool.store.read(CognitoUser.self, "bob"))
        #expect(bob.attributes["email"] == "d@example.com")
        #expect(bob.attributes["email_verified"] == "true")
        // A code sent to an earlier value does not verify the one that replaced it.
        #expect(
            await call("UpdateUserAttributes", ["UserAttributes": [["Name": "email", "Value": "f@example.com"]]])
                == #"{"CodeDeliveryDetailsList":[{"Destination":"f***@example.com","DeliveryMedium":"EMAIL","AttributeName":"email"}]}"#
        )
        #expect(
            await adminUpdate([
                ["Name": "email", "Value": "g@example.com"], ["Name": "email_verified", "Value": "false"],
            ]) == "{}"
        )
        #expect(await call("VerifyUserAttribute", ["AttributeName": "email", "Code": "424242"]) == mismatch)
    }

    /// The attack: an administrator set bob's `custom:role` to `user`; bob wrote `Admins` into it
    /// himself, and `{allow: groups, groupClaim: "custom:role"}` admitted him. As in Cognito, an
    /// app client writes only its `WriteAttributes` and reads only its `ReadAttributes`.
    @Test func aClientWritesOnlyItsWriteAttributesAndReadsOnlyItsReadAttributes() async throws {
        let fixture = try await Fixture {
            $0.clientRequestLimit = nil
            $0.clients = [
                .init(
                    clientId: "unitclient",
                    readAttributes: ["email", "email_verified", "custom:role", "name"],
                    writeAttributes: ["name", "email"]
                )
            ]
        }
        try await fixture.pool.addUser(
            username: "bob",
            password: "Bob-pass1!",
            attributes: ["email": "bob@example.com", "custom:role": "user", "custom:team": "blue"]
        )
        let tokens = try await fixture.signIn("bob", "Bob-pass1!")
        let accessToken = try #require(tokens["AccessToken"]?.stringValue)
        let unauthorized =
            #"{"__type":"NotAuthorizedException","message":"A client attempted to write unauthorized attribute"}"#
        func update(_ attributes: JSON) async -> String {
            await fixture.call(
                "UpdateUserAttributes",
                ["AccessToken": .string(accessToken), "UserAttributes": attributes]
            ).body.text
        }
        #expect(await update([["Name": "custom:role", "Value": "Admins"]]) == unauthorized)
        #expect(
            await update([["Name": "name", "Value": "Bob"], ["Name": "custom:team", "Value": "red"]]) == unauthorized
        )
        #expect(await update([["Name": "name", "Value": "Bob"]]) == #"{"CodeDeliveryDetailsList":[]}"#)
        #expect(
            await fixture.call(
                "SignUp",
                [
                    "ClientId": "unitclient", "Username": "eve", "Password": "Eve-pass1!",
                    "UserAttributes": [["Name": "custom:role", "Value": "Admins"]],
                ]
            ).body.text == unauthorized
        )
        // Nor through the attributes of a new password.
        let created = await fixture.pool.respond(
            target: "AWSCognitoIdentityProviderService.AdminCreateUser",
            body: Data(
                JSON.object(["UserPoolId": "us-east-1_Unit", "Username": "dan", "TemporaryPassword": "Temp-pass1!"])
                    .text.utf8
            )
        )
        #expect(created.status == 200)
        let challenge = await fixture.passwordSignIn("dan", "Temp-pass1!")
        #expect(
            await fixture.call(
                "RespondToAuthChallenge",
                [
                    "ChallengeName": "NEW_PASSWORD_REQUIRED", "ClientId": "unitclient",
                    "Session": try #require(challenge.body["Session"]),
                    "ChallengeResponses": [
                        "USERNAME": "dan", "NEW_PASSWORD": "Dan-pass1!", "userAttributes.custom:role": "Admins",
                    ],
                ]
            ).body.text == unauthorized
        )
        // The ID token and GetUser carry what the client reads: not custom:team.
        let claims = try Self.claims(try await fixture.signIn("bob", "Bob-pass1!")["IdToken"])
        #expect(claims["custom:role"] == "user")
        #expect(claims["name"] == "Bob")
        #expect(claims["email"] == "bob@example.com")
        #expect(claims["custom:team"] == nil)
        let sub = try #require(claims["sub"]?.stringValue)
        #expect(
            await fixture.call("GetUser", ["AccessToken": .string(accessToken)]).body.text
                == #"{"Username":"bob","UserAttributes":[{"Name":"sub","Value":"\#(sub)"},{"Name":"custom:role","Value":"user"},{"Name":"email","Value":"bob@example.com"},{"Name":"name","Value":"Bob"}]}"#
        )
    }
}
