import AWSAPIPlugin
import AWSCognitoAuthPlugin
import AWSPluginsCore
import Amplify
import Foundation
import StratusCognito
import StratusServer
import StratusTesting
import Synchronization
import Testing

@testable import AWSDataStorePlugin

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// DataStore following the signed-in user of the Auth plugin, against the local backend and its
/// local Cognito: the seeds' owner rule through sync, sign-out clearing the device, an expired
/// session keeping the outbox for the same user.
@Suite struct SyncAuthTests {
    static let password = "Secret-pass1!"

    /// A backend whose pool has Ann and Ben, or nobody when they are to sign up.
    static func backend(signedUp: Bool = true) async throws -> LocalBackend {
        try await LocalBackend.start(
            schema: OwnedNote.graphQLSchema,
            defaultMode: .amazonCognitoUserPools,
            additionalModes: [],
            cognito: CognitoConfiguration(
                userPoolId: AuthDevice.poolId,
                clients: [.init(clientId: AuthDevice.clientId)],
                users: signedUp
                    ? [.init(username: "ann", password: password), .init(username: "ben", password: password)] : []
            )
        )
    }

    /// Signs `username` up on `device` and confirms with the code the local pool keeps.
    static func signUp(_ username: String, on device: AuthDevice, _ backend: LocalBackend) async throws {
        let pool = try #require(backend.cognito)
        _ = try await device.auth.signUp(username: username, password: password, options: nil)
        let code = try #require(try await pool.pendingCode(for: username))
        _ = try await device.auth.confirmSignUp(for: username, confirmationCode: code)
    }

    @Test func ownerRecordsFollowTheSignedInUser() async throws {
        let backend = try await Self.backend(signedUp: false)
        defer { Task { await backend.stop() } }

        // Ann signs up; her records sync and carry her as their owner on the backend.
        let ann = try AuthDevice(backend: backend)
        try await Self.signUp("ann", on: ann, backend)
        _ = try await ann.auth.signIn(username: "ann", password: Self.password, options: nil)
        let annId = try await ann.auth.getCurrentUser().userId
        try await ann.startAndWaitUntilReady()
        try await ann.plugin.save(OwnedNote(id: "n1", title: "Ann's first"))
        try await ann.plugin.save(OwnedNote(id: "n2", title: "Ann's second"))
        try await ann.waitUntilOutboxIsEmpty()
        let stored = try await ann.api.query(
            request: GraphQLRequest(
                document: "query { getOwnedNote(id: \"n1\") { id title owner _version } }",
                responseType: JSONValue.self
            )
        ).get()
        #expect(stored.value(at: "getOwnedNote.owner") == .string("\(annId)::ann"))
        #expect(try await ann.plugin.query(OwnedNote.self, byId: "n2")?.owner == "\(annId)::ann")

        // Ben signs up on another device and syncs none of them; his own note syncs.
        let ben = try AuthDevice(backend: backend)
        try await Self.signUp("ben", on: ben, backend)
        _ = try await ben.auth.signIn(username: "ben", password: Self.password, options: nil)
        try await ben.startAndWaitUntilReady()
        #expect(try await ben.plugin.query(OwnedNote.self).isEmpty)
        let synced = ben.events.values.compactMap { $0.data as? ModelSyncedEvent }
        #expect(synced.map(\.modelName) == ["OwnedNote"])
        #expect(synced.first?.isFullSync == true)
        #expect(synced.first?.added == 0)
        try await ben.plugin.save(OwnedNote(id: "b1", title: "Ben's own"))
        try await ben.waitUntilOutboxIsEmpty()

        // A copy of Ann's record left on Ben's device cannot change hers: the backend refuses
        // Ben's update, the refusal reaches the error handler and the Hub, and the copy goes.
        let annRecord = try await ann.api.query(
            request: GraphQLRequest(
                document: """
                    query { getOwnedNote(id: "n1") { id title owner createdAt updatedAt _version _lastChangedAt _deleted } }
                    """,
                responseType: JSONValue.self
            )
        ).get()
        let item = try #require(annRecord["getOwnedNote"])
        _ = try await ben.plugin.openEngine().reconcile([item], modelName: OwnedNote.modelName)
        var copy = try #require(try await ben.plugin.query(OwnedNote.self, byId: "n1"))
        copy.title = "Ben was here"
        try await ben.plugin.save(copy)
        try await ben.waitUntilOutboxIsEmpty()
        let failed = ben.events.values.filter {
            $0.eventName == HubPayload.EventName.DataStore.outboxMutationFailed
        }
        #expect(failed.count == 1)
        #expect(
            ben.errors.values.map(\.message) == [
                "The backend refused the update of OwnedNote 'n1': Unauthorized: Not Authorized to access "
                    + "updateOwnedNote on type Mutation The local change is undone and the backend's record kept."
            ]
        )
        #expect(try await ben.plugin.query(OwnedNote.self, byId: "n1") == nil)
        let unchanged = try await ann.api.query(
            request: GraphQLRequest(
                document: "query { getOwnedNote(id: \"n1\") { title } }",
                responseType: JSONValue.self
            )
        ).get()
        #expect(unchanged.value(at: "getOwnedNote.title") == "Ann's first")

