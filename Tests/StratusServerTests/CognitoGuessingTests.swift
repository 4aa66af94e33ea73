import Foundation
import StratusTesting
import Testing

@testable import StratusCognito
@testable import StratusServer

/// What a guesser gets: five tries at a code, the answers (and the time) a wrong password gets
/// for a name nobody has, and lockouts that hold only the guesser's own address.
@Suite struct CognitoGuessingTests {
    typealias Fixture = CognitoUserPoolTests.Fixture

    static let incorrect = #"{"__type":"NotAuthorizedException","message":"Incorrect username or password."}"#
    static let mismatch =
        #"{"__type":"CodeMismatchException","message":"Invalid verification code provided, please try again."}"#
    static let limit =
        #"{"__type":"LimitExceededException","message":"Attempt limit exceeded, please try after some time."}"#

    @Test func aResetCodeTakesFiveWrongAnswersAndThenMustBeAskedForAgain() async throws {
        let fixture = try await Fixture()
        func reset(_ code: String) async -> String {
            await fixture.call(
                "ConfirmForgotPassword",
                [
                    "ClientId": "unitclient", "Username": "alice", "ConfirmationCode": .string(code),
                    "Password": "New-pass1!",
                ]
            ).body.text
        }
        let forgot = await fixture.call("ForgotPassword", ["ClientId": "unitclient", "Username": "alice"])
        #expect(forgot.status == 200)
        // The code is 424242: the attack tried 2,000 codes in 9 s, and the right one still worked.
        for code in ["000000", "000001", "000002", "000003"] { #expect(await reset(code) == Self.mismatch) }
        #expect(await reset("000004") == Self.limit)
        #expect(await reset("424242") == Self.limit)
        #expect(await fixture.call("ForgotPassword", ["ClientId": "unitclient", "Username": "alice"]).status == 200)
        #expect(await reset("424242") == "{}")
        _ = try await fixture.signIn("alice", "New-pass1!")
    }

    @Test func aConfirmationCodeTakesFiveWrongAnswersAndCodesAreFiveAnHour() async throws {
        let clock = TestClock()
        let fixture = try await Fixture(clock: clock)
        let signUp = await fixture.call(
            "SignUp",
            ["ClientId": "unitclient", "Username": "bob", "Password": "Bobs-secret-pass9!"]
        )
        #expect(signUp.status == 200)
        func confirm(_ code: String) async -> String {
            await fixture.call(
                "ConfirmSignUp",
                ["ClientId": "unitclient", "Username": "bob", "ConfirmationCode": .string(code)]
            ).body.text
        }
        for code in ["1", "2", "3", "4"] { #expect(await confirm(code) == Self.mismatch) }
        #expect(await confirm("5") == Self.limit)
        #expect(await confirm("424242") == Self.limit)
        // The sign-up's code and four more in an hour; the sixth waits.
        func resend() async -> (status: Int, body: JSON) {
            await fixture.call("ResendConfirmationCode", ["ClientId": "unitclient", "Username": "bob"])
        }
        for _ in 0..<4 { #expect(await resend().status == 200) }
        #expect(await resend().body.text == Self.limit)
        clock.advance(milliseconds: 3_600_000)
        #expect(await resend().status == 200)
        #expect(await confirm("424242") == "{}")
    }

    @Test func aNameNobodyHasIsAnsweredAsAUsersWouldBe() async throws {
        let fixture = try await Fixture()
        #expect(await fixture.passwordSignIn("nobody", "Alice-pass1!").body.text == Self.incorrect)
        let delivery = await fixture.call("ForgotPassword", ["ClientId": "unitclient", "Username": "nobody"])
        #expect(delivery.status == 200)
        #expect(try Self.isStandInDelivery(delivery.body, for: "nobody"))
        #expect(
            await fixture.call("ResendConfirmationCode", ["ClientId": "unitclient", "Username": "nobody"]).body
                == delivery.body
        )
        #expect(
            await fixture.call(
                "ConfirmForgotPassword",
                [
                    "ClientId": "unitclient", "Username": "nobody", "ConfirmationCode": "424242",
                    "Password": "New-pass1!",
                ]
            ).body.text == Self.mismatch
        )
        #expect(
            await fixture.call(
                "ConfirmSignUp",
                ["ClientId": "unitclient", "Username": "nobody", "ConfirmationCode": "424242"]
            ).body.text == Self.mismatch
        )
        // SRP: a challenge as a user's, with the same salt each time, which no answer passes.
        func challenge() async -> JSON {
            await fixture.call(
                "InitiateAuth",
                [
                    "AuthFlow": "USER_SRP_AUTH", "ClientId": "unitclient",
                    "AuthParameters": ["USERNAME": "nobody", "SRP_A": "abcdef0123456789"],
                ]
            ).body
        }
        let first = await challenge()
        #expect(first["ChallengeName"] == "PASSWORD_VERIFIER")
        #expect(first["ChallengeParameters"]?["USER_ID_FOR_SRP"] == "nobody")
        let salt = try #require(first["ChallengeParameters"]?["SALT"]?.stringValue)
        #expect(salt.count == 32)
        #expect(await challenge()["ChallengeParameters"]?["SALT"]?.stringValue == salt)
        let answer = await fixture.call(
            "RespondToAuthChallenge",
            [
                "ChallengeName": "PASSWORD_VERIFIER", "ClientId": "unitclient",
                "ChallengeResponses": [
                    "USERNAME": "nobody",
                    "PASSWORD_CLAIM_SECRET_BLOCK": try #require(first["ChallengeParameters"]?["SECRET_BLOCK"]),
                    "PASSWORD_CLAIM_SIGNATURE": "c2lnbmF0dXJl", "TIMESTAMP": "Mon Jan 1 00:00:00 UTC 2024",
                ],
            ]
        )
        #expect(answer.body.text == Self.incorrect)
    }

