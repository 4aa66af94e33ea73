import Foundation
import PostgresNIO
import StratusTesting
import Testing

@testable import StratusCognito
@testable import StratusServer

/// The local Cognito's records in PostgreSQL, each test in a database of its own on the test
/// cluster (``PostgresTestCluster``).
@Suite struct PostgresCognitoStoreTests {
    /// Runs `body` with a migrated store over a new database, and a client running meanwhile.
    static func withStore<T: Sendable>(
        migrated: Bool = true,
        _ body: @escaping @Sendable (PostgresCognitoStore) async throws -> T
    ) async throws -> T {
        let url = try await PostgresTestCluster.shared.makeDatabase()
        let client = PostgresClient(configuration: try PostgresTestCluster.clientConfiguration(for: url))
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                await client.run()
                return nil
            }
            group.addTask {
                let store = PostgresCognitoStore(client: client)
                if migrated { try await store.migrate() }
                return try await body(store)
            }
            defer { group.cancelAll() }
            while let next = try await group.next() {
                if let value = next { return value }
            }
            preconditionFailure("The store's task always gives a value or throws.")
        }
    }

    @Test func aSignedInGetIdReadsItsIdentityWithoutReadingTheGuests() async throws {
        try await Self.withStore { store in
            try await CognitoLoadTests.checkGetIdReadsOneIdentity(on: CountingStore(store))
        }
    }

    @Test func writesReadsReplacesDeletesAndListsByKeyOrder() async throws {
        try await Self.withStore { store in
            // A second migration finds the table and keeps its rows.
            try await store.write(kind: "user", key: "bob", body: Data("bob 1".utf8))
            try await store.migrate()
            try await store.write(kind: "user", key: "Zoe", body: Data("zoe".utf8))
            try await store.write(kind: "user", key: "alice", body: Data([0, 1, 255]))
            try await store.write(kind: "code", key: "bob", body: Data("code".utf8))

            #expect(try await store.read(kind: "user", key: "bob") == Data("bob 1".utf8))
            #expect(try await store.read(kind: "user", key: "alice") == Data([0, 1, 255]))
            #expect(try await store.read(kind: "code", key: "bob") == Data("code".utf8))
            #expect(try await store.read(kind: "user", key: "carol") == nil)

            try await store.write(kind: "user", key: "bob", body: Data("bob 2".utf8))
            #expect(try await store.read(kind: "user", key: "bob") == Data("bob 2".utf8))

            // By key in byte order, as SQLite gives them: "Zoe" before "alice".
            #expect(
                try await store.all(kind: "user") == [Data("zoe".utf8), Data([0, 1, 255]), Data("bob 2".utf8)]
            )
            #expect(try await store.all(kind: "code") == [Data("code".utf8)])
            #expect(try await store.all(kind: "group") == [])

            try await store.delete(kind: "user", key: "bob")
            try await store.delete(kind: "user", key: "nobody")
            #expect(try await store.read(kind: "user", key: "bob") == nil)
            #expect(try await store.read(kind: "code", key: "bob") == Data("code".utf8))
            #expect(try await store.all(kind: "user") == [Data("zoe".utf8), Data([0, 1, 255])])
        }
    }

    /// PostgreSQL ends the connection that holds ``PostgresCognitoStore/exclusively(_:)``'s lock
    /// while the body runs (a restart, `pg_terminate_backend`): the unlock fails at once and so
    /// does the call, rather than wait for an answer on the closed connection.
    @Test(.timeLimit(.minutes(1)))
    func aLockWhoseConnectionEndsFailsAtOnce() async throws {
        let url = try await PostgresTestCluster.shared.makeDatabase()
        let configuration = try PostgresTestCluster.clientConfiguration(for: url)
        let client = PostgresClient(configuration: configuration)
        let other = PostgresClient(configuration: configuration)
        let running = Task {
            await withDiscardingTaskGroup { group in
                group.addTask { await client.run() }
                group.addTask { await other.run() }
            }
        }
        defer { running.cancel() }
        let store = PostgresCognitoStore(client: client)
        try await store.migrate()
        do {
            try await store.exclusively {
                let rows = try await other.query(
                    """
                    SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity
                    WHERE datname = current_database() AND query LIKE 'SELECT pg_advisory_lock%'
                    """
                )
                var ended: [String] = []
                for try await value in rows.decode(String.self) { ended.append(value) }
                #expect(ended == ["true"])
            }
            Issue.record("exclusively(_:) returned after its lock's connection ended")
        } catch let error as PostgresCognitoStoreError {
            Issue.record("unexpected: \(error)")
        } catch {
            #expect(error is PostgresConnectionClosed || error is PSQLError)
        }
    }

    @Test func instancesMigratingTogetherAllSucceed() async throws {
        try await Self.withStore(migrated: false) { store in
            // Without the migration lock, some of these fail on pg_type's unique index.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 { group.addTask { try await store.migrate() } }
                try await group.waitForAll()
            }
            try await store.write(kind: "user", key: "bob", body: Data("bob".utf8))
            #expect(try await store.all(kind: "user") == [Data("bob".utf8)])
        }
    }

    @Test func aStoreWithoutItsTableSaysToMigrate() async throws {
        try await Self.withStore(migrated: false) { store in
            let error = await #expect(throws: PostgresCognitoStoreError.self) {
                try await store.read(kind: "user", key: "bob")
            }
            #expect(
                error?.description
                    == "The local Cognito's records in PostgreSQL cannot be read (kind 'user', key 'bob'): "
                    + #"relation "_stratus_cognito" does not exist (SQLSTATE 42P01). "#
                    + "Run PostgresCognitoStore.migrate() first: it creates the table."
            )
        }
    }

    @Test func poolsOpeningTogetherShareOneSigningKeyAndTheConfiguredUsers() async throws {
        try await Self.withStore { store in
            let configuration = CognitoConfiguration(
                userPoolId: "us-east-1_Together",
                users: [.init(username: "ann", password: "Anns-pass1!")]
            )
            // Three servers starting at once on one database, as behind a load balancer.
            let pools = try await withThrowingTaskGroup(of: CognitoUserPool.self) { group in
                for _ in 0..<3 {
                    group.addTask { try await CognitoUserPool(configuration: configuration, store: store) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(pools.count == 3)
            #expect(pools.allSatisfy { $0.jwks == pools[0].jwks })
            #expect(try await store.all(kind: "signingKey").count == 1)
            #expect(try await pools[2].listUsers().map(\.username) == ["ann"])
        }
    }

    @Test func aConfiguredPublicOriginIsTheIssuerWhateverPortTheServerBinds() async throws {
        try await Self.withStore { store in
            var configuration = CognitoConfiguration(userPoolId: "us-east-1_Behind")
            configuration.publicOrigin = "https://auth.example.com"
            let pool = try await CognitoUserPool(configuration: configuration, store: store)
            pool.setOrigin("http://127.0.0.1:41234")
            #expect(pool.issuer == "https://auth.example.com/us-east-1_Behind")
        }
    }

    @Test func aUserPoolKeepsItsUsersAndKeyThere() async throws {
        try await Self.withStore { store in
            let configuration = CognitoConfiguration(
                userPoolId: "us-east-1_Postgres",
                clients: [.init(clientId: "pgclient")],
                groups: ["Admins"]
            )
            let pool = try await CognitoUserPool(
                configuration: configuration,
                store: store,
                codeGenerator: { "135790" }
            )
            let signUp = await pool.respond(
                target: "AWSCognitoIdentityProviderService.SignUp",
                body: Data(#"{"ClientId":"pgclient","Username":"dana","Password":"Danas-pass1!"}"#.utf8)
            )
            #expect(signUp.status == 200)
            #expect(signUp.body["UserConfirmed"] == false)
            #expect(try await pool.pendingCode(for: "dana") == "135790")

            try await pool.confirmUser("dana")
            try await pool.setGroup("Admins", of: "dana", member: true)
            #expect(try await pool.pendingCode(for: "dana") == nil)
            let users = try await pool.listUsers()
            #expect(users.map(\.username) == ["dana"])
            #expect(users.map(\.status) == ["CONFIRMED"])
            #expect(users.map(\.groups) == [["Admins"]])

            let again = await pool.respond(
                target: "AWSCognitoIdentityProviderService.AdminConfirmSignUp",
                body: Data(#"{"UserPoolId":"us-east-1_Postgres","Username":"dana"}"#.utf8)
            )
            #expect(again.status == 400)
            #expect(
                again.body.text
                    == #"{"__type":"NotAuthorizedException","message":"User cannot be confirmed. Current status is CONFIRMED"}"#
            )

            // Another pool over the same database, as another instance would open it.
            let other = try await CognitoUserPool(configuration: configuration, store: store)
            #expect(other.jwks == pool.jwks)
            #expect(try await other.listUsers().map(\.status) == ["CONFIRMED"])
            #expect(try await store.all(kind: "signingKey").count == 1)
        }
    }

    @Test func concurrentSignUpsOfOneNameCreateOneUser() async throws {
        try await Self.withStore { store in
            // Reads that take a while, so that two sign-ups would both find no user if the pool
            // let them run side by side.
            let slow = SlowReads(store)
            let pool = try await CognitoUserPool(
                configuration: CognitoConfiguration(userPoolId: "us-east-1_Race", clients: [.init(clientId: "race")]),
                store: slow
            )
            let body = Data(#"{"ClientId":"race","Username":"erin","Password":"Erins-pass1!"}"#.utf8)
            async let first = pool.respond(target: "AWSCognitoIdentityProviderService.SignUp", body: body)
            async let second = pool.respond(target: "AWSCognitoIdentityProviderService.SignUp", body: body)
            let answers = await [first, second]
            #expect(answers.map(\.status).sorted() == [200, 400])
            #expect(
                answers.first { $0.status == 400 }?.body.text
                    == #"{"__type":"UsernameExistsException","message":"User already exists"}"#
            )
            #expect(try await store.all(kind: "user").count == 1)
        }
    }
}

/// A store whose reads wait a little before reading.
private struct SlowReads: CognitoStore {
    let base: any CognitoStore

    init(_ base: any CognitoStore) {
        self.base = base
    }

    func read(kind: String, key: String) async throws -> Data? {
        try await Task.sleep(for: .milliseconds(100))
        return try await base.read(kind: kind, key: key)
    }

    func write(kind: String, key: String, body: Data) async throws {
        try await base.write(kind: kind, key: key, body: body)
    }

    func delete(kind: String, key: String) async throws {
        try await base.delete(kind: kind, key: key)
    }

    func all(kind: String) async throws -> [Data] {
        try await base.all(kind: kind)
    }

    func exclusively<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await base.exclusively(body)
    }
}