        // Ann signs out: sync stops and the device holds nothing of hers.
        _ = await ann.auth.signOut(options: nil)
        try await waitUntil("Ann's device emptied") {
            try await ann.plugin.query(OwnedNote.self).isEmpty
        }
        #expect(!ann.plugin.isSyncing)
        #expect(try await ann.plugin.pendingMutations().isEmpty)
        #expect(ann.errors.values.isEmpty)

        // Ann signs in again: a base sync brings her records back.
        let before = ann.events.count
        _ = try await ann.auth.signIn(username: "ann", password: Self.password, options: nil)
        // The records are stored before the model's sync query is told synced (a write later, see
        // HubEventFactsTests): wait for both.
        try await waitUntil("Ann's records back and her model synced") {
            try await ann.plugin.query(OwnedNote.self).count == 2
                && ann.events.values.dropFirst(before).contains { $0.data is ModelSyncedEvent }
        }
        let resynced = ann.events.values.dropFirst(before).compactMap { $0.data as? ModelSyncedEvent }
        #expect(resynced.map(\.isFullSync) == [true])
        #expect(resynced.map(\.added) == [2])
        let titles = try await ann.plugin.query(OwnedNote.self).map(\.title).sorted()
        #expect(titles == ["Ann's first", "Ann's second"])
        // Each sees only their own.
        #expect(try await ben.plugin.query(OwnedNote.self).map(\.title) == ["Ben's own"])
    }

    @Test func anExpiredSessionKeepsTheOutboxForTheSameUserOnly() async throws {
        let backend = try await Self.backend()
        defer { Task { await backend.stop() } }
        let ann = try AuthDevice(backend: backend)
        _ = try await ann.auth.signIn(username: "ann", password: Self.password, options: nil)
        let annId = try await ann.auth.getCurrentUser().userId
        try await ann.startAndWaitUntilReady()

        // The session expires: sync stops and says so; a change made meanwhile waits.
        try await ann.expireSession()
        try await waitUntil("the expired session reported") { !ann.errors.values.isEmpty }
        #expect(!ann.plugin.isSyncing)
        #expect(
            ann.errors.values.map(\.message) == [
                "The session of the signed-in user expired, so DataStore stopped syncing; the outbox keeps the 0 "
                    + "changes not yet sent. Sign the user in again (Amplify.Auth.signOut() and then "
                    + "Amplify.Auth.signIn(username:password:)) and sync starts again and sends them."
            ]
        )
        try await ann.plugin.save(OwnedNote(id: "offline", title: "Written while expired"))
        #expect(!ann.plugin.isSyncing)
        #expect(try await ann.plugin.pendingMutations().map(\.modelId) == ["offline"])

        // Signing out to sign in again keeps it; the same user's sign-in sends it.
        _ = await ann.auth.signOut(options: nil)
        ann.clock.offset = 0
        _ = try await ann.auth.signIn(username: "ann", password: Self.password, options: nil)
        try await ann.waitUntilOutboxIsEmpty()
        try await waitUntil("the change sent") {
            try await ann.plugin.query(OwnedNote.self, byId: "offline")?.owner == "\(annId)::ann"
        }
        #expect(ann.errors.count == 1)

        // Another expiry, another unsent change, and then another user signs in on the device:
        // Ann's change is discarded with her records, and the error handler names it.
        try await ann.expireSession()
        try await waitUntil("the second expiry reported") { ann.errors.count == 2 }
        try await ann.plugin.save(OwnedNote(id: "lost", title: "Never sent"))
        _ = await ann.auth.signOut(options: nil)
        ann.clock.offset = 0
        let before = ann.events.count
        _ = try await ann.auth.signIn(username: "ben", password: Self.password, options: nil)
        try await waitUntil("Ann's change discarded") { ann.errors.count == 3 }
        #expect(
            ann.errors.values.last?.message
                == "DataStore removed its local data because another user signed in after the session of the previous "
                + "one expired, with 1 change never sent to the backend: create of OwnedNote 'lost'. To "
                + "keep them, wait for the outbox to empty (the Hub's outboxStatus) before signing out, or set "
                + "DataStoreConfiguration.clearsLocalDataOnSignOut to false."
        )
        try await waitUntil("Ben's base sync") {
            ann.events.values.dropFirst(before).contains { ($0.data as? ModelSyncedEvent)?.isFullSync == true }
        }
        #expect(try await ann.plugin.query(OwnedNote.self).isEmpty)
        #expect(try await ann.plugin.pendingMutations().isEmpty)
    }

    /// An app that waits for the Hub's `outboxStatus` to say empty, as the README advises, and
    /// signs out at once loses nothing: the sign-out clears a device whose changes the backend
    /// has, and Ann's next device syncs them all.
    @Test func signingOutRightAfterTheOutboxSaysEmptyLosesNothing() async throws {
        let backend = try await Self.backend()
        defer { Task { await backend.stop() } }
        let ann = try AuthDevice(backend: backend)
        let watch = OutboxWatch(ann.hub)
        _ = try await ann.auth.signIn(username: "ann", password: Self.password, options: nil)
        try await ann.startAndWaitUntilReady()
        let count = 30
        for index in 0..<count {
            try await ann.plugin.save(OwnedNote(id: "n\(index)", title: "Note \(index)"))
        }
        #expect(watch.lastStatus == false)
        try await waitUntil("an empty outbox") { watch.lastStatus == true }
        _ = await ann.auth.signOut(options: nil)
        try await waitUntil("the device cleared") {
            if ann.plugin.isSyncing { return false }
            return try await ann.plugin.query(OwnedNote.self).isEmpty
        }
        // Nothing was discarded, and the backend has every note: Ann's next device syncs them.
        #expect(ann.errors.values.isEmpty, "\(ann.errors.values)")
        let other = try AuthDevice(backend: backend)
        _ = try await other.auth.signIn(username: "ann", password: Self.password, options: nil)
        try await other.startAndWaitUntilReady()
        #expect(Set(try await other.plugin.query(OwnedNote.self).map(\.id)) == Set((0..<count).map { "n\($0)" }))
        try await other.plugin.stop()
        try await ann.plugin.stop()
    }

    @Test func aChangeSentWithoutASignedInUserWaitsForTheNextSignIn() async throws {
        let backend = try await Self.backend()
        defer { Task { await backend.stop() } }
        // DataStore does not hear the sign-out here: the request itself finds nobody signed in.
        let ann = try AuthDevice(backend: backend, hearsAuth: false)
        _ = try await ann.auth.signIn(username: "ann", password: Self.password, options: nil)
        let annId = try await ann.auth.getCurrentUser().userId
        try await ann.startAndWaitUntilReady()
        _ = await ann.auth.signOut(options: nil)

        try await ann.plugin.save(OwnedNote(id: "waiting", title: "Saved while signed out"))
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await ann.plugin.pendingMutations().map(\.modelId) == ["waiting"])
        #expect(try await ann.plugin.query(OwnedNote.self, byId: "waiting")?.title == "Saved while signed out")

        _ = try await ann.auth.signIn(username: "ann", password: Self.password, options: nil)
        try await ann.waitUntilOutboxIsEmpty()
        #expect(try await ann.plugin.query(OwnedNote.self, byId: "waiting")?.owner == "\(annId)::ann")
        #expect(ann.errors.values.isEmpty)
        #expect(!ann.events.values.contains { $0.eventName == HubPayload.EventName.DataStore.outboxMutationFailed })
    }
}

