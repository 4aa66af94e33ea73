import AWSWire
import BigInt
import Crypto
import Foundation

/// The server's side of Cognito's `USER_SRP_AUTH`: the verifier kept for a password, the
/// challenge value `B`, and the key that checks the client's `PASSWORD_CLAIM_SIGNATURE`.
///
/// The group and hashes are ``SRPGroup``'s, which the client plugin uses as well.
enum SRPServer {
    /// The verifier `g^x mod N` of `password`, in hexadecimal.
    static func verifier(poolName: String, username: String, password: String, salt: Data) -> String {
        String(SRPGroup.verifier(poolName: poolName, userIdForSRP: username, password: password, salt: salt), radix: 16)
    }

    /// A challenge for the verifier `verifier`: the private `b` and the public
    /// `B = (k·v + g^b) mod N`.
    static func challenge(verifier: BigUInt) -> (privateB: BigUInt, publicB: BigUInt) {
        while true {
            let b = SRPGroup.randomPrivateValue()
            let gb = SRPGroup.generator.power(b, modulus: SRPGroup.prime)
            let largeB = (SRPGroup.multiplier * verifier + gb) % SRPGroup.prime
            if largeB != 0 { return (b, largeB) }
        }
    }

    /// The key the client must have derived, from its `A`; `nil` when `A` is unsafe
    /// (`A mod N = 0`, or `u = 0`).
    static func key(publicA: BigUInt, publicB: BigUInt, privateB: BigUInt, verifier: BigUInt) -> SymmetricKey? {
        let prime = SRPGroup.prime
        guard publicA % prime != 0 else { return nil }
        let u = SRPGroup.scrambler(publicA, publicB)
        guard u != 0 else { return nil }
        let base = (publicA * verifier.power(u, modulus: prime)) % prime
        let secret = base.power(privateB, modulus: prime)
        return SRPGroup.derivedKey(sharedSecret: secret, scrambler: u)
    }
}
