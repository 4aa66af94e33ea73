import Foundation
import StratusTesting
import Testing

@testable import StratusCognito
@testable import StratusServer

/// The local Cognito in process: tokens the API refuses, failed sign-ins, what the data
/// directory keeps, and malformed requests.
@Suite struct CognitoUserPoolTests {
    static let origin = "http://127.0.0.1:7"
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    /// A pool in a temporary directory, with `alice` (in `Admins`) and two clients.
    final class Fixture: Sendable {
        let directory = temporaryDirectory()
        let pool: CognitoUserPool

        init(
            poolId: String = "us-east-1_Unit",
            clock: TestClock = TestClock(),
            maxFailedSignIns: Int = 5,
            rotatesRefreshTokens: Bool = false,
            allowsGuests: Bool = true,
            signIns: PasswordLane.Limits = .signIns,
            newPasswords: PasswordLane.Limits = .newPasswords,
            configure: (inout CognitoConfiguration) -> Void = { $0.clientRequestLimit = nil }
        ) async throws {
            var configuration = CognitoConfiguration(
                userPoolId: poolId,
                clients: [.init(clientId: "unitclient"), .init(clientId: "secretclient", clientSecret: "shh")],
                groups: ["Admins"],
                users: [
                    .init(
                        username: "alice",
                        password: "Alice-pass1!",
                        attributes: ["email": "a@example.com"],
                        groups: ["Admins"]
                    )
                ],
                rotatesRefreshTokens: rotatesRefreshTokens,
                allowsGuests: allowsGuests,
                maxFailedSignIns: maxFailedSignIns
            )
            configure(&configuration)
            pool = try await CognitoUserPool(
                configuration: configuration,
                store: SQLiteCognitoStore(directory: directory),
                clock: { clock.now },
                codeGenerator: { "424242" },
                signIns: signIns,
                newPasswords: newPasswords
            )
            pool.setOrigin(CognitoUserPoolTests.origin)
        }

        /// Calls an operation of the user pool service, from the client address `client`.
        func call(_ operation: String, _ input: JSON, from client: String = "") async -> (status: Int, body: JSON) {
            await pool.respond(
                target: "AWSCognitoIdentityProviderService.\(operation)",
                body: Data(input.text.utf8),
                from: client
            )
        }

        /// Calls an operation of the identity pool service.
        func identity(_ operation: String, _ input: JSON, from client: String = "") async -> (status: Int, body: JSON) {
            await pool.respond(
                target: "AWSCognitoIdentityService.\(operation)",
                body: Data(input.text.utf8),
                from: client
            )
        }

        /// A password sign-in's answer.
        func passwordSignIn(
            _ username: String,
            _ password: String,
            from client: String = ""
        ) async -> (status: Int, body: JSON) {
            await call(
                "InitiateAuth",
                [
                    "AuthFlow": "USER_PASSWORD_AUTH", "ClientId": "unitclient",
                    "AuthParameters": ["USERNAME": .string(username), "PASSWORD": .string(password)],
                ],
                from: client
            )
        }

        /// Alice's tokens from a password sign-in.
        func signIn(_ username: String = "alice", _ password: String = "Alice-pass1!") async throws -> JSONObject {
            let answer = await call(
                "InitiateAuth",
                [
                    "AuthFlow": "USER_PASSWORD_AUTH", "ClientId": "unitclient",
                    "AuthParameters": ["USERNAME": .string(username), "PASSWORD": .string(password)],
                ]
            )
            try #require(answer.status == 200, "\(answer.body.text)")
            return try #require(answer.body["AuthenticationResult"]?.objectValue)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }
    }

    /// Who the API says sent a request with `token`, or how it refused it.
    static func apiIdentity(
        _ token: String,
        pool: CognitoUserPool,
        at now: Date
    ) async -> Result<Identity, HTTPRejection> {
        let authenticator = RequestAuthenticator(
            configuration: ServerAuthorization(
                defaultMode: .amazonCognitoUserPools,
                localUserPool: pool,
                credentialIssuer: pool
            ),
            clock: { now }
        )
        let parts = RequestAuthenticator.SignedParts(
            method: "POST",
            path: "/graphql",
            query: nil,
            headers: ["authorization": token],
            body: Data()
        )
        do {
            return .success(try await authenticator.identity(for: parts))
        } catch {
            return .failure(error)
        }
    }