    /// Whether `body` is the stand-in delivery for the name `name` in a pool whose users' emails
    /// are all at example.com: a masked email shaped as theirs, the name's first letter, `***@`
    /// and their domain.
    static func isStandInDelivery(_ body: JSON, for name: String) throws -> Bool {
        body.text
            == #"{"CodeDeliveryDetails":{"Destination":"\#(name.prefix(1))***@example.com","DeliveryMedium":"EMAIL","#
            + #""AttributeName":"email"}}"#
    }

    /// The attack told users from names nobody has: `ForgotPassword` answered a user's masked
    /// email but `"Destination":"local"` for a name, the sixth code in an hour was refused only
    /// for a user, and `ResendConfirmationCode` and `ConfirmSignUp` told a confirmed user by their
    /// refusals.
    @Test func codeRequestsForANameNobodyHasLookAndAreLimitedAsAUsersAre() async throws {
        let fixture = try await Fixture()
        try await fixture.pool.addUser(username: "kate", password: "Kate-pass1!")
        func forgot(_ name: String) async -> (status: Int, body: JSON) {
            await fixture.call("ForgotPassword", ["ClientId": "unitclient", "Username": .string(name)])
        }
        #expect(
            await forgot("alice").body.text
                == #"{"CodeDeliveryDetails":{"Destination":"a***@example.com","DeliveryMedium":"EMAIL","AttributeName":"email"}}"#
        )
        // A user without an email, and a name nobody has, get a stand-in at the domain of the
        // users' emails, shaped as alice's.
        let kate = await forgot("kate")
        #expect(try Self.isStandInDelivery(kate.body, for: "kate"))
        let nobody = await forgot("nobody-else")
        #expect(try Self.isStandInDelivery(nobody.body, for: "nobody-else"))
        #expect(await forgot("nobody-else").body == nobody.body)
        // Five codes an hour for each, the sixth refused alike.
        for _ in 0..<4 { #expect(await forgot("kate").status == 200) }
        for _ in 0..<3 { #expect(await forgot("nobody-else").status == 200) }
        #expect(await forgot("kate").body.text == Self.limit)
        #expect(await forgot("nobody-else").body.text == Self.limit)
        // Wrong codes for kate's waiting one and for the name alike: the fifth is refused with the
        // limit, and so is every answer after it.
        func confirmForgot(_ name: String) async -> String {
            await fixture.call(
                "ConfirmForgotPassword",
                [
                    "ClientId": "unitclient", "Username": .string(name), "ConfirmationCode": "000000",
                    "Password": "New-pass1!",
                ]
            ).body.text
        }
        for name in ["kate", "nobody-else"] {
            for _ in 0..<4 { #expect(await confirmForgot(name) == Self.mismatch) }
            #expect(await confirmForgot(name) == Self.limit)
            #expect(await confirmForgot(name) == Self.limit)
        }

        // A confirmed user asked for a confirmation code is answered as a name nobody has (and
        // as Cognito answers it with PreventUserExistenceErrors): a delivery, and no code.
        let resend = await fixture.call("ResendConfirmationCode", ["ClientId": "unitclient", "Username": "alice"])
        #expect(resend.body == (await forgot("alice")).body)
        #expect(try await fixture.pool.pendingCode(for: "alice") == nil)
        for _ in 0..<4 {
            #expect(
                await fixture.call("ResendConfirmationCode", ["ClientId": "unitclient", "Username": "alice"]).status
                    == 200
            )
        }
        #expect(
            await fixture.call("ResendConfirmationCode", ["ClientId": "unitclient", "Username": "alice"]).body.text
                == Self.limit
        )
        // ConfirmSignUp told a confirmed user by its status; it is answered as a name nobody has,
        // wrong answers counted alike.
        for name in ["alice", "nobody-else"] {
            func confirm() async -> (status: Int, body: JSON) {
                await fixture.call(
                    "ConfirmSignUp",
                    ["ClientId": "unitclient", "Username": .string(name), "ConfirmationCode": "123456"]
                )
            }
            for _ in 0..<4 {
                let answer = await confirm()
                #expect(answer.status == 400)
                #expect(answer.body.text == Self.mismatch)
            }
            #expect(await confirm().body.text == Self.limit)
        }
    }

