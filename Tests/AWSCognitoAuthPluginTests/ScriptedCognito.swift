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
final class ScriptedCognito: HTTPTransport {
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

    /// An unsigned JWT with `claims`: the plugin reads claims without verifying signatures.
    static func token(_ claims: JSONValue) -> String {
        func base64URL(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let header = base64URL(Data(#"{"alg":"none"}"#.utf8))
        return "\(header).\(base64URL(try! JSONEncoder().encode(claims))).signature"
    }

    static let accessToken = token(["sub": "alice-sub", "username": "alice"])

    private let inputs = Mutex<[String: JSONValue]>([:])

    /// The last input of each operation.
    func input(of operation: String) -> JSONValue? { inputs.withLock { $0[operation] } }

    func send(_ request: URLRequest) async throws -> APIResponse {
        let input = try JSONDecoder().decode(JSONValue.self, from: request.httpBody ?? Data())
        let target = request.value(forHTTPHeaderField: "X-Amz-Target") ?? ""
        inputs.withLock { $0[String(target.split(separator: ".").last ?? "")] = input }
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
                    "IdToken": .string(Self.token(["sub": "alice-sub", "cognito:username": "alice"])),
                    "AccessToken": .string(Self.accessToken), "RefreshToken": "refresh-token",
                    "ExpiresIn": 3600,
                ]
            ]
        case "ResendConfirmationCode":
            arrivals.continuation.yield(operation)
            body = [
                "CodeDeliveryDetails": [
                    "Destination": "a***@e***", "DeliveryMedium": "EMAIL", "AttributeName": "email",
                ]
            ]
        case "RevokeToken", "DeleteUser":
            arrivals.continuation.yield(operation)
            body = [:]
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