/// One device of a signed-in user: its own Auth plugin (session in memory, a clock the test
/// can move), API plugin and DataStore, all on one hub of its own.
final class AuthDevice: Sendable {
    static let poolId = "us-east-1_SyncAuth"
    static let clientId = "syncauthclient"

    let directory: TemporaryDirectory
    let hub = HubCategory()
    let auth: AWSCognitoAuthPlugin
    let api: AWSAPIPlugin
    let plugin: AWSDataStorePlugin
    let events = Recorder<HubPayload>()
    let errors = Recorder<DataStoreError>()
    let logs = LogRecorder()
    /// The Auth plugin's clock.
    let clock = MovableClock()
    private let origin: URL

    /// A device whose DataStore hears the Auth plugin's events, or, with `hearsAuth` false,
    /// does not (the Auth plugin reports on a hub of its own).
    init(backend: LocalBackend, hearsAuth: Bool = true) throws {
        directory = try TemporaryDirectory()
        origin = backend.origin
        let clock = clock
        auth = AWSCognitoAuthPlugin(
            sessionStore: InMemoryAuthSessionStore(),
            hub: hearsAuth ? hub : HubCategory(),
            now: { clock.now() },
            configuration: AWSCognitoAuthConfiguration(
                userPool: .init(
                    poolId: Self.poolId,
                    appClientId: Self.clientId,
                    region: "us-east-1",
                    endpoint: backend.origin
                ),
                authenticationFlowType: .userPassword
            )
        )
        try auth.configure(using: nil)
        api = try backend.makeAPIPlugin(authorizationType: .amazonCognitoUserPools, authPlugin: auth)
        var configuration = DataStoreConfiguration(databaseURL: directory.file("datastore.sqlite"))
        configuration.log = logs.handler
        configuration.durability = .normal
        let errors = errors
        configuration.errorHandler = { errors.append($0) }
        plugin = AWSDataStorePlugin(modelRegistration: OwnedNotes(), configuration: configuration, api: api, hub: hub)
        plugin.useAuthPlugin(auth)
        let events = events
        hub.listen(to: .dataStore) { events.append($0) }
    }

