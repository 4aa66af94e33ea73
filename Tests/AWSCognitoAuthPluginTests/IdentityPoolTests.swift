import AWSCognitoAuthPlugin
import AWSPluginsCore
import Amplify
import Foundation
import StratusTesting
import Testing

/// Guest and authenticated AWS credentials from moto's identity pool and the one `stratus serve`
/// runs.
@Suite struct IdentityPoolTests {
    @Test(arguments: CognitoService.allCases) func guestCredentialsThenAuthenticatedOnesWithTheIDToken(
        _ service: CognitoService
    ) async throws {
        let cognito = try await TestCognito.start(service)
        let username = TestCognito.newUsername("identity")
        try await cognito.createUser(username)
        let recorder = RecordingTransport()
        let auth = try cognito.plugin(
            cognito.configuration(identityPool: true, flow: .userPassword),
            recorder: recorder
        )

        let guest = try session(await auth.fetchAuthSession(options: nil))
        #expect(!guest.isSignedIn)
        let guestId = try guest.getIdentityId().get()
        #expect(guestId.hasPrefix("us-east-1:"))
        let guestCredentials = try guest.getAWSCredentials().get()
        switch service {
        case .moto:
            // moto hands out the same fixed credentials to every identity.
            #expect(guestCredentials.accessKeyId == "TESTACCESSKEY12345")
            #expect(guestCredentials.sessionToken == "ABC12345")
        case .serve:
            #expect(guestCredentials.accessKeyId.hasPrefix("ASIA"))
            #expect(guestCredentials.accessKeyId.count == 20)
            #expect(guestCredentials.sessionToken?.isEmpty == false)
        }
        #expect(guestCredentials.expiration != nil)
        #expect(recorder.operations == ["GetId", "GetCredentialsForIdentity"])
        #expect(recorder.calls[0].target == "AWSCognitoIdentityService.GetId")
        #expect(recorder.calls[0].input == ["IdentityPoolId": .string(cognito.identityPoolId)])
        #expect(recorder.calls[1].input == ["IdentityId": .string(guestId)])
        guard case .failure(.signedOut) = guest.getUserPoolTokens() else {
            Issue.record("a guest has tokens: \(guest.getUserPoolTokens())")
            return
        }

        // Cached until they are about to expire.
        _ = try await auth.fetchAuthSession(options: nil)
        #expect(recorder.operations.count == 2)

        _ = try await auth.signIn(username: username, password: "Secret-pass1!", options: nil)
        let signedIn = try session(await auth.fetchAuthSession(options: nil))
        #expect(signedIn.isSignedIn)
        let idToken = try signedIn.getUserPoolTokens().get().idToken
        let logins: JSONValue = [cognito.providerName: .string(idToken)]
        #expect(Array(recorder.operations.suffix(2)) == ["GetId", "GetCredentialsForIdentity"])
        let getId = recorder.calls[recorder.calls.count - 2].input
        #expect(getId == ["IdentityPoolId": .string(cognito.identityPoolId), "Logins": logins])
        let identityId = try signedIn.getIdentityId().get()
        #expect(recorder.calls.last?.input == ["IdentityId": .string(identityId), "Logins": logins])
        let userCredentials = try signedIn.getAWSCredentials().get()
        switch service {
        case .moto: #expect(userCredentials.accessKeyId == "TESTACCESSKEY12345")
        case .serve: #expect(userCredentials.accessKeyId != guestCredentials.accessKeyId)
        }

        // The credentials provider the API plugin can sign with.
        let provider = AWSCognitoAuthCredentialsProvider(auth: auth)
        #expect(try await provider.fetchCredentials().accessKeyId == userCredentials.accessKeyId)
        let tokens = AWSCognitoUserPoolsAuthProvider(auth: auth)
        #expect(try await tokens.getLatestAuthToken() == signedIn.getUserPoolTokens().get().accessToken)
    }

    @Test(arguments: CognitoService.allCases) func credentialsAreRefreshedOnceForConcurrentCallersBeforeExpiry(
        _ service: CognitoService
    ) async throws {
        let cognito = try await TestCognito.start(service)
        let recorder = RecordingTransport()
        let clock = TestClock()
        let auth = try cognito.plugin(cognito.configuration(identityPool: true), recorder: recorder, clock: clock)
        let first = try session(await auth.fetchAuthSession(options: nil)).getAWSCredentials().get()
        let expiration = try #require(first.expiration)
        // Within the last minute before they expire, credentials are refreshed.
        clock.advance(by: expiration.timeIntervalSince(clock.now) - 30)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { _ = try session(await auth.fetchAuthSession(options: nil)).getAWSCredentials().get() }
            }
            try await group.waitForAll()
        }
        #expect(recorder.operations == ["GetId", "GetCredentialsForIdentity", "GetCredentialsForIdentity"])
    }

    @Test(arguments: CognitoService.allCases) func noIdentityPoolMeansNoCredentials(
        _ service: CognitoService
    ) async throws {
        let cognito = try await TestCognito.start(service)
        let auth = try cognito.plugin(cognito.configuration())
        let guest = try session(await auth.fetchAuthSession(options: nil))
        guard case .failure(.configuration(let message, let fix, _)) = guest.getAWSCredentials() else {
            Issue.record("credentials: \(guest.getAWSCredentials())")
            return
        }
        #expect(message == "The Auth plugin has no identity pool, so it has no AWS credentials.")
        #expect(fix == "Add CredentialsProvider.CognitoIdentity.Default to auth.plugins.awsCognitoAuthPlugin.")
    }
}