    @Test func aNameNobodyHasTakesAsLongAsAWrongPassword() async throws {
        let fixture = try await Fixture()
        func seconds(_ username: String) async -> Double {
            let start = ContinuousClock.now
            let answer = await fixture.passwordSignIn(username, "Wrong-pass1!")
            let elapsed = ContinuousClock.now - start
            #expect(answer.body.text == Self.incorrect)
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }
        // Taken in turns, three of each. Other tests running at the same time only ever add to a
        // time, so the fastest of each is the one nearest the work itself: a median of three once
        // read 0.40 s against 1.51 s on a busy machine, with both doing the same hash. (More
        // tries would cost the suite more: every test's hashing shares the same password threads.)
        var wrongPassword: [Double] = []
        var unknown: [Double] = []
        for _ in 0..<3 {
            wrongPassword.append(await seconds("alice"))
            unknown.append(await seconds("nobody"))
        }
        let fastest = (wrongPassword: wrongPassword.min() ?? 0, unknown: unknown.min() ?? 0)
        // The unknown name took a fiftieth of the time (5 ms against 290 ms): it told who exists.
        // A tenth is the bound: under the suite's load the fastest of three wrong passwords has
        // read 2.16 s against 0.56 s for an unknown name, with both doing the same hash.
        #expect(fastest.wrongPassword > 0)
        #expect(fastest.unknown >= 0.1 * fastest.wrongPassword, "\(wrongPassword) against \(unknown)")
    }

    @Test func aGuesserLocksOutOnlyItsOwnAddressEachTimeLongerAndNotBeyondTheLockout() async throws {
        let clock = TestClock()
        let fixture = try await Fixture(clock: clock, maxFailedSignIns: 3)
        let guesser = "203.0.113.9"
        let user = "198.51.100.7"
        let exceeded = #"{"__type":"NotAuthorizedException","message":"Password attempts exceeded"}"#
        for _ in 0..<3 {
            #expect(await fixture.passwordSignIn("alice", "Wrong-pass1!", from: guesser).body.text == Self.incorrect)
        }
        #expect(await fixture.passwordSignIn("alice", "Alice-pass1!", from: guesser).body.text == exceeded)
        // Alice, elsewhere, is not locked out by someone else's guesses.
        #expect(await fixture.passwordSignIn("alice", "Alice-pass1!", from: user).status == 200)
        // Attempts during the lockout (60 s) neither count nor extend it.
        clock.advance(milliseconds: 30_000)
        #expect(await fixture.passwordSignIn("alice", "Wrong-pass1!", from: guesser).body.text == exceeded)
        clock.advance(milliseconds: 31_000)
        for _ in 0..<3 {
            #expect(await fixture.passwordSignIn("alice", "Wrong-pass1!", from: guesser).body.text == Self.incorrect)
        }
        // The second lockout lasts twice as long.
        clock.advance(milliseconds: 119_000)
        #expect(await fixture.passwordSignIn("alice", "Alice-pass1!", from: guesser).body.text == exceeded)
        clock.advance(milliseconds: 2_000)
        #expect(await fixture.passwordSignIn("alice", "Alice-pass1!", from: guesser).status == 200)

        // A name nobody has locks out the same way, so that a lockout tells nothing.
        for _ in 0..<3 {
            #expect(await fixture.passwordSignIn("nobody", "Wrong-pass1!", from: guesser).body.text == Self.incorrect)
        }
        #expect(await fixture.passwordSignIn("nobody", "Wrong-pass1!", from: guesser).body.text == exceeded)
    }
}
