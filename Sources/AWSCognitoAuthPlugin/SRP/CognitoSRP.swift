import Amplify
import BigInt
import Crypto
import Foundation

/// The Secure Remote Password computations of Cognito's `USER_SRP_AUTH` flow: the client's
/// public value `SRP_A`, the key derived from the server's challenge, and the signature that
/// proves the password without sending it.
///
/// The group is the 3072-bit prime of RFC 5054 with generator 2; hashes are SHA-256 over the
/// big-endian bytes of each number, with a leading zero byte when its high bit is set, as
/// Cognito's own clients compute them.
///
/// ```swift
/// let srp = CognitoSRP(poolId: "us-east-1_Abc123")
/// let initiate = ["USERNAME": "alice", "SRP_A": srp.publicA]
/// // … InitiateAuth answers PASSWORD_VERIFIER with SRP_B, SALT, SECRET_BLOCK, USER_ID_FOR_SRP
/// let key = try srp.passwordAuthenticationKey(userIdForSRP: userId, password: password, serverB: b, salt: salt)
/// let signature = srp.signature(key: key, userIdForSRP: userId, secretBlock: block, timestamp: timestamp)
/// ```
public struct CognitoSRP: Sendable {
    /// The group's prime `N`.
    static let prime = BigUInt(
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
    static let generator = BigUInt(2)
    /// The multiplier `k = H(N | g)`.
    static let multiplier = BigUInt(Data(SHA256.hash(data: padded(prime) + padded(generator))))

    /// The pool's name: the part of its id after the underscore (`Abc123` for `us-east-1_Abc123`).
    public let poolName: String
    /// The client's private value `a`.
    let privateA: BigUInt
    /// The client's public value `A = g^a mod N`.
    let largeA: BigUInt

    /// A new exchange for the pool `poolId`, with a random 256-bit private value (RFC 5054 asks
    /// for at least 256 bits; a longer one only makes each sign-in slower).
    public init(poolId: String) {
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
        self.init(poolId: poolId, privateA: BigUInt(bytes) % Self.prime)
    }

    /// An exchange with a chosen private value, for reproducible test vectors.
    ///
    /// - Precondition: `privateA` is not a multiple of `N`'s order, so that `A` is not zero.
    init(poolId: String, privateA: BigUInt) {
        self.poolName = poolId.split(separator: "_", maxSplits: 1).last.map(String.init) ?? poolId
        self.privateA = privateA
        self.largeA = Self.generator.power(privateA, modulus: Self.prime)
        precondition(largeA != 0, "The SRP private value gives A = 0; choose another.")
    }

    /// An exchange with the private value given in hexadecimal, for reproducible test vectors.
    package init?(poolId: String, privateAHex: String) {
        guard let value = BigUInt(privateAHex, radix: 16) else { return nil }
        self.init(poolId: poolId, privateA: value)
    }

    /// `SRP_A`: the public value in lower-case hexadecimal, as `InitiateAuth` takes it.
    public var publicA: String {
        String(largeA, radix: 16)
    }

    /// The 16-byte key both sides derive from the exchange, for the password `password` of the
    /// user `userIdForSRP`, from the server's `SRP_B` and `SALT` (hexadecimal, as the
    /// `PASSWORD_VERIFIER` challenge gives them).
    ///
    /// - Throws: ``AuthError/service(_:_:_:)`` when `SRP_B` or `SALT` is not hexadecimal, or the
    ///   server's value is unsafe (`B mod N = 0`, or `u = 0`).
    public func passwordAuthenticationKey(
        userIdForSRP: String,
        password: String,
        serverB: String,
        salt: String
    ) throws(AuthError) -> SymmetricKey {
        guard let largeB = BigUInt(serverB, radix: 16), let saltBytes = Self.bytes(ofHex: Self.padded(hex: salt))
        else {
            throw Self.badChallenge("SRP_B or SALT is not hexadecimal")
        }
        guard largeB % Self.prime != 0 else { throw Self.badChallenge("SRP_B is a multiple of N") }
        let u = BigUInt(Data(SHA256.hash(data: Self.padded(largeA) + Self.padded(largeB))))
        guard u != 0 else { throw Self.badChallenge("the scrambling value u is zero") }
        let identity = Data(SHA256.hash(data: Data("\(poolName)\(userIdForSRP):\(password)".utf8)))
        let x = BigUInt(Data(SHA256.hash(data: saltBytes + identity)))
        let gx = Self.generator.power(x, modulus: Self.prime)
        let kgx = (Self.multiplier * gx) % Self.prime
        let base = (largeB % Self.prime + Self.prime - kgx) % Self.prime
        let s = base.power(privateA + u * x, modulus: Self.prime)
        let prk = HMAC<SHA256>.authenticationCode(for: Self.padded(s), using: SymmetricKey(data: Self.padded(u)))
        let okm = HMAC<SHA256>.authenticationCode(
            for: Data("Caldera Derived Key".utf8) + [1],
            using: SymmetricKey(data: Data(prk))
        )
        return SymmetricKey(data: Data(okm).prefix(16))
    }

    /// `PASSWORD_CLAIM_SIGNATURE`: the base64 HMAC-SHA256, under `key`, of the pool name, the
    /// user id, the decoded `SECRET_BLOCK` and the timestamp.
    ///
    /// - Throws: ``AuthError/service(_:_:_:)`` when `secretBlock` is not base64.
    public func signature(
        key: SymmetricKey,
        userIdForSRP: String,
        secretBlock: String,
        timestamp: String
    )
        throws(AuthError) -> String
    {
        // Decoded as Cognito's other clients decode it, skipping characters outside base64.
        guard let block = Data(base64Encoded: secretBlock, options: .ignoreUnknownCharacters) else {
            throw Self.badChallenge("SECRET_BLOCK is not base64")
        }
        let message = Data(poolName.utf8) + Data(userIdForSRP.utf8) + block + Data(timestamp.utf8)
        return Data(HMAC<SHA256>.authenticationCode(for: message, using: key)).base64EncodedString()
    }

    /// `TIMESTAMP` as Cognito expects it: `Tue Jan 2 03:04:05 UTC 2024` (the day not padded).
    public static func timestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.weekday, .month, .day, .hour, .minute, .second, .year], from: date)
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int?) -> String {
            let value = value ?? 0
            return value < 10 ? "0\(value)" : "\(value)"
        }
        return "\(weekdays[parts.weekday! - 1]) \(months[parts.month! - 1]) \(parts.day!) "
            + "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)) UTC \(parts.year!)"
    }

    /// `SECRET_HASH`, which requests of an app client with a secret carry: the base64
    /// HMAC-SHA256 of `username` followed by `clientId`, keyed with `clientSecret`.
    public static func secretHash(username: String, clientId: String, clientSecret: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data((username + clientId).utf8),
            using: SymmetricKey(data: Data(clientSecret.utf8))
        )
        return Data(mac).base64EncodedString()
    }

    /// The big-endian bytes of `value`, with a leading zero byte when the high bit is set (and
    /// one zero byte for zero).
    static func padded(_ value: BigUInt) -> Data {
        let bytes = value.serialize()
        guard let first = bytes.first else { return Data([0]) }
        return first >= 0x80 ? Data([0]) + bytes : bytes
    }

    /// Hexadecimal text padded as the numbers are: to an even length, then with `00` in front
    /// when the first digit is 8 or more.
    static func padded(hex: String) -> String {
        if hex.count % 2 == 1 { return "0" + hex }
        if let first = hex.first, "89abcdefABCDEF".contains(first) { return "00" + hex }
        return hex
    }

    /// The bytes of even-length hexadecimal text; `nil` when it is not hexadecimal.
    static func bytes(ofHex hex: String) -> Data? {
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

    private static func badChallenge(_ reason: String) -> AuthError {
        .service(
            "The PASSWORD_VERIFIER challenge is invalid: \(reason).",
            "Check that the endpoint is a Cognito user pool; sign in again."
        )
    }
}

extension CognitoSRP {
    /// Where SRP's exponentiations run: a queue of its own, whose threads are not the
    /// concurrency pool's. A 3072-bit exponentiation takes milliseconds in an optimized build
    /// and about a second in a debug build; on the pool it would hold one of its few threads.
    private static let exponentiations = DispatchQueue(
        label: "AWSCognitoAuthPlugin.srp",
        attributes: .concurrent
    )

    /// The value of `body`, computed on the SRP queue.
    package static func computed<T: Sendable>(
        _ body: @escaping @Sendable () throws(AuthError) -> T
    ) async throws(AuthError) -> T {
        let result: Result<T, AuthError> = await withCheckedContinuation { continuation in
            exponentiations.async {
                continuation.resume(returning: Result { () throws(AuthError) -> T in try body() })
            }
        }
        return try result.get()
    }
}
