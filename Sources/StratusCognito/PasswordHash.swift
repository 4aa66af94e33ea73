import AWSWire
import Crypto
import Foundation
import _CryptoExtras

/// The slow hash a password is checked against in `USER_PASSWORD_AUTH`: scrypt (N = 2^14,
/// r = 8, p = 1) over a random 16-byte salt, from swift-crypto.
enum PasswordHash {
    /// A new record for `password`: a fresh SRP salt and verifier for `username`, and its hash.
    static func record(password: String, username: String, poolName: String) throws -> PasswordRecord {
        // Clients read the salt as a number and hash its padded bytes: a first byte of 0x01–0x7F
        // keeps those bytes the ones generated (no zero dropped, none added).
        var srpSalt = randomBytes(16)
        srpSalt[0] = UInt8.random(in: 0x01...0x7F)
        let verifier = SRPServer.verifier(poolName: poolName, username: username, password: password, salt: srpSalt)
        let hashSalt = randomBytes(16)
        return PasswordRecord(
            srpSalt: Hex.lowercase(srpSalt),
            srpVerifier: verifier,
            hash: try hash(password, salt: hashSalt).base64EncodedString(),
            hashSalt: hashSalt.base64EncodedString()
        )
    }

    /// Whether `password` is the one `record` stands for.
    static func matches(_ password: String, _ record: PasswordRecord) throws -> Bool {
        guard let salt = Data(base64Encoded: record.hashSalt), let expected = Data(base64Encoded: record.hash) else {
            return false
        }
        let actual = try hash(password, salt: salt)
        // Compared in constant time.
        return actual.count == expected.count && zip(actual, expected).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private static func hash(_ password: String, salt: Data) throws -> Data {
        let key = try KDF.Scrypt.deriveKey(
            from: Data(password.utf8),
            salt: salt,
            outputByteCount: 32,
            rounds: 16384,
            blockSize: 8,
            parallelism: 1
        )
        return key.withUnsafeBytes { Data($0) }
    }

    static func randomBytes(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}
