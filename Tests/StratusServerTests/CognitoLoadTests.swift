import Foundation
import StratusTesting
import Synchronization
import Testing

@testable import StratusServer

/// What a burst of calls does to the local Cognito: a signed-in `GetId` reads one record however
/// many guests came before.
@Suite struct CognitoLoadTests {
    @Test func aSignedInGetIdReadsItsIdentityWithoutReadingTheGuests() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = CountingStore(try SQLiteCognitoStore(directory: directory))
        try await Self.checkGetIdReadsOneIdentity(on: store)
    }

    /// Signs alice in to a pool over `store` with guests before her, and checks that her GetId
    /// lists no records; then that her identity made before the index is found after a reopen.
    static func checkGetIdReadsOneIdentity(on store: CountingStore) async throws {
        let configuration = CognitoConfiguration(
            clients: [.init(clientId: "unitclient")],
            users: [.init(username: "alice", password: "Alice-pass1!")]
        )
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
