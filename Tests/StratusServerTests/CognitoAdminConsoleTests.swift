import Foundation
import Testing

@testable import StratusCognito
@testable import StratusServer

/// What the console's Users page asks of the local Cognito: disabling and enabling a user, and
/// the codes the pool would have sent.
@Suite struct CognitoAdminConsoleTests {
    typealias Fixture = CognitoUserPoolTests.Fixture

    @Test func aDisabledUserCannotSignInAndLosesItsTokensUntilEnabled() async throws {
        let fixture = try await Fixture()
        let tokens = try await fixture.signIn()
        let refreshToken = try #require(tokens["RefreshToken"])
        let disabled = await fixture.pool.administer("AdminDisableUser", ["Username": "alice"])
        let listed = try await fixture.pool.listUsers().map(\.enabled)
        let signIn = await fixture.passwordSignIn("alice", "Alice-pass1!")
        let refresh = await fixture.call(
            "InitiateAuth",
            [
                "AuthFlow": "REFRESH_TOKEN_AUTH", "ClientId": "unitclient",
                "AuthParameters": ["REFRESH_TOKEN": refreshToken],
            ]
        )
        let enabled = await fixture.pool.administer("AdminEnableUser", ["Username": "alice"])
        let again = await fixture.passwordSignIn("alice", "Alice-pass1!")
        let nobody = await fixture.pool.administer("AdminDisableUser", ["Username": "nobody"])
        #expect(disabled.status == 200)
        #expect(disabled.body.text == "{}")
        #expect(listed == [false])
        #expect(signIn.status == 400)
        #expect(signIn.body.text == #"{"__type":"NotAuthorizedException","message":"User is disabled."}"#)
        #expect(refresh.status == 400)
        #expect(refresh.body["__type"]?.stringValue == "NotAuthorizedException")
        #expect(enabled.status == 200)
        #expect(again.status == 200)
        #expect(nobody.status == 400)
        #expect(nobody.body.text == #"{"__type":"UserNotFoundException","message":"User does not exist."}"#)
    }

    /// A sign-up's code, a password reset's and an email verification's, newest first, each with
    /// where it would have gone.
    @Test func theCodesThePoolWouldHaveSentAreKeptNewestFirst() async throws {
        let clock = TestClock()
        let fixture = try await Fixture(clock: clock)
        let signUp = await fixture.call(
            "SignUp",
            ["ClientId": "unitclient", "Username": "carol", "Password": "Carol-pass1!"]
        )
        clock.advance(milliseconds: 1000)
        let forgot = await fixture.call("ForgotPassword", ["ClientId": "unitclient", "Username": "alice"])
        clock.advance(milliseconds: 1000)
        let access = try #require(try await fixture.signIn()["AccessToken"])
        let update = await fixture.call(
            "UpdateUserAttributes",
            ["AccessToken": access, "UserAttributes": [["Name": "email", "Value": "alice@example.org"]]]
        )
        #expect(
            [signUp.status, forgot.status, update.status] == [Int](repeating: 200, count: 3),
            "\(update.body.text)"
        )
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(
            fixture.pool.sentCodes() == [
                .init(
                    time: start.addingTimeInterval(2),
                    username: "alice",
                    destination: "alice@example.org",
                    purpose: .verifyEmail,
                    code: "424242"
                ),
                .init(
                    time: start.addingTimeInterval(1),
                    username: "alice",
                    destination: "a@example.com",
                    purpose: .resetPassword,
                    code: "424242"
                ),
                .init(time: start, username: "carol", destination: nil, purpose: .confirmSignUp, code: "424242"),
            ]
        )
    }
}
