import AWSWire
import Crypto
import Foundation
import StratusServer
import _CryptoExtras

/// The RSA key that signs the local pool's tokens with RS256, and the JWKS that publishes it;
/// also the key of the backend's local OpenID Connect provider.
public struct CognitoSigningKey: Sendable {
    public let keyId: String
    private let key: _RSA.Signing.PrivateKey
    /// `{"keys":[{"kty":"RSA","alg":"RS256","use":"sig","kid":…,"n":…,"e":…}]}`.
    public let jwks: JSON

    /// A new 2048-bit key.
    public static func make() throws -> CognitoSigningKey {
        try CognitoSigningKey(keyId: UUID().uuidString.lowercased(), key: _RSA.Signing.PrivateKey(keySize: .bits2048))
    }

    /// The key ``storedForm`` wrote.
    ///
    /// - Throws: ``StoredFormUnreadable`` when `text` is not a key id line and a PEM RSA key.
    public init(storedForm text: String) throws {
        let parts = text.split(separator: "\n", maxSplits: 1)
        guard parts.count == 2, !parts[0].isEmpty,
            let key = try? _RSA.Signing.PrivateKey(pemRepresentation: String(parts[1]))
        else { throw StoredFormUnreadable() }
        try self.init(keyId: String(parts[0]), key: key)
    }

    /// The key id on its line, then the key in PEM.
    public var storedForm: String { keyId + "\n" + key.pkcs8PEMRepresentation }

    /// Text that is not a key id line followed by a PEM RSA key.
    public struct StoredFormUnreadable: Error, CustomStringConvertible {
        public var description: String { "the text is not a key id line followed by a PEM RSA private key" }
    }

    /// The key kept in `store`, or a new 2048-bit key, kept there first.
    ///
    /// - Throws: when the store cannot be read or written, or the kept key is not a PEM RSA key.
    static func load(from store: any CognitoStore) async throws -> CognitoSigningKey {
        if let record = try await store.all(SigningKeyRecord.self).first {
            return try CognitoSigningKey(
                keyId: record.keyId,
                key: _RSA.Signing.PrivateKey(pemRepresentation: record.pem)
            )
        }
        let signing = try make()
        try await store.write(SigningKeyRecord(keyId: signing.keyId, pem: signing.key.pkcs8PEMRepresentation))
        return signing
    }

    private init(keyId: String, key: _RSA.Signing.PrivateKey) throws {
        self.keyId = keyId
        self.key = key
        let primitives = try key.publicKey.getKeyPrimitives()
        jwks = .object([
            "keys": .array([
                .object([
                    "alg": "RS256",
                    "e": .string(Base64URL.encode(primitives.publicExponent)),
                    "kid": .string(keyId),
                    "kty": "RSA",
                    "n": .string(Base64URL.encode(primitives.modulus)),
                    "use": "sig",
                ])
            ])
        ])
    }

    /// A JWT of `claims` signed with RS256: `header.payload.signature`, each base64url.
    public func sign(_ claims: JSONObject) throws -> String {
        let header = JSON.object(["kid": .string(keyId), "alg": "RS256"])
        let signingInput =
            Base64URL.encode(Data(header.text.utf8)) + "." + Base64URL.encode(Data(JSON.object(claims).text.utf8))
        let signature = try key.signature(for: Data(signingInput.utf8), padding: .insecurePKCS1v1_5)
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }

    /// The claims of `token` when this key signed it with RS256; `nil` otherwise.
    func verifiedClaims(of token: String) -> JSONObject? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        // Segments that are not base64url JSON make the token one this key did not sign (`nil`).
        guard parts.count == 3,
            let headerData = Base64URL.decode(parts[0]),
            let payloadData = Base64URL.decode(parts[1]),
            let signatureData = Base64URL.decode(parts[2]),
            let header = try? JSON(parsing: headerData),
            header["alg"]?.stringValue == "RS256",
            header["kid"]?.stringValue == keyId
        else { return nil }
        let signature = _RSA.Signing.RSASignature(rawRepresentation: signatureData)
        let signed = Data((parts[0] + "." + parts[1]).utf8)
        guard key.publicKey.isValidSignature(signature, for: signed, padding: .insecurePKCS1v1_5) else { return nil }
        return (try? JSON(parsing: payloadData))?.objectValue
    }
}
