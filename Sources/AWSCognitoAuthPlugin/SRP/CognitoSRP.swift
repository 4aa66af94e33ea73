import AWSWire
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
    static var prime: BigUInt { SRPGroup.prime }

    /// The pool's name: the part of its id after the underscore (`Abc123` for `us-east-1_Abc123`).
    public let poolName: String
    /// The client's private value `a`.
    let privateA: BigUInt
    /// The client's public value `A = g^a mod N`.
    let largeA: BigUInt

    /// A new exchange for the pool `poolId`, with a random 256-bit private value (RFC 5054 asks
    /// for at least 256 bits; a longer one only makes each sign-in slower).
    public init(poolId: String) {
        self.init(poolId: poolId, privateA: SRPGroup.randomPrivateValue())
    }

    /// An exchange with a chosen private value, for reproducible test vectors.
    ///
    /// - Precondition: `privateA` is not a multiple of `N`'s order, so that `A` is not zero.
    init(poolId: String, privateA: BigUInt) {
        self.poolName = poolId.split(separator: "_", maxSplits: 1).last.map(String.init) ?? poolId
        self.privateA = privateA
        self.largeA = SRPGroup.generator.power(privateA, modulus: SRPGroup.prime)
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
    /// - Throws: `AuthError.service(_:_:_:)` when `SRP_B` or `SALT` is not hexadecimal, or the
    ///   server's value is unsafe (`B mod N = 0`, or `u = 0`).
    public func passwordAuthenticationKey(
        userIdForSRP: String,
        password: String,
        serverB: String,
        salt: String
    ) throws(AuthError) -> SymmetricKey {
        guard let largeB = BigUInt(serverB, radix: 16),
            let saltBytes = SRPGroup.bytes(ofHex: SRPGroup.padded(hex: salt))
        else {
            throw Self.badChallenge("SRP_B or SALT is not hexadecimal")
        }
        let prime = SRPGroup.prime
        guard largeB % prime != 0 else { throw Self.badChallenge("SRP_B is a multiple of N") }
        let u = SRPGroup.scrambler(largeA, largeB)
        guard u != 0 else { throw Self.badChallenge("the scrambling value u is zero") }
        let x = SRPGroup.privateKey(poolName: poolName, userIdForSRP: userIdForSRP, password: password, salt: saltBytes)
        let gx = SRPGroup.generator.power(x, modulus: prime)
        let kgx = (SRPGroup.multiplier * gx) % prime
        let base = (largeB % prime + prime - kgx) % prime
        let s = base.power(privateA + u * x, modulus: prime)
        return SRPGroup.derivedKey(sharedSecret: s, scrambler: u)
    }

    /// `PASSWORD_CLAIM_SIGNATURE`: the base64 HMAC-SHA256, under `key`, of the pool name, the
    /// user id, the decoded `SECRET_BLOCK` and the timestamp.
    ///
    /// - Throws: `AuthError.service(_:_:_:)` when `secretBlock` is not base64.
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
        return SRPGroup.claimSignature(
            key: key,
            poolName: poolName,
            userIdForSRP: userIdForSRP,
            secretBlock: block,
            timestamp: timestamp
        ).base64EncodedString()
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
