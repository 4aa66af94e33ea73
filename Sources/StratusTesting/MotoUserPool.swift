import Foundation
import StratusServer
import Synchronization

/// A Cognito user pool served by moto (Python) on a loopback port, with real RS256 tokens it
/// issued: started once per test process by `Tests/Interop/moto_cognito.py`, which keeps running
/// (for the JWKS URL) until this process exits and closes its standard input.
///
/// ```swift
/// let pool = try await MotoUserPool.shared()
/// let backend = try await LocalBackend.start(schema: schema, defaultMode: .userPools, userPool: pool.authorization())
/// ```
public struct MotoUserPool: Sendable, Decodable {
    public var jwksURL: String
    public var poolId: String
    public var clientId: String
    /// Alice's ID token; she is in the group `Admins`.
    public var aliceId: String
    public var aliceAccess: String
    /// Bob's ID token; he is in no group.
    public var bobId: String
    /// Alice signed in through another client of the same pool.
    public var otherClientId: String
    /// A user of another pool, signed with the same key (moto has one key for every pool).
    public var foreignPoolId: String

    /// The `iss` of the pool's tokens.
    public var issuer: String { "https://cognito-idp.us-east-1.amazonaws.com/\(poolId)" }

    /// The server configuration that verifies this pool's tokens through moto's JWKS URL.
    public func authorization(clientRegex: String? = nil) -> UserPoolAuthorization {
        UserPoolAuthorization(
            userPoolId: poolId,
            region: "us-east-1",
            appIdClientRegex: clientRegex,
            jwks: .url(URL(string: jwksURL)!)
        )
    }

    static let script = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "Tests/Interop/moto_cognito.py")

    private static let started = Mutex<Task<MotoUserPool, any Error>?>(nil)

    /// The pool, started on first use.
    public static func shared() async throws -> MotoUserPool {
        let task = started.withLock { task in
            if let task { return task }
            let new = Task { try await start() }
            task = new
            return new
        }
        return try await task.value
    }

    private static func start() async throws -> MotoUserPool {
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        let input = Pipe()
        let output = Pipe()
        let errors = FileManager.default.temporaryDirectory.appending(path: "stratus-moto-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardInput = input
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errors)
        let line: String? = try await withCheckedThrowingContinuation { continuation in
            let buffer = Mutex<(data: Data, resumed: Bool)>((Data(), false))
            output.fileHandleForReading.readabilityHandler = { handle in
                let chunk = handle.availableData
                let result: String?? = buffer.withLock { state in
                    guard !state.resumed else { return .none }
                    if chunk.isEmpty {
                        state.resumed = true
                        return .some(nil)
                    }
                    state.data.append(chunk)
                    guard let newline = state.data.firstIndex(of: UInt8(ascii: "\n")) else { return .none }
                    state.resumed = true
                    return .some(String(decoding: state.data[..<newline], as: UTF8.self))
                }
                if let result {
                    handle.readabilityHandler = nil
                    continuation.resume(returning: result)
                }
            }
            do {
                try process.run()
            } catch {
                output.fileHandleForReading.readabilityHandler = nil
                continuation.resume(throwing: error)
            }
        }
        guard let line, let data = line.data(using: .utf8) else {
            let detail = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw MotoUnavailable(
                message:
                    "moto did not start (install it with: python3 -m pip install 'moto[server,cognitoidp]' boto3):\n\(detail)"
            )
        }
        // The pipe stays open for the life of the test process; moto stops when it closes.
        _ = Unmanaged.passRetained(input)
        return try JSONDecoder().decode(MotoUserPool.self, from: data)
    }
}

/// moto could not be started: the message says how to install it.
public struct MotoUnavailable: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
