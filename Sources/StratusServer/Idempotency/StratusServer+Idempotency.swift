import AWSWire
import Crypto
import Foundation
import Synchronization

/// The mutations under way with an `Idempotency-Key`, by caller and key: a repeat that arrives
/// while the first request runs is told so rather than run a second time.
final class IdempotentRequests: Sendable {
    /// The digest of the body of each request under way, by ``IdempotencyClaim`` scope and key.
    private let running = Mutex<[ClaimKey: String]>([:])

    private struct ClaimKey: Hashable {
        var scope: String
        var key: String
    }

    /// What a request with a key under way meets.
    enum Admission: Sendable, Hashable {
        /// No request with the key is under way: this one now is, until ``finish(_:)``.
        case admitted
        /// A request with the key and the same body is under way.
        case running
        /// A request with the key and another body is under way.
        case reused
    }

    /// Marks the request of `claim` as under way unless one with its key already is.
    func admit(_ claim: IdempotencyClaim) -> Admission {
        running.withLock { running in
            let key = ClaimKey(scope: claim.scope, key: claim.key)
            if let digest = running[key] { return digest == claim.digest ? .running : .reused }
            running[key] = claim.digest
            return .admitted
        }
    }

    /// Marks the request of `claim` as answered.
    func finish(_ claim: IdempotencyClaim) {
        _ = running.withLock { $0.removeValue(forKey: ClaimKey(scope: claim.scope, key: claim.key)) }
    }
}

extension StratusServer {
    /// What becomes of a mutation sent with an `Idempotency-Key`.
    enum IdempotentStart: Sendable, Hashable {
        /// It runs: the key is the caller's for it until ``finishIdempotent(_:recording:)``.
        case run(IdempotencyClaim)
        /// The response recorded for the first request with the key is answered again.
        case replay(IdempotencyRecord.Response)
        /// The first request with the key is still running.
        case running
        /// The key was used for a request with another body.
        case reused
        /// The first request with the key wrote, but the server stopped before recording its
        /// response: it must not run again, and its response is lost.
        case responseLost
    }

    /// Decides whether a mutation with `key` from `identity` runs, and claims the key if it does.
    ///
    /// - Throws: what the store throws when the key cannot be read.
    func startIdempotent(key: String, identity: Identity, body: Data) async throws -> IdempotentStart {
        let now = Timestamp.milliseconds(clock())
        let claim = IdempotencyClaim(
            scope: identity.idempotencyScope,
            key: key,
            digest: Hex.lowercase(SHA256.hash(data: body)),
            expiresAt: now + Self.milliseconds(api.configuration.idempotencyKeyTTL)
        )
        switch idempotentRequests.admit(claim) {
        case .running: return .running
        case .reused: return .reused
        case .admitted: break
        }
        let record: IdempotencyRecord?
        do {
            record = try await store.idempotencyRecord(scope: claim.scope, key: key, now: now)
        } catch {
            idempotentRequests.finish(claim)
            throw error
        }
        guard let record else { return .run(claim) }
        idempotentRequests.finish(claim)
        guard record.digest == claim.digest else { return .reused }
        guard let response = record.response else { return .responseLost }
        return .replay(response)
    }

    /// Records `response` (unless `nil`) for the key of `claim` and releases the key.
    ///
    /// - Throws: what the store throws when the response cannot be recorded; the key is released
    ///   all the same.
    func finishIdempotent(_ claim: IdempotencyClaim, recording response: IdempotencyRecord.Response?) async throws {
        defer { idempotentRequests.finish(claim) }
        guard let response else { return }
        try await store.recordResponse(response, for: claim, now: Timestamp.milliseconds(clock()))
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

extension Identity {
    /// Who a key belongs to: the same caller across token refreshes, another caller never.
    ///
    /// JWT callers are their issuer and subject (`sub`, else `username`); IAM callers their access
    /// key; API-key callers share one scope, as they share the key; Lambda callers their
    /// authorizer's `resolverContext`.
    var idempotencyScope: String {
        var parts = [authorizationMode.rawValue]
        switch authorizationMode {
        case .amazonCognitoUserPools, .openIDConnect:
            parts.append(claims["iss"]?.stringValue ?? "")
            parts.append(claims["sub"]?.stringValue ?? claims["username"]?.stringValue ?? "")
        case .awsIAM:
            parts.append(claims["accessKeyId"]?.stringValue ?? "")
        case .function:
            let sorted = claims.sorted { $0.key < $1.key }
            parts.append(JSON.object(JSONObject(sorted.map { ($0.key, $0.value) })).text)
        case .apiKey, .none:
            break
        }
        return parts.joined(separator: "\n")
    }
}
