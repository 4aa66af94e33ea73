import AWSPluginsCore
import Amplify

extension SyncEngine {
    /// Sends `request` with each mode in turn until one is not refused as unauthorized.
    func send(
        _ request: GraphQLRequest<JSONValue>,
        modes: [AWSAuthorizationType?],
        mutation: Bool
    ) async throws -> GraphQLResponse<JSONValue> {
        for (index, mode) in modes.enumerated() {
            var attempt = request
            attempt.authMode = mode
            let isLast = index == modes.count - 1
            do {
                let response = try await mutation ? api.mutate(request: attempt) : api.query(request: attempt)
                if !isLast, case .failure(.error(let errors)) = response, Self.isUnauthorized(errors) { continue }
                if mutation { storage.metrics?.mutationAnswered(response) }
                return response
            } catch {
                if !isLast && Self.isUnauthorized(error) { continue }
                if mutation { storage.metrics?.mutationThrew(error) }
                throw error
            }
        }
        throw DataStoreError(.configuration, "No authorization mode applies to \(request.decodePath ?? "the request").")
    }

    /// Whether a thrown error says the mode was not good enough, so that the next mode may do
    /// better: the mode is not configured, or the backend refused the request as a whole (401,
    /// 403).
    static func isUnauthorized(_ error: any Error) -> Bool {
        switch error as? APIError {
        case .invalidConfiguration: return true
        case .httpStatusError(let status, _): return status == 401 || status == 403
        default: return false
        }
    }

    /// Whether the answer's errors refuse the request as unauthorized.
    static func isUnauthorized(_ errors: [GraphQLError]) -> Bool {
        errors.contains(where: \.isUnauthorized)
    }

    /// Whether `error` is worth sending again: the backend could not be reached (which the
    /// outbox and the sync queries wait out, as the AppSync client's queue does), or it
    /// answered a status `RetryRule` retries.
    ///
    /// - Parameter sentWithIdempotencyKey: Whether the request carried an `Idempotency-Key`
    ///   (the outbox's mutations do), which makes a 409 retryable.
    static func isRetryable(_ error: any Error, sentWithIdempotencyKey: Bool) -> Bool {
        switch error as? APIError {
        case .networkError: return true
        case .httpStatusError(let status, _):
            return RetryRule.isRetryable(statusCode: status, sentWithIdempotencyKey: sentWithIdempotencyKey)
        default: return false
        }
    }

    /// `2^attempt · 100 ms` (``Backoff``), capped at 5 minutes, with half of it random.
    static func backoff(attempt: Int) -> Duration {
        let base = Backoff.exponential(attempt: attempt + 1, base: .milliseconds(100), cap: .seconds(300))
        return base / 2 + (base / 2) * Double.random(in: 0...1)
    }
}
