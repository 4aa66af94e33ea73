import Foundation
import Synchronization

/// How many of the calls anyone may make without credentials (`SignUp`, `InitiateAuth`,
/// `ForgotPassword`, a guest's `GetId`, …) one client address makes: each operation has a bucket
/// of ``CognitoConfiguration/ClientRequestLimit/burst`` calls per address, refilled at
/// ``CognitoConfiguration/ClientRequestLimit/perSecond``; a call finding it empty is refused with
/// `TooManyRequestsException` (`Rate exceeded`), as Cognito throttles.
///
/// Behind a proxy every client has the proxy's address, and shares its buckets.
final class ClientRateLimiter: Sendable {
    let limit: CognitoConfiguration.ClientRequestLimit
    private let buckets = Mutex<[Key: Bucket]>([:])

    /// The most buckets kept: past it, full ones are forgotten (a full bucket is what a new one
    /// would be), and if all are in use, all are forgotten, so that a client with very many
    /// addresses cannot grow the table without bound.
    static let maxBuckets = 10_000

    private struct Key: Hashable {
        var client: String
        var operation: String
    }

    private struct Bucket {
        var tokens: Double
        var updated: Date
    }

    init(_ limit: CognitoConfiguration.ClientRequestLimit) {
        self.limit = limit
    }

    /// Takes one call of `operation` from `client` out of its bucket.
    ///
    /// - Throws: ``CognitoError`` `TooManyRequestsException` when the bucket is empty.
    func admit(_ operation: String, from client: String, at now: Date) throws(CognitoError) {
        let admitted = buckets.withLock { buckets in
            let key = Key(client: client, operation: operation)
            var bucket = buckets[key] ?? Bucket(tokens: Double(limit.burst), updated: now)
            bucket.tokens = min(
                Double(limit.burst),
                bucket.tokens + max(0, now.timeIntervalSince(bucket.updated)) * limit.perSecond
            )
            bucket.updated = now
            guard bucket.tokens >= 1 else {
                buckets[key] = bucket
                return false
            }
            bucket.tokens -= 1
            if buckets[key] == nil, buckets.count >= Self.maxBuckets { forgetFull(&buckets, now: now) }
            buckets[key] = bucket
            return true
        }
        guard admitted else { throw CognitoError.tooManyRequests }
    }

    private func forgetFull(_ buckets: inout [Key: Bucket], now: Date) {
        let burst = Double(limit.burst)
        buckets = buckets.filter { $0.value.tokens + now.timeIntervalSince($0.value.updated) * limit.perSecond < burst }
        if buckets.count >= Self.maxBuckets { buckets = [:] }
    }
}