    @Test func theAPITrustsThePoolsTokensAndRefusesTamperedExpiredRevokedForeignOnes() async throws {
        let clock = TestClock()
        let fixture = try await Fixture(clock: clock)
        let tokens = try await fixture.signIn()
        let idToken = try #require(tokens["IdToken"]?.stringValue)
        let accessToken = try #require(tokens["AccessToken"]?.stringValue)

        let accepted = try await Self.apiIdentity(idToken, pool: fixture.pool, at: clock.now).get()
        #expect(accepted.authorizationMode == .amazonCognitoUserPools)
        #expect(accepted.claims["cognito:username"] == "alice")
        #expect(accepted.claims["cognito:groups"] == ["Admins"])
        #expect(accepted.claims["iss"]?.stringValue == "\(Self.origin)/us-east-1_Unit")
        #expect(
            try await Self.apiIdentity(accessToken, pool: fixture.pool, at: clock.now).get().claims["username"]
                == "alice"
        )

        // Tampered: the payload says bob, the signature was alice's.
        let parts = idToken.split(separator: ".").map(String.init)
        var claims = try #require(TokenVerifier.unverifiedClaims(of: idToken))
        claims["cognito:username"] = "bob"
        let tampered = [parts[0], Base64URLText.encode(JSON.object(claims).text), parts[2]].joined(separator: ".")
        #expect(await Self.apiIdentity(tampered, pool: fixture.pool, at: clock.now) == .failure(.notAuthorized))

        // Expired.
        #expect(
            await Self.apiIdentity(idToken, pool: fixture.pool, at: clock.now.addingTimeInterval(3601))
                == .failure(.expiredToken)
        )

        // Another pool's token, on the same origin.
        let other = try await Fixture(poolId: "us-east-1_Other", clock: clock)
        let foreign = try #require(try await other.signIn()["IdToken"]?.stringValue)
        #expect(await Self.apiIdentity(foreign, pool: fixture.pool, at: clock.now) == .failure(.notAuthorized))

        // Signed by the pool's key, but for a client the pool does not have.
        claims = try #require(TokenVerifier.unverifiedClaims(of: idToken))
        claims["aud"] = "strangerclient"
        let wrongClient = try fixture.pool.signingKey.sign(claims)
        #expect(await Self.apiIdentity(wrongClient, pool: fixture.pool, at: clock.now) == .failure(.notAuthorized))

