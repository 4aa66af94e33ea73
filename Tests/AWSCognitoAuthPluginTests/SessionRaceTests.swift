import AWSCognitoAuthPlugin
import Amplify
import Foundation
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Answers Cognito operations from a script, holding `GetId` until the test releases it (and
/// holding none after that).
final class ScriptedCognito: AuthHTTPTransport {
    private struct Hold {
        var isHolding: Bool
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let hold: Mutex<Hold>
    private let arrivals = AsyncStream<String>.makeStream()

    init(holdGetId: Bool) {
        self.hold = Mutex(Hold(isHolding: holdGetId))
    }

    /// The operations as they arrive.
    var operations: AsyncStream<String> { arrivals.stream }

    func release() {
        let waiting = hold.withLock { hold in
            hold.isHolding = false
            defer { hold.waiting = [] }
            return hold.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    func send(_ request: URLRequest) async throws -> APIResponse {
        let operation = String(request.value(forHTTPHeaderField: "X-Amz-Target")?.split(separator: ".").last ?? "")
        let body: JSONValue
        switch operation {
        case "GetId":
            await withCheckedContinuation { continuation in
                let waits = hold.withLock { hold in
                    if hold.isHolding { hold.waiting.append(continuation) }
                    return hold.isHolding
                }
                arrivals.continuation.yield(operation)
                if !waits { continuation.resume() }
            }
            body = ["IdentityId": "us-east-1:guest"]
        case "GetCredentialsForIdentity":
            arrivals.continuation.yield(operation)
            body = ["Credentials": ["AccessKeyId": "AKID", "SecretKey": "secret", "Expiration": 4_000_000_000]]
        case "InitiateAuth":
            arrivals.continuation.yield(operation)
            body = [
                "AuthenticationResult": [
                    "IdToken": "id-token", "AccessToken": "access-token", "RefreshToken": "refresh-token",
                    "ExpiresIn": 3600,
                ]
            ]
        default:
            return APIResponse(
                statusCode: 400,
                headers: [:],
                body: Data(#"{"__type":"UnknownOperationException"}"#.utf8)
            )
        }
        return APIResponse(statusCode: 200, headers: [:], body: try JSONEncoder().encode(body))
    }
}

@Suite struct SessionRaceTests {
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
        #expect(try session.getUserPoolTokens().get().accessToken == "access-token")
        #expect(try await auth.getCurrentUser().username == "alice")
    }
}
