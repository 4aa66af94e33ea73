import BigInt
import Crypto
import Foundation

/// The arithmetic of Cognito's Secure Remote Password protocol shared by the client
/// (`AWSCognitoAuthPlugin`) and the local user pool (`StratusServer`): the 3072-bit group of
/// RFC 5054 with generator 2, and the hashes Cognito computes over it.
///
/// Numbers are hashed as their big-endian bytes with a leading zero byte when the high bit is
/// set, as Cognito's own clients hash them.
package enum SRPGroup {
    /// The group's prime `N`.
    package static let prime = BigUInt(
        "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
            + "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
            + "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F"
            + "83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B"
            + "E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510"
            + "15728E5A8AAAC42DAD33170D04507A33A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7"
            + "ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864D87602733EC86A64521F2B18177B200C"
            + "BBE117577A615D6C770988C0BAD946E208E24FA074E5AB3143DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF",
        radix: 16
    )!
    /// The group's generator `g`.
    package static let generator = BigUInt(2)
    /// The multiplier `k = H(N | g)`.
    package static let multiplier = BigUInt(Data(SHA256.hash(data: padded(prime) + padded(generator))))

    /// A random 256-bit private value (`a` or `b`), reduced modulo `N`.
    package static func randomPrivateValue() -> BigUInt {
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
        return BigUInt(bytes) % prime
    }

    /// The scrambling value `u = H(A | B)`.
    package static func scrambler(_ largeA: BigUInt, _ largeB: BigUInt) -> BigUInt {
        BigUInt(Data(SHA256.hash(data: padded(largeA) + padded(largeB))))
    }

    /// The private key `x = H(salt | H(poolName | userId | ":" | password))`.
    package static func privateKey(poolName: String, userIdForSRP: String, password: String, salt: Data) -> BigUInt {
        let identity = Data(SHA256.hash(data: Data("\(poolName)\(userIdForSRP):\(password)".utf8)))
        return BigUInt(Data(SHA256.hash(data: salt + identity)))
    }

    /// The verifier `v = g^x mod N` the server keeps instead of the password.
    package static func verifier(poolName: String, userIdForSRP: String, password: String, salt: Data) -> BigUInt {
        generator.power(
            privateKey(poolName: poolName, userIdForSRP: userIdForSRP, password: password, salt: salt),
            modulus: prime
        )
    }

    /// The 16-byte key both sides derive from the shared secret `S` and `u`: HKDF-SHA256 with
    /// `u` as the salt and `Caldera Derived Key` as the info.
    package static func derivedKey(sharedSecret: BigUInt, scrambler: BigUInt) -> SymmetricKey {
        let prk = HMAC<SHA256>.authenticationCode(
            for: padded(sharedSecret),
            using: SymmetricKey(data: padded(scrambler))
        )
        let okm = HMAC<SHA256>.authenticationCode(
            for: Data("Caldera Derived Key".utf8) + [1],
            using: SymmetricKey(data: Data(prk))
        )
        return SymmetricKey(data: Data(okm).prefix(16))
    }

    /// `PASSWORD_CLAIM_SIGNATURE`'s MAC: HMAC-SHA256, under `key`, of the pool name, the user
    /// id, the secret block's bytes and the timestamp.
    package static func claimSignature(
        key: SymmetricKey,
        poolName: String,
        userIdForSRP: String,
        secretBlock: Data,
        timestamp: String
    ) -> Data {
        let message = Data(poolName.utf8) + Data(userIdForSRP.utf8) + secretBlock + Data(timestamp.utf8)
        return Data(HMAC<SHA256>.authenticationCode(for: message, using: key))
    }

    /// The big-endian bytes of `value`, with a leading zero byte when the high bit is set (and
    /// one zero byte for zero).
    package static func padded(_ value: BigUInt) -> Data {
        let bytes = value.serialize()
        guard let first = bytes.first else { return Data([0]) }
        return first >= 0x80 ? Data([0]) + bytes : bytes
    }

    /// Hexadecimal text padded as the numbers are: to an even length, then with `00` in front
    /// when the first digit is 8 or more.
    package static func padded(hex: String) -> String {
        if hex.count % 2 == 1 { return "0" + hex }
        if let first = hex.first, "89abcdefABCDEF".contains(first) { return "00" + hex }
        return hex
    }

    /// The bytes of even-length hexadecimal text; `nil` when it is not hexadecimal.
    package static func bytes(ofHex hex: String) -> Data? {
        guard hex.count % 2 == 0 else { return nil }
        var data = Data(capacity: hex.count / 2)
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            data.append(byte)
            index = next
        }
        return data
    }
}