        // Revoked by a global sign-out.
        let signOut = await fixture.call("GlobalSignOut", ["AccessToken": .string(accessToken)])
        #expect(signOut.status == 200)
        #expect(await Self.apiIdentity(idToken, pool: fixture.pool, at: clock.now) == .failure(.notAuthorized))
        #expect(await Self.apiIdentity(accessToken, pool: fixture.pool, at: clock.now) == .failure(.notAuthorized))
        clock.advance(milliseconds: 1000)
        let fresh = try #require(try await fixture.signIn()["IdToken"]?.stringValue)
        #expect(
            try await Self.apiIdentity(fresh, pool: fixture.pool, at: clock.now).get().claims["cognito:username"]
                == "alice"
        )
    }

    @Test func aDeletedUsersTokensStayRefusedWhenANewUserTakesTheName() async throws {
        let clock = TestClock()
        let fixture = try await Fixture(clock: clock)
        let old = try await fixture.signIn()
        let idToken = try #require(old["IdToken"]?.stringValue)
        let accessToken = try #require(old["AccessToken"]?.stringValue)
        try await fixture.pool.deleteUser("alice")
        try await fixture.pool.addUser(username: "alice", password: "Other-alice1!")

        // The old alice's tokens were accepted again: revocation looked the user up by name.
        #expect(await Self.apiIdentity(idToken, pool: fixture.pool, at: clock.now) == .failure(.notAuthorized))
        #expect(
            await fixture.call("GetUser", ["AccessToken": .string(accessToken)]).body.text
                == #"{"__type":"NotAuthorizedException","message":"Access Token has been revoked"}"#
        )
        let refresh = await fixture.call(
            "InitiateAuth",
            [
                "AuthFlow": "REFRESH_TOKEN_AUTH", "ClientId": "unitclient",
                "AuthParameters": ["REFRESH_TOKEN": .string(try #require(old["RefreshToken"]?.stringValue))],
            ]
        )
        #expect(refresh.body.text == #"{"__type":"NotAuthorizedException","message":"Refresh Token has been revoked"}"#)
        // The new alice's are good.
        let fresh = try #require(try await fixture.signIn("alice", "Other-alice1!")["IdToken"]?.stringValue)
        let identity = try await Self.apiIdentity(fresh, pool: fixture.pool, at: clock.now).get()
        #expect(identity.claims["cognito:username"] == "alice")
        #expect(identity.claims["sub"] != TokenVerifier.unverifiedClaims(of: idToken)?["sub"])
    }

    @Test func repeatedWrongPasswordsLockTheUserOutForAWhile() async throws {
        let clock = TestClock()
        let fixture = try await Fixture(clock: clock, maxFailedSignIns: 3)
        for _ in 0..<3 {
            let answer = await fixture.call(
                "InitiateAuth",
                [
                    "AuthFlow": "USER_PASSWORD_AUTH", "ClientId": "unitclient",
                    "AuthParameters": ["USERNAME": "alice", "PASSWORD": "Wrong-pass1!"],
                ]
            )
            #expect(answer.status == 400)
            #expect(
                answer.body.text == #"{"__type":"NotAuthorizedException","message":"Incorrect username or password."}"#
            )
        }
        let locked = await fixture.call(
            "InitiateAuth",
            [
                "AuthFlow": "USER_PASSWORD_AUTH", "ClientId": "unitclient",
                "AuthParameters": ["USERNAME": "alice", "PASSWORD": "Alice-pass1!"],
            ]
        )
        #expect(locked.status == 400)
        #expect(locked.body.text == #"{"__type":"NotAuthorizedException","message":"Password attempts exceeded"}"#)
        clock.advance(milliseconds: 61_000)
        _ = try await fixture.signIn()
    }

    @Test func signUpCodesAreKeptAndNoPasswordReachesTheDataDirectory() async throws {
        let fixture = try await Fixture()
        let signUp = await fixture.call(
            "SignUp",
            ["ClientId": "unitclient", "Username": "bob", "Password": "Bobs-secret-pass9!"]
        )
        #expect(signUp.status == 200)
        #expect(signUp.body["UserConfirmed"] == false)
        #expect(try await fixture.pool.pendingCode(for: "bob") == "424242")
        let resent = await fixture.call("ResendConfirmationCode", ["ClientId": "unitclient", "Username": "bob"])
        // Bob has no email: the delivery is the stand-in a name nobody has gets.
        #expect(try CognitoGuessingTests.isStandInDelivery(resent.body, for: "bob"))
        let confirm = await fixture.call(
            "ConfirmSignUp",
            ["ClientId": "unitclient", "Username": "bob", "ConfirmationCode": "424242"]
        )
        #expect(confirm.status == 200)
        #expect(try await fixture.pool.pendingCode(for: "bob") == nil)
        // Confirmed, bob is answered as a name nobody has: the same delivery, and no code.
        let again = await fixture.call("ResendConfirmationCode", ["ClientId": "unitclient", "Username": "bob"])
        #expect(again.body == resent.body)
        #expect(try await fixture.pool.pendingCode(for: "bob") == nil)
        _ = try await fixture.signIn("bob", "Bobs-secret-pass9!")

        // Every file of the directory, the SQLite journal included, lacks both passwords.
        let files = try FileManager.default.contentsOfDirectory(at: fixture.directory, includingPropertiesForKeys: nil)
        #expect(files.contains { $0.lastPathComponent == "cognito.sqlite" })
        for file in files {
            let bytes = try Data(contentsOf: file)
            #expect(bytes.range(of: Data("Bobs-secret-pass9!".utf8)) == nil, "\(file.lastPathComponent)")
            #expect(bytes.range(of: Data("Alice-pass1!".utf8)) == nil, "\(file.lastPathComponent)")
        }
    }

    @Test func refreshTokensRotateWhenConfigured() async throws {
        let fixture = try await Fixture(rotatesRefreshTokens: true)
        let first = try #require(try await fixture.signIn()["RefreshToken"]?.stringValue)
        func refresh(_ token: String) async -> (status: Int, body: JSON) {
            await fixture.call(
                "InitiateAuth",
                [
                    "AuthFlow": "REFRESH_TOKEN_AUTH", "ClientId": "unitclient",
                    "AuthParameters": ["REFRESH_TOKEN": .string(token)],
                ]
            )
        }
        let rotated = await refresh(first)
        let second = try #require(rotated.body["AuthenticationResult"]?["RefreshToken"]?.stringValue)
        #expect(second != first)
        let reused = await refresh(first)
        #expect(reused.status == 400)
        #expect(reused.body.text == #"{"__type":"NotAuthorizedException","message":"Refresh Token has been revoked"}"#)
        #expect(await refresh(second).status == 200)
    }

    @Test func withoutGuestsOnlyThePoolsUsersGetCredentialsOfTheAuthenticatedRole() async throws {
        let fixture = try await Fixture(allowsGuests: false)
        let poolId = try #require(fixture.pool.configuration.identityPoolId)
        func identity(_ operation: String, _ input: JSON) async -> (status: Int, body: JSON) {
            await fixture.pool.respond(target: "AWSCognitoIdentityService.\(operation)", body: Data(input.text.utf8))
        }
        let guest = await identity("GetId", ["IdentityPoolId": .string(poolId)])
        #expect(guest.status == 400)
        #expect(
            guest.body.text
                == #"{"__type":"NotAuthorizedException","message":"Unauthenticated access is not supported for this identity pool."}"#
        )
        #expect(fixture.pool.loginKey == "127.0.0.1:7/us-east-1_Unit")
        let idToken = try #require(try await fixture.signIn()["IdToken"]?.stringValue)
        let logins: JSON = .object([fixture.pool.loginKey: .string(idToken)])
        let user = await identity("GetId", ["IdentityPoolId": .string(poolId), "Logins": logins])
        let identityId = try #require(user.body["IdentityId"]?.stringValue)
        let answer = await identity("GetCredentialsForIdentity", ["IdentityId": .string(identityId), "Logins": logins])
        let accessKeyId = try #require(answer.body["Credentials"]?["AccessKeyId"]?.stringValue)
        #expect(accessKeyId.hasPrefix("ASIA"))
        let issued = try #require(await fixture.pool.issuedCredentials(for: accessKeyId))
        #expect(issued.secretAccessKey == answer.body["Credentials"]?["SecretKey"]?.stringValue)
        #expect(issued.claims["cognitoIdentityAuthType"] == "authenticated")
        #expect(issued.claims["cognitoIdentityId"]?.stringValue == identityId)
        #expect(issued.claims["username"] == "alice")
        // A function of a field these credentials call gets AppSync's IAM identity: the account,
        // the assumed role and the user pool the user signed in with.
        let sub = try #require(issued.claims["sub"]?.stringValue)
        let provider = "cognito-idp.us-east-1.amazonaws.com/us-east-1_Unit"
        #expect(
            FunctionEvent.identity(Identity(authorizationMode: .awsIAM, claims: issued.claims), sourceIp: ["127.0.0.1"])
                .text
                == #"{"accountId":"000000000000","cognitoIdentityPoolId":"\#(poolId)","#
                + #""cognitoIdentityId":"\#(identityId)","sourceIp":["127.0.0.1"],"username":"alice","#
                + #""userArn":"arn:aws:sts::000000000000:assumed-role/stratus-authRole/CognitoIdentityCredentials","#
                + #""cognitoIdentityAuthType":"authenticated","#
                + #""cognitoIdentityAuthProvider":"\"\#(provider)\",\"\#(provider):CognitoSignIn:\#(sub)\""}"#
        )
    }

    @Test func theSigningKeyAndUsersSurviveAReopen() async throws {
        let clock = TestClock()
        let fixture = try await Fixture(clock: clock)
        let idToken = try #require(try await fixture.signIn()["IdToken"]?.stringValue)
        let reopened = try await CognitoUserPool(
            configuration: fixture.pool.configuration,
            store: SQLiteCognitoStore(directory: fixture.directory),
            clock: { clock.now }
        )
        reopened.setOrigin(Self.origin)
        #expect(reopened.jwks == fixture.pool.jwks)
        #expect(
            try await Self.apiIdentity(idToken, pool: reopened, at: clock.now).get().claims["cognito:username"]
                == "alice"
        )
    }

    static let targets = [
        "AWSCognitoIdentityProviderService.SignUp", "AWSCognitoIdentityProviderService.ConfirmSignUp",
        "AWSCognitoIdentityProviderService.ResendConfirmationCode", "AWSCognitoIdentityProviderService.InitiateAuth",
        "AWSCognitoIdentityProviderService.RespondToAuthChallenge", "AWSCognitoIdentityProviderService.GetUser",
        "AWSCognitoIdentityProviderService.UpdateUserAttributes", "AWSCognitoIdentityProviderService.ChangePassword",
        "AWSCognitoIdentityProviderService.ForgotPassword", "AWSCognitoIdentityProviderService.ConfirmForgotPassword",
        "AWSCognitoIdentityProviderService.GlobalSignOut", "AWSCognitoIdentityProviderService.RevokeToken",
        "AWSCognitoIdentityProviderService.AdminCreateUser", "AWSCognitoIdentityProviderService.AdminConfirmSignUp",
        "AWSCognitoIdentityProviderService.AdminAddUserToGroup", "AWSCognitoIdentityProviderService.AdminDeleteUser",
        "AWSCognitoIdentityProviderService.ListUsers", "AWSCognitoIdentityService.GetId",
        "AWSCognitoIdentityService.GetCredentialsForIdentity", "AWSCognitoIdentityProviderService.Nonsense",
    ]

    /// 1,000 random malformed requests per target: each answered with HTTP 400 and a Cognito
    /// exception name, never a crash or a 500.
    /// One pool for every target of the malformed requests: making a pool (its signing key,
    /// alice's verifier) is the slow part.
    static let fuzzed = Task { try await Fixture() }

    @Test(arguments: targets) func malformedRequestsGetCognitoStyleRefusals(_ target: String) async throws {
        let fixture = try await Self.fuzzed.value
        var random = SeededGenerator(seed: target.utf8.reduce(0) { $0 &* 31 &+ UInt64($1) })
        let names = [
            "ClientId", "Username", "Password", "AuthFlow", "AuthParameters", "ChallengeName", "ChallengeResponses",
            "Session", "AccessToken", "ConfirmationCode", "UserAttributes", "UserPoolId", "GroupName",
            "IdentityPoolId", "IdentityId", "Logins", "Token", "PreviousPassword", "ProposedPassword", "SecretHash",
        ]
        func value(_ depth: Int) -> JSON {
            switch Int.random(in: 0..<9, using: &random) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &random))
            case 2: return .int(Int.random(in: -5...5, using: &random))
            case 3:
                return .string(
                    ["", "alice", "unitclient", "us-east-1_Unit", "USER_SRP_AUTH", "x.y.z"].randomElement(
                        using: &random
                    )!
                )
            case 4:
                return .string(
                    String(
                        (0..<Int.random(in: 0..<40, using: &random)).map { _ in
                            Character(UnicodeScalar(UInt8.random(in: 32...126, using: &random)))
                        }
                    )
                )
            case 5 where depth < 2:
                return .array((0..<Int.random(in: 0..<3, using: &random)).map { _ in value(depth + 1) })
            case 6 where depth < 2:
                return .object(
                    JSONObject(
                        (0..<Int.random(in: 0..<4, using: &random)).map { _ in
                            (
                                [
                                    "USERNAME", "PASSWORD", "SRP_A", "Name", "Value",
                                    names.randomElement(using: &random)!,
                                ].randomElement(using: &random)!, value(depth + 1)
                            )
                        }
                    )
                )
            default: return .string("ffff")
            }
        }
        for index in 0..<1000 {
            let body: Data
            if index % 4 == 0 {
                body = Data(
                    (0..<Int.random(in: 0..<64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                )
            } else {
                let members = (0..<Int.random(in: 0..<6, using: &random)).map { _ in
                    (names.randomElement(using: &random)!, value(0))
                }
                body = Data(JSON.object(JSONObject(members)).text.utf8)
            }
            let answer = await fixture.pool.respond(target: target, body: body)
            // A random request may happen to be valid (ListUsers of this pool); any other is a
            // refusal named as Cognito names it.
            guard answer.status != 200 else { continue }
            let type = answer.body["__type"]?.stringValue ?? ""
            #expect(answer.status == 400, "\(String(decoding: body, as: UTF8.self)) → \(answer.body.text)")
            #expect(type.hasSuffix("Exception"), "\(answer.body.text)")
            #expect(answer.body["message"]?.stringValue?.isEmpty == false)
        }
    }
}

/// A reproducible random sequence (SplitMix64).
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Base64url text of a string, for hand-made tokens.
enum Base64URLText {
    static func encode(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