    /// Starts syncing and waits until DataStore is ready.
    func startAndWaitUntilReady() async throws {
        try await plugin.start()
        do {
            try await waitUntil("DataStore.ready", timeout: .seconds(90)) {
                self.events.values.contains { $0.eventName == HubPayload.EventName.DataStore.ready }
            }
        } catch {
            throw WaitTimeout(
                what: "DataStore.ready (errors: \(errors.values); log: \(logs.messages))"
            )
        }
    }

    /// Waits until the outbox is empty.
    func waitUntilOutboxIsEmpty() async throws {
        try await waitUntil("an empty outbox") { try await self.plugin.pendingMutations().isEmpty }
    }

    /// Ends the session as Cognito does: the user's tokens are revoked (`GlobalSignOut`), and
    /// once the access token has expired the refresh is refused, so the Auth plugin reports
    /// `Auth.sessionExpired`.
    func expireSession() async throws {
        let session = try #require(try await auth.fetchAuthSession(options: nil) as? AWSAuthCognitoSession)
        let accessToken = try session.getUserPoolTokens().get().accessToken
        var request = URLRequest(url: origin)
        request.httpMethod = "POST"
        request.setValue("AWSCognitoIdentityProviderService.GlobalSignOut", forHTTPHeaderField: "X-Amz-Target")
        request.setValue("application/x-amz-json-1.1", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(JSONValue.object(["AccessToken": .string(accessToken)]))
        let response = try await URLSessionTransport().send(request)
        #expect(response.statusCode == 200, "\(String(decoding: response.body, as: UTF8.self))")
        // The pool refuses every token of the sign-out's second: a new sign-in waits for the next.
        try await Task.sleep(for: .milliseconds(1100))
        clock.offset = 2 * 3600
        let expired = try #require(try await auth.fetchAuthSession(options: nil) as? AWSAuthCognitoSession)
        guard case .failure(.sessionExpired) = expired.getUserPoolTokens() else {
            Issue.record("The session did not expire: \(expired.getUserPoolTokens())")
            return
        }
    }
}

/// A clock that runs `offset` seconds ahead of the real one.
final class MovableClock: Sendable {
    private let state = Mutex<TimeInterval>(0)

    /// How far the clock is ahead.
    var offset: TimeInterval {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }

    /// The clock's time.
    func now() -> Date { Date().addingTimeInterval(offset) }
}
