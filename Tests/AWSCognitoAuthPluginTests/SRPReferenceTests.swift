import Amplify
import Crypto
import Foundation
import StratusTesting
import Testing

@testable import AWSCognitoAuthPlugin

/// The client's SRP values against pycognito's `AWSSRP`, for the same inputs and random values.
@Suite struct SRPReferenceTests {
    struct Case: Codable, Sendable {
        var poolId: String
        var clientId: String
        var clientSecret: String?
        var username: String
        var password: String
        var a: String
        var userIdForSRP: String
        var salt: String
        var srpB: String
        var secretBlock: String
        var time: String
    }

    struct Vector: Decodable {
        var srpA: String
        var key: String
        var timestamp: String
        var signature: String
        var secretHash: String?
    }

    struct Output: Decodable {
        var pycognito: String
        var vectors: [Vector]
    }

    /// Inputs that exercise the padding rules (with 256-bit private values, as the client draws): a salt of odd length, one whose first digit is 8
    /// or more, a server value with leading zero digits, a username that is not ASCII, a day of
    /// the month below 10, and a secret block with characters outside base64 (as moto sends).
    static let cases: [Case] = [
        Case(
            poolId: "us-east-1_AbCdEf123",
            clientId: "7abcdefghijklmnopqrstuvwx",
            clientSecret: nil,
            username: "alice",
            password: "Secret-pass1!",
            a: String(repeating: "a1b2c3d4", count: 8),
            userIdForSRP: "alice",
            salt: "8f3c2e1d0b9a",
            srpB: String(repeating: "f1e2d3c4b5a69788", count: 48),
            secretBlock: Data("secret block one".utf8).base64EncodedString(),
            time: "2024-01-02T03:04:05Z"
        ),
        Case(
            poolId: "eu-west-2_Zz9",
            clientId: "client-two",
            clientSecret: "shh-its-a-secret",
            username: "zoë.müller@example.com",
            password: "pässwörd with spaces",
            a: "0" + String(repeating: "7f", count: 32),
            userIdForSRP: "5f0c3c3e-6b1a-4a55-8f2e-7c3d9b1a0e42",
            salt: "abc",
            srpB: "00000" + String(repeating: "12", count: 200),
            secretBlock: "2d3f9a4b-1c2d-4e5f-8a9b-0c1d2e3f4a5b",
            time: "2025-11-23T23:59:09Z"
        ),
        Case(
            poolId: "us-west-2_Q",
            clientId: "c",
            clientSecret: "s",
            username: "bob",
            password: "x",
            a: "1",
            userIdForSRP: "bob",
            salt: "0102",
            srpB: "8000000000000000000000000000000000000000000000000000000000000001",
            secretBlock: Data(repeating: 0xFF, count: 64).base64EncodedString(),
            time: "2026-02-28T12:00:00Z"
        ),
    ]

    static let script = URL(filePath: #filePath).deletingLastPathComponent()
        .appending(components: "Reference", "pycognito_srp_vectors.py")

    static func reference() async throws -> Output {
        let input = try JSONEncoder().encode(cases)
        let result = try await ChildProcess.run(["python3", script.path(percentEncoded: false)], input: input)
        try #require(
            result.status == .exited(0),
            "\(script.lastPathComponent) \(result.status): \(result.errorText) (python3 -m pip install -r Tests/requirements.txt)"
        )
        return try JSONDecoder().decode(Output.self, from: result.output)
    }

    @Test func srpAKeyAndSignatureMatchPycognito() async throws {
        let output = try await Self.reference()
        #expect(output.vectors.count == Self.cases.count)
        for (input, expected) in zip(Self.cases, output.vectors) {
            // Off the concurrency pool, as the plugin computes them: slow in a debug build.
            let srp = try #require(await CognitoSRP.computed { CognitoSRP(poolId: input.poolId, privateAHex: input.a) })
            #expect(srp.publicA == expected.srpA, "SRP_A of \(input.username)")
            let key = try await CognitoSRP.computed { () throws(AuthError) in
                try srp.passwordAuthenticationKey(
                    userIdForSRP: input.userIdForSRP,
                    password: input.password,
                    serverB: input.srpB,
                    salt: input.salt
                )
            }
            let keyHex = key.withUnsafeBytes { Data($0) }.map { String(format: "%02x", $0) }.joined()
            #expect(keyHex == expected.key, "derived key of \(input.username)")
            let date = try Date(input.time, strategy: .iso8601)
            let timestamp = CognitoSRP.timestamp(date)
            #expect(timestamp == expected.timestamp)
            let signature = try srp.signature(
                key: key,
                userIdForSRP: input.userIdForSRP,
                secretBlock: input.secretBlock,
                timestamp: timestamp
            )
            #expect(signature == expected.signature, "PASSWORD_CLAIM_SIGNATURE of \(input.username)")
            let secretHash = input.clientSecret.map {
                CognitoSRP.secretHash(username: input.username, clientId: input.clientId, clientSecret: $0)
            }
            #expect(secretHash == expected.secretHash, "SECRET_HASH of \(input.username)")
        }
    }

    @Test func randomPrivateValuesGiveDistinctPublicValues() async throws {
        let first = try await CognitoSRP.computed { CognitoSRP(poolId: "us-east-1_Abc") }
        let second = try await CognitoSRP.computed { CognitoSRP(poolId: "us-east-1_Abc") }
        #expect(first.publicA != second.publicA)
        #expect(first.poolName == "Abc")
    }

    @Test func challengeThatIsNotHexadecimalIsRefused() throws {
        let srp = try #require(CognitoSRP(poolId: "us-east-1_Abc", privateAHex: "1234"))
        #expect {
            try srp.passwordAuthenticationKey(userIdForSRP: "u", password: "p", serverB: "xyz", salt: "00")
        } throws: { error in
            (error as? AuthError)?.errorDescription
                == "The PASSWORD_VERIFIER challenge is invalid: SRP_B or SALT is not hexadecimal."
        }
        #expect {
            try srp.passwordAuthenticationKey(
                userIdForSRP: "u",
                password: "p",
                serverB: String(CognitoSRP.prime, radix: 16),
                salt: "00"
            )
        } throws: { error in
            (error as? AuthError)?.errorDescription
                == "The PASSWORD_VERIFIER challenge is invalid: SRP_B is a multiple of N."
        }
    }
}
