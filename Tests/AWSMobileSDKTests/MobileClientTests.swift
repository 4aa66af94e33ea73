import AWSAuthCore
import AWSCognitoAuthPlugin
import AWSCore
import AWSMobileClient
import Amplify
import Foundation
import StratusTesting
import Synchronization
import Testing

/// `AWSMobileClient` over the Cognito plugin, against moto: states, listeners, tokens and the
/// identity pool's credentials.
@Suite struct MobileClientTests {
    final class Listener: Sendable {
        let states = Mutex<[String]>([])
    }

    @Test func listenersFollowSignInAndSignOut() async throws {
        let moto = try await MotoUserPool.shared()
        let username = try await SeedSnippetTests.newUser(moto)
        let client = AWSMobileClient()
        #expect(client.currentUserState == .unknown)
        let initialized = try await client.initialize(
            configuration: SeedSnippetTests.configuration(moto, identityPool: true),
            sessionStore: InMemoryAuthSessionStore()
        )
        #expect(initialized == .guest)

        let listener = Listener()
        client.addUserStateListener(listener) { state, info in
            listener.states.withLock { $0.append("\(state.rawValue) \(info)") }
        }
        await #expect {
            try await client.getTokens()
        } throws: { error in
            guard case .signedOut? = error as? AuthError else { return false }
            return true
        }

        let result = try await client.signIn(username: username, password: SeedSnippetTests.password)
        #expect(result.signInState == .signedIn)
        let tokens = try await client.getTokens()
        #expect(tokens.idToken?.claims?["cognito:username"] == .string(username))
        #expect(tokens.accessToken?.tokenString?.isEmpty == false)
        let identityId = try await client.getIdentityId().value
        #expect(identityId.hasPrefix("us-east-1:"))
        #expect(try await AWSIdentityManager(auth: client.authPlugin()).getIdentityId().value == identityId)
        let credentials = try await client.getCredentialsProvider().fetchCredentials()
        #expect(credentials.accessKeyId == MotoUserPool.identityPoolCredentials.accessKeyId)

        try await client.signOut()
        #expect(client.currentUserState == .guest)
        client.removeUserStateListener(listener)
        _ = try await client.signIn(username: username, password: SeedSnippetTests.password)
        #expect(listener.states.withLock { $0 } == ["SIGNED_IN [\"username\": \"\(username)\"]", "GUEST [:]"])
    }

    @Test func anUninitializedClientSaysSo() async {
        let client = AWSMobileClient()
        let reply = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            client.getTokens { tokens, error in
                continuation.resume(returning: "\(tokens.map { "\($0)" } ?? "nil") \(error.map { "\($0)" } ?? "nil")")
            }
        }
        #expect(
            reply
                == "nil AWSMobileClient is not initialized. Call AWSMobileClient.sharedInstance().initialize { userState, error in … } first."
        )
    }

    @Test func initializeReadsAWSConfigurationJSON() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "mobile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appending(path: "awsconfiguration.json")
        try Data(#"{"CognitoUserPool":{"Default":{"PoolId":"us-east-1_abc"}}}"#.utf8).write(to: url)
        let reply = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            AWSMobileClient().initialize(awsConfiguration: url) { state, error in
                continuation.resume(returning: "\(state.map { "\($0)" } ?? "nil") \(error.map { "\($0)" } ?? "nil")")
            }
        }
        #expect(
            reply
                == "nil \(url.path) could not be read as awsconfiguration.json: awsconfiguration.json: "
                + "CognitoUserPool.Default.AppClientId is missing. Add it to the configuration. Write the "
                + "CognitoUserPool and CredentialsProvider sections, as amplify pull writes them."
        )
    }

    @Test func theIdentityPoolProviderGivesGuestCredentials() async throws {
        let moto = try await MotoUserPool.shared()
        let provider = AWSCognitoCredentialsProvider(
            regionType: .USEast1,
            identityPoolId: moto.identityPoolId,
            endpoint: URL(string: moto.endpoint)!,
            sessionStore: InMemoryAuthSessionStore()
        )
        let credentials = try await provider.credentials().value
        let expected = MotoUserPool.identityPoolCredentials
        #expect(
            [credentials.accessKeyId, credentials.secretAccessKey, credentials.sessionToken]
                == [expected.accessKeyId, expected.secretAccessKey, expected.sessionToken]
        )
        #expect(try await provider.getIdentityId().value.hasPrefix("us-east-1:"))

        let unknownRegion = AWSCognitoCredentialsProvider(regionType: .Unknown, identityPoolId: moto.identityPoolId)
        await #expect {
            try await unknownRegion.fetchCredentials()
        } throws: { error in
            "\(error)"
                == "AWSCognitoCredentialsProvider was created with the region .Unknown. Pass the identity pool's region, such as .USEast1."
        }
    }
}
