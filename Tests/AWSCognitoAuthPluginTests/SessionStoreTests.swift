import AWSCognitoAuthPlugin
import Amplify
import Foundation
import StratusTesting
import Testing

/// The session kept on disk: mode 0600, in the XDG data directory, read back by a new plugin.
@Suite struct SessionStoreTests {
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appending(path: "stratus-auth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func defaultFileIsInTheXDGDataDirectory() {
        let store = FileAuthSessionStore(
            name: "us-east-1_Abc",
            environment: ["XDG_DATA_HOME": "/data/home", "HOME": "/home/alice"]
        )
        #expect(store.url.path == "/data/home/stratus/auth/us-east-1_Abc.json")
        let fallback = FileAuthSessionStore(name: "us-east-1:0a/b", environment: ["HOME": "/home/alice"])
        #expect(fallback.url.path == "/home/alice/.local/share/stratus/auth/us-east-1_0a_b.json")
    }

    @Test func writesAreAtomicAndReadableOnlyByTheOwner() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileAuthSessionStore(name: "pool", environment: ["XDG_DATA_HOME": directory.path])
        #expect(try store.load() == nil)
        try store.save(Data("first".utf8))
        try store.save(Data("second".utf8))
        #expect(try store.load() == Data("second".utf8))
        let attributes = try FileManager.default.attributesOfItem(atPath: store.url.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: store.url.deletingLastPathComponent().path)
        #expect((folder[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        // No temporary file is left next to it.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: store.url.deletingLastPathComponent().path)
                == ["pool.json"]
        )
        try store.remove()
        try store.remove()
        #expect(try store.load() == nil)
    }

    @Test func aSignedInSessionSurvivesANewPluginAndSignOutRemovesIt() async throws {
        let moto = try await TestCognito.start(.moto)
        let username = TestCognito.newUsername("stored")
        try await moto.createUser(username)
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileAuthSessionStore(url: directory.appending(path: "session.json"))
        let configuration = moto.configuration(identityPool: true, flow: .userPassword)

        let first = try moto.plugin(configuration, store: store)
        _ = try await first.signIn(username: username, password: "Secret-pass1!", options: nil)
        let tokens = try session(await first.fetchAuthSession(options: nil)).getUserPoolTokens().get()
        let attributes = try FileManager.default.attributesOfItem(atPath: store.url.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

        let recorder = RecordingTransport()
        let second = try moto.plugin(configuration, store: store, recorder: recorder)
        #expect(try await second.getCurrentUser().username == username)
        let restored = try session(await second.fetchAuthSession(options: nil))
        #expect(restored.isSignedIn)
        #expect(try restored.getUserPoolTokens().get() == tokens)
        #expect(try restored.getAWSCredentials().get().accessKeyId == "TESTACCESSKEY12345")
        #expect(recorder.operations == [], "the stored tokens and credentials are used as they are")

        await second.signOut(options: nil)
        #expect(!FileManager.default.fileExists(atPath: store.url.path))
    }

    @Test func anUnreadableSessionFileIsReportedWithTheFix() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileAuthSessionStore(url: directory.appending(path: "session.json"))
        try store.save(Data("not json".utf8))
        let plugin = AWSCognitoAuthPlugin(
            sessionStore: store,
            configuration: AWSCognitoAuthConfiguration(
                userPool: .init(poolId: "us-east-1_Abc", appClientId: "client", region: "us-east-1")
            )
        )
        #expect {
            try plugin.configure(using: nil)
        } throws: { error in
            "\(error)".hasPrefix("The stored Auth session is unreadable (")
                && "\(error)".hasSuffix("). Delete the session file to sign in again.")
        }
    }
}
