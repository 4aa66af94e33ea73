import Foundation
import StratusTesting
import Synchronization
import Testing

@testable import StratusCognito
@testable import StratusServer

/// What a burst of calls does to the local Cognito: sign-ups fill a lane of their own and past
/// its bound are refused, calls without credentials are limited per client address, and a
/// signed-in `GetId` reads one record however many guests came before.
@Suite struct CognitoLoadTests {
    typealias Fixture = CognitoUserPoolTests.Fixture

    static let rateExceeded = #"{"__type":"TooManyRequestsException","message":"Rate exceeded"}"#

    /// Waits until `condition` holds, checking between yields.
    static func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            try #require(ContinuousClock.now < deadline, "The condition did not come true in 30 s.")
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test func aSignInCompletesWhileSignUpsWaitAndSignUpsPastTheBoundAreRefused() async throws {
        // One sign-up hashed at a time, one more waiting.
        let fixture = try await Fixture(newPasswords: PasswordLane.Limits(width: 1, maxWaiting: 1))
        let finished = Mutex<[String]>([])
        let signUp: @Sendable (String) async -> (status: Int, body: JSON) = { name in
            let answer = await fixture.call(
                "SignUp",
                ["ClientId": "unitclient", "Username": .string(name), "Password": "Secret-pass1!"]
            )
            finished.withLock { $0.append(name) }
            return answer
        }
        let first = Task { await signUp("first") }
        try await Self.waitUntil { fixture.pool.newPasswords.occupancy == 1 }
        let second = Task { await signUp("second") }
        try await Self.waitUntil { fixture.pool.newPasswords.occupancy == 2 }
        #expect(await signUp("third").body.text == Self.rateExceeded)

        // Six sign-ups on the pool's one thread held a sign-in for 6 s; now it waits at most for
        // the hashing already running, and ends before the sign-up that waits.
        let tokens = try await fixture.signIn()
        finished.withLock { $0.append("signIn") }
        #expect(tokens["IdToken"] != nil)
        #expect(await first.value.status == 200)
        #expect(await second.value.status == 200)
        let order = finished.withLock { $0 }
        #expect(order.firstIndex(of: "signIn")! < order.firstIndex(of: "second")!, "\(order)")
    }

    @Test func callsWithoutCredentialsAreLimitedPerClientAddress() async throws {
        let clock = TestClock()
        let fixture = try await Fixture(clock: clock) {
            $0.clientRequestLimit = CognitoConfiguration.ClientRequestLimit(burst: 3, perSecond: 1)
        }
        let poolId = try #require(fixture.pool.configuration.identityPoolId)
        let guest = "203.0.113.9"
        func forgot(from client: String) async -> (status: Int, body: JSON) {
            await fixture.call("ForgotPassword", ["ClientId": "unitclient", "Username": "nobody"], from: client)
        }
        func getId(from client: String, logins: JSON? = nil) async -> (status: Int, body: JSON) {
            var input: JSONObject = ["IdentityPoolId": .string(poolId)]
            input["Logins"] = logins
            return await fixture.identity("GetId", .object(input), from: client)
        }
        for _ in 0..<3 { #expect(await forgot(from: guest).status == 200) }
        #expect(await forgot(from: guest).body.text == Self.rateExceeded)
        #expect(await forgot(from: "198.51.100.7").status == 200)
        clock.advance(milliseconds: 1000)
        #expect(await forgot(from: guest).status == 200)
        #expect(await forgot(from: guest).body.text == Self.rateExceeded)

        // Each guest GetId writes an identity: they are limited too, a signed-in user's are not.
        for _ in 0..<3 { #expect(await getId(from: guest).status == 200) }
        #expect(await getId(from: guest).body.text == Self.rateExceeded)
        let signIn = await fixture.passwordSignIn("alice", "Alice-pass1!", from: "198.51.100.7")
        let idToken = try #require(signIn.body["AuthenticationResult"]?["IdToken"])
        for _ in 0..<4 {
            #expect(await getId(from: guest, logins: .object([fixture.pool.loginKey: idToken])).status == 200)
        }
    }

    @Test func aSignedInGetIdReadsItsIdentityWithoutReadingTheGuests() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = CountingStore(try SQLiteCognitoStore(directory: directory))
        try await Self.checkGetIdReadsOneIdentity(on: store)
    }

    /// Signs alice in to a pool over `store` with guests before her, and checks that her GetId
    /// lists no records; then that her identity made before the index is found after a reopen.
    static func checkGetIdReadsOneIdentity(on store: CountingStore) async throws {
        var configuration = CognitoConfiguration(
            clients: [.init(clientId: "unitclient")],
            users: [.init(username: "alice", password: "Alice-pass1!")]
        )
        configuration.clientRequestLimit = nil
        let pool = try await CognitoUserPool(configuration: configuration, store: store)
        let poolId = try #require(configuration.identityPoolId)
        func call(_ target: String, _ input: JSON) async -> JSON {
            await pool.respond(target: target, body: Data(input.text.utf8)).body
        }
        for _ in 0..<20 {
            #expect(
                await call("AWSCognitoIdentityService.GetId", ["IdentityPoolId": .string(poolId)])["IdentityId"] != nil
            )
        }
        let signIn = await call(
            "AWSCognitoIdentityProviderService.InitiateAuth",
            [
                "AuthFlow": "USER_PASSWORD_AUTH", "ClientId": "unitclient",
                "AuthParameters": ["USERNAME": "alice", "PASSWORD": "Alice-pass1!"],
            ]
        )
        let logins = JSON.object([pool.loginKey: try #require(signIn["AuthenticationResult"]?["IdToken"])])
        let input: JSON = ["IdentityPoolId": .string(poolId), "Logins": logins]
        let identityId = try #require(await call("AWSCognitoIdentityService.GetId", input)["IdentityId"]?.stringValue)
        store.listed.withLock { $0 = [] }
        #expect(await call("AWSCognitoIdentityService.GetId", input)["IdentityId"]?.stringValue == identityId)
        // It read every identity, guests' included: 3.8 ms, and 34 ms after 6,000 guests.
        #expect(store.listed.withLock { $0 } == [])

        // An identity made before its login had a record of its own is found after a reopen.
        for data in try await store.all(kind: IdentityLoginRecord.kind) {
            let record = try JSONDecoder().decode(IdentityLoginRecord.self, from: data)
            try await store.delete(kind: IdentityLoginRecord.kind, key: record.key)
        }
        try await store.delete(kind: CognitoMigration.kind, key: "identityLogins")
        let reopened = try await CognitoUserPool(configuration: configuration, store: store)
        let answer = await reopened.respond(target: "AWSCognitoIdentityService.GetId", body: Data(input.text.utf8))
        #expect(answer.body["IdentityId"]?.stringValue == identityId)
    }
}

/// A store that records which kinds were listed in full.
final class CountingStore: CognitoStore {
    let base: any CognitoStore
    let listed = Mutex<[String]>([])

    init(_ base: any CognitoStore) {
        self.base = base
    }

    func read(kind: String, key: String) async throws -> Data? { try await base.read(kind: kind, key: key) }
    func write(kind: String, key: String, body: Data) async throws {
        try await base.write(kind: kind, key: key, body: body)
    }
    func delete(kind: String, key: String) async throws { try await base.delete(kind: kind, key: key) }
    func exclusively<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await base.exclusively(body)
    }
    func all(kind: String) async throws -> [Data] {
        listed.withLock { $0.append(kind) }
        return try await base.all(kind: kind)
    }
}
