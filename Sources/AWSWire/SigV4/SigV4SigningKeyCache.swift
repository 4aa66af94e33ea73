import Crypto
import Foundation
import Synchronization

/// Signing keys derived from a secret for a date, a region and a service, kept for reuse.
///
/// Deriving a key takes four HMACs, as many as signing itself, and the key changes only with
/// the date. The cache holds at most ``capacity`` keys and starts over when full, which a
/// process signing with a handful of credentials, regions and services never reaches.
/// It is safe to use from any thread.
package final class SigV4SigningKeyCache: Sendable {
    /// The cache the signer and the verifier share.
    package static let shared = SigV4SigningKeyCache(capacity: 64)

    private struct Scope: Hashable {
        var secretAccessKey: String
        var dateStamp: String
        var region: String
        var service: String
    }

    /// The most keys the cache holds.
    package let capacity: Int

    /// A derived key, an HMAC already keyed with it (keying an HMAC hashes a block for each of
    /// its two pads, which a copy of the keyed one skips) and the credential scope it signs.
    private struct Entry {
        var key: SymmetricKey
        var keyedHMAC: HMAC<SHA256>
        var scope: [UInt8]
    }

    private struct State {
        var keys: [Scope: Entry] = [:]
        /// The entry found last: a process signs with one scope most of the time, and comparing
        /// its four strings costs less than hashing them.
        var last: (scope: Scope, entry: Entry)?
    }

    private let state = Mutex(State())

    /// Creates an empty cache that holds at most `capacity` keys.
    package init(capacity: Int) {
        precondition(capacity > 0, "A SigV4SigningKeyCache needs a capacity of at least one key.")
        self.capacity = capacity
    }

    /// The key that signs for `dateStamp` (`20240102`), `region` and `service` with the secret,
    /// derived the first time and cached.
    package func key(secretAccessKey: String, dateStamp: String, region: String, service: String) -> SymmetricKey {
        entry(secretAccessKey: secretAccessKey, dateStamp: dateStamp, region: region, service: service).key
    }

    /// An HMAC-SHA256 keyed with the key of ``key(secretAccessKey:dateStamp:region:service:)``,
    /// ready for the string to sign, and the credential scope it signs for,
    /// `dateStamp/region/service/aws4_request`.
    package func signingContext(
        secretAccessKey: String,
        dateStamp: String,
        region: String,
        service: String
    ) -> (keyedHMAC: HMAC<SHA256>, scope: [UInt8]) {
        let entry = entry(secretAccessKey: secretAccessKey, dateStamp: dateStamp, region: region, service: service)
        return (entry.keyedHMAC, entry.scope)
    }

    private func entry(secretAccessKey: String, dateStamp: String, region: String, service: String) -> Entry {
        let scope = Scope(secretAccessKey: secretAccessKey, dateStamp: dateStamp, region: region, service: service)
        let found = state.withLock { state -> Entry? in
            if let last = state.last, last.scope == scope { return last.entry }
            guard let entry = state.keys[scope] else { return nil }
            state.last = (scope, entry)
            return entry
        }
        if let found { return found }
        let key = Self.derive(secretAccessKey: secretAccessKey, dateStamp: dateStamp, region: region, service: service)
        let entry = Entry(
            key: key,
            keyedHMAC: HMAC<SHA256>(key: key),
            scope: SigV4CanonicalRequest.scope(dateStamp: dateStamp, region: region, service: service)
        )
        state.withLock { state in
            if state.keys.count >= capacity {
                state.keys.removeAll(keepingCapacity: true)
            }
            state.keys[scope] = entry
            state.last = (scope, entry)
        }
        return entry
    }

    /// The number of keys held, for tests.
    package var count: Int {
        state.withLock { $0.keys.count }
    }

    /// `AWS4` and the secret, then an HMAC each of the date, the region, the service and
    /// `aws4_request`.
    package static func derive(
        secretAccessKey: String,
        dateStamp: String,
        region: String,
        service: String
    ) -> SymmetricKey {
        var key = SymmetricKey(data: Array(("AWS4" + secretAccessKey).utf8))
        for part in [dateStamp, region, service, SigV4Canonical.terminator] {
            key = SymmetricKey(data: HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key))
        }
        return key
    }
}
