import Foundation
import StratusTesting
import Testing

@testable import StratusCognito
@testable import StratusServer

/// Usernames follow Cognito's pattern on every path, without `::` (the separator of owner
/// values), and a name that is not a username never reaches the store, where SQLite would cut it
/// at a NUL.
@Suite struct CognitoUsernameTests {
    typealias Fixture = CognitoUserPoolTests.Fixture

    static let pattern = #"[\p{L}\p{M}\p{S}\p{N}\p{P}]+"#

    @Test func signUpRefusesNamesCognitoRefusesAndOnesThatCouldPassForAnOwner() async throws {
        let fixture = try await Fixture()
        func signUp(_ username: String) async -> (status: Int, type: String?, message: String?) {
            let answer = await fixture.call(
                "SignUp",
                ["ClientId": "unitclient", "Username": .string(username), "Password": "Mallory-pass1!"]
            )
            return (answer.status, answer.body["__type"]?.stringValue, answer.body["message"]?.stringValue)
        }
        let sub = try #require(try await fixture.pool.store.read(CognitoUser.self, "alice")).sub
        // Its owner value would be `<sub of mallory>::<sub of alice>::alice`: the API's owner
        // values are `<sub>::<username>`.
        #expect(
            await signUp("\(sub)::alice") == (
                400, "InvalidParameterException",
                "Username must not contain '::': the API writes an owner as <sub>::<username>, so such a username "
                    + "could pass for another user's. Choose a username without '::'."
            )
        )
        #expect(
            await signUp("ann\u{0}xyz") == (
                400, "InvalidParameterException",
                #"1 validation error detected: Value 'ann\u0000xyz' at 'username' failed to satisfy constraint: "#
                    + "Member must satisfy regular expression pattern: \(Self.pattern)"
            )
        )
        #expect(
            await signUp("ann xyz") == (
                400, "InvalidParameterException",
                "1 validation error detected: Value 'ann xyz' at 'username' failed to satisfy constraint: "
                    + "Member must satisfy regular expression pattern: \(Self.pattern)"
            )
        )
        #expect(
            await signUp("") == (
                400, "InvalidParameterException",
                "1 validation error detected: Value '' at 'username' failed to satisfy constraint: "
                    + "Member must have length greater than or equal to 1"
            )
        )
        let long = String(repeating: "a", count: 129)
        #expect(
            await signUp(long) == (
                400, "InvalidParameterException",
                "1 validation error detected: Value '\(long)' at 'username' failed to satisfy constraint: "
                    + "Member must have length less than or equal to 128"
            )
        )
        // The administrator's path refuses them as well.
        await #expect {
            try await fixture.pool.addUser(username: "bob\u{7}", password: "Bob-pass1!")
        } throws: { error in
            "\(error)"
                == #"InvalidParameterException: 1 validation error detected: Value 'bob\u0007' at 'username' failed to satisfy constraint: "#
                + "Member must satisfy regular expression pattern: \(Self.pattern)"
        }
    }

    /// The attack: a user named with bob's `sub` (public in every owner value `<sub>::bob`) owned
    /// what bob owns under the bare `sub`.
    @Test func aNewUsernameCannotHaveTheFormOfAUserId() async throws {
        let fixture = try await Fixture()
        let sub = try #require(try await fixture.pool.store.read(CognitoUser.self, "alice")).sub
        func refusal(_ name: String) -> (Int, String?, String?) {
            (
                400, "InvalidParameterException",
                "Username '\(name)' has the form of a user id (a UUID, as the sub of every user is): the API "
                    + "takes a user's sub for its owner, so such a username could pass for another user. Choose a "
                    + "username that is not a UUID."
            )
        }
        let answer = await fixture.call(
            "SignUp",
            ["ClientId": "unitclient", "Username": .string(sub), "Password": "Mallory-pass1!"]
        )
        #expect(
            (answer.status, answer.body["__type"]?.stringValue, answer.body["message"]?.stringValue)
                == refusal(sub)
        )
        let upper = UUID().uuidString
        await #expect {
            try await fixture.pool.addUser(username: upper, password: "Mallory-pass1!")
        } throws: { error in
            "\(error)" == "InvalidParameterException: " + (refusal(upper).2 ?? "")
        }
        // Names that only look like part of one are names.
        #expect(
            await fixture.call(
                "SignUp",
                ["ClientId": "unitclient", "Username": "8e530d35-38f8", "Password": "Mallory-pass1!"]
            ).status == 200
        )
    }

    @Test func aNameWithANulSignsInAsNobody() async throws {
        let fixture = try await Fixture()
        // SQLite binds text up to its first NUL: `alice\0xyz` found alice's record.
        let answer = await fixture.passwordSignIn("alice\u{0}xyz", "Alice-pass1!")
        #expect(answer.status == 400)
        #expect(
            answer.body.text == #"{"__type":"NotAuthorizedException","message":"Incorrect username or password."}"#
        )
        #expect(try await fixture.pool.pendingCode(for: "alice\u{0}xyz") == nil)
        // The store refuses such a key itself, whatever asks.
        await #expect {
            try await fixture.pool.store.read(CognitoUser.self, "alice\u{0}xyz")
        } throws: { error in
            "\(error)"
                == #"InvalidParameterException: 'alice\u0000xyz' contains a NUL character, which no name or id may contain."#
        }
    }
}
