import AWSWire
import Crypto
import Foundation
import Testing

/// The signing keys the signer and the verifier derive once per secret, date, region and service.
@Suite struct SigV4SigningKeyCacheTests {
    static func hex(_ key: SymmetricKey) -> String {
        key.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
    }

    /// The example of AWS's SigV4 documentation ("Derive a signing key").
    @Test func derivesTheKeyOfAWSsExample() {
        let key = SigV4SigningKeyCache.derive(
            secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
            dateStamp: "20120215",
            region: "us-east-1",
            service: "iam"
        )
        #expect(Self.hex(key) == "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d")
    }

    @Test func returnsTheDerivedKeyForEachScope() {
        let cache = SigV4SigningKeyCache(capacity: 8)
        for service in ["appsync", "execute-api"] {
            for date in ["20240102", "20240103"] {
                let key = cache.key(secretAccessKey: "secret", dateStamp: date, region: "us-east-1", service: service)
                let again = cache.key(secretAccessKey: "secret", dateStamp: date, region: "us-east-1", service: service)
                let derived = SigV4SigningKeyCache.derive(
                    secretAccessKey: "secret",
                    dateStamp: date,
                    region: "us-east-1",
                    service: service
                )
                #expect(Self.hex(key) == Self.hex(derived))
                #expect(Self.hex(again) == Self.hex(derived))
            }
        }
        #expect(cache.count == 4)
        let otherSecret = cache.key(
            secretAccessKey: "other",
            dateStamp: "20240102",
            region: "us-east-1",
            service: "appsync"
        )
        let secret = cache.key(
            secretAccessKey: "secret",
            dateStamp: "20240102",
            region: "us-east-1",
            service: "appsync"
        )
        #expect(Self.hex(otherSecret) != Self.hex(secret))
        #expect(cache.count == 5)
    }

    /// Asking for two scopes in turn gives each its own key and credential scope: the entry
    /// kept for the scope asked last is never handed to the other.
    @Test func scopesAskedInTurnGetTheirOwnContext() {
        let cache = SigV4SigningKeyCache(capacity: 8)
        let scopes = [
            ("secret", "20240102", "appsync"), ("other", "20240102", "appsync"), ("secret", "20240103", "s3"),
        ]
        for round in 0..<6 {
            let (secret, date, service) = scopes[round % scopes.count]
            let context = cache.signingContext(
                secretAccessKey: secret,
                dateStamp: date,
                region: "eu-west-1",
                service: service
            )
            let derived = SigV4SigningKeyCache.derive(
                secretAccessKey: secret,
                dateStamp: date,
                region: "eu-west-1",
                service: service
            )
            var hmac = context.keyedHMAC
            hmac.update(data: Array("to sign".utf8))
            let expected = HMAC<SHA256>.authenticationCode(for: Array("to sign".utf8), using: derived)
            #expect(Array(hmac.finalize()) == Array(expected))
            #expect(String(decoding: context.scope, as: UTF8.self) == "\(date)/eu-west-1/\(service)/aws4_request")
        }
        #expect(cache.count == 3)
    }

    /// The keyed HMAC the signer copies for each signature gives the HMAC of the derived key,
    /// every time: a copy's use leaves the cached one as it was.
    @Test func keyedHMACsAuthenticateWithTheDerivedKey() {
        let cache = SigV4SigningKeyCache(capacity: 8)
        let derived = SigV4SigningKeyCache.derive(
            secretAccessKey: "secret",
            dateStamp: "20240102",
            region: "us-east-1",
            service: "appsync"
        )
        for message in ["AWS4-HMAC-SHA256\n20240102T000000Z", "another string to sign", ""] {
            var hmac = cache.signingContext(
                secretAccessKey: "secret",
                dateStamp: "20240102",
                region: "us-east-1",
                service: "appsync"
            ).keyedHMAC
            hmac.update(data: Array(message.utf8))
            let expected = HMAC<SHA256>.authenticationCode(for: Array(message.utf8), using: derived)
            #expect(Data(hmac.finalize()) == Data(expected), "\(message)")
        }
        #expect(cache.count == 1)
    }

    @Test func holdsNoMoreThanItsCapacity() {
        let cache = SigV4SigningKeyCache(capacity: 4)
        for day in 1...10 {
            let date = "202401\(day < 10 ? "0" : "")\(day)"
            let key = cache.key(secretAccessKey: "secret", dateStamp: date, region: "eu-west-1", service: "appsync")
            let derived = SigV4SigningKeyCache.derive(
                secretAccessKey: "secret",
                dateStamp: date,
                region: "eu-west-1",
                service: "appsync"
            )
            #expect(Self.hex(key) == Self.hex(derived))
            #expect(cache.count <= 4)
        }
        #expect(cache.count == 2)
    }

    @Test func givesTheSameKeysToConcurrentSigners() async {
        let cache = SigV4SigningKeyCache(capacity: 3)
        let regions = ["us-east-1", "us-west-2", "eu-west-1", "eu-central-1", "ap-northeast-1"]
        let expected = Dictionary(
            uniqueKeysWithValues: regions.map { region in
                (
                    region,
                    Self.hex(
                        SigV4SigningKeyCache.derive(
                            secretAccessKey: "secret",
                            dateStamp: "20240102",
                            region: region,
                            service: "appsync"
                        )
                    )
                )
            }
        )
        let wrong = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for index in 0..<500 {
                        let region = regions[(task + index) % regions.count]
                        let key = cache.key(
                            secretAccessKey: "secret",
                            dateStamp: "20240102",
                            region: region,
                            service: "appsync"
                        )
                        if Self.hex(key) != expected[region] { wrong += 1 }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
        #expect(cache.count <= 3)
    }
}
