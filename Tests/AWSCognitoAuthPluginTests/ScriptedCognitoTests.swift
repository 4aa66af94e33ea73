import AWSCognitoAuthPlugin
import Amplify
import Foundation
import Testing

/// The plugin against a scripted Cognito: a race between a refresh and a sign-in, and the wire
/// format of operations moto does not implement.
@Suite struct ScriptedCognitoTests {
    @Test func aGuestRefreshThatEndsAfterSignInLeavesTheUserSignedIn() async throws {
        let transport = ScriptedCognito(holdGetId: true)
        let store = InMemoryAuthSessionStore()
        let auth = AWSCognitoAuthPlugin(
            sessionStore: store,
            transport: transport,
            hub: HubCategory(),
            configuration: AWSCognitoAuthConfiguration(
                userPool: .init(poolId: "us-east-1_Abc", appClientId: "client", region: "us-east-1"),
                identityPool: .init(poolId: "us-east-1:pool", region: "us-east-1"),
                authenticationFlowType: .userPassword
            )
        )
        try auth.configure(using: nil)
        var operations = transport.operations.makeAsyncIterator()
        let guest = Task { try await auth.fetchAuthSession(options: nil) }
        #expect(await operations.next() == "GetId")

        let signIn = try await auth.signIn(username: "alice", password: "Secret-pass1!", options: nil)
        #expect(signIn.isSignedIn)
        transport.release()
        _ = try await guest.value
        // The guest's identity, got before the sign-in, is dropped rather than stored as the user's.
        let stored = try JSONDecoder().decode(JSONValue.self, from: try #require(try store.load()))
        #expect(stored["identityId"] == nil)
        #expect(stored["credentials"] == nil)
        #expect(stored.value(at: "user.username") == "alice")

        let session = try #require(try await auth.fetchAuthSession(options: nil) as? AWSAuthCognitoSession)
        #expect(session.isSignedIn)
        #expect(try session.getUserPoolTokens().get().accessToken == ScriptedCognito.accessToken)
        let user = try await auth.getCurrentUser()
        #expect(user.username == "alice")
        #expect(user.userId == "alice-sub")
    }

    @Test func operationsMotoLacksSendCognitosWireFormat() async throws {
        let transport = ScriptedCognito(holdGetId: false)
        let auth = AWSCognitoAuthPlugin(
            sessionStore: InMemoryAuthSessionStore(),
            transport: transport,
            hub: HubCategory(),
            configuration: AWSCognitoAuthConfiguration(
                userPool: .init(
                    poolId: "us-east-1_Abc",
                    appClientId: "client",
                    appClientSecret: "shh",
                    region: "us-east-1"
                ),
                authenticationFlowType: .userPassword
            )
        )
        try auth.configure(using: nil)
        let hash = CognitoSRP.secretHash(username: "alice", clientId: "client", clientSecret: "shh")

        let delivery = try await auth.resendSignUpCode(for: "alice")
        #expect(delivery == AuthCodeDeliveryDetails(destination: .email("a***@e***"), attributeKey: .email))
        #expect(
            transport.input(of: "ResendConfirmationCode")
                == ["ClientId": "client", "Username": "alice", "SecretHash": .string(hash)]
        )

        _ = try await auth.signIn(username: "alice", password: "Secret-pass1!", options: nil)
        #expect(
            transport.input(of: "InitiateAuth")
                == [
                    "AuthFlow": "USER_PASSWORD_AUTH", "ClientId": "client",
                    "AuthParameters": ["USERNAME": "alice", "PASSWORD": "Secret-pass1!", "SECRET_HASH": .string(hash)],
                ]
        )
        let result = await auth.signOut(options: nil)
        guard case .complete = try #require(result as? AWSCognitoSignOutResult) else {
            Issue.record("sign-out: \(result)")
            return
        }
        #expect(
            transport.input(of: "RevokeToken")
                == ["Token": "refresh-token", "ClientId": "client", "ClientSecret": "shh"]
        )
    }

    @Test func deletingTheUserSignsOutAndTellsTheHub() async throws {
        let transport = ScriptedCognito(holdGetId: false)
        let hub = HubCategory()
        let events = HubRecorder(hub)
        let auth = AWSCognitoAuthPlugin(
            sessionStore: InMemoryAuthSessionStore(),
            transport: transport,
            hub: hub,
            configuration: AWSCognitoAuthConfiguration(
                userPool: .init(poolId: "us-east-1_Abc", appClientId: "client", region: "us-east-1"),
                authenticationFlowType: .userPassword
            )
        )
        try auth.configure(using: nil)
        _ = try await auth.signIn(username: "alice", password: "Secret-pass1!", options: nil)
        try await auth.deleteUser()
        #expect(transport.input(of: "DeleteUser") == ["AccessToken": .string(ScriptedCognito.accessToken)])
        #expect(events.eventNames == [HubPayload.EventName.Auth.signedIn, HubPayload.EventName.Auth.userDeleted])
        #expect(try await auth.fetchAuthSession(options: nil).isSignedIn == false)
        await #expect {
            try await auth.deleteUser()
        } throws: { error in
            guard let error = error as? AuthError, case .signedOut = error else { return false }
            return error.errorDescription == "There is no user signed in."
        }
    }
}
