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
                return response
            } catch {
                if !isLast && !Self.isRetryable(error) && Self.isUnauthorized(error) { continue }
                throw error
            }
        }
        throw DataStoreError(.configuration, "No authorization mode applies to \(request.decodePath ?? "the request").")
    }

    /// Whether a thrown error or an answer's errors say the mode was not good enough, so that
    /// the next mode may do better.
    static func isUnauthorized(_ error: any Error) -> Bool {
        switch error as? APIError {
        case .invalidConfiguration: return true
        case .httpStatusError(let status, _): return status == 401 || status == 403
        default: break
        }
        let text = "\(error)"
        return text.contains("Unauthorized") || text.contains("Not Authorized")
            || text.contains("UnauthorizedException")
    }

    /// Whether the answer's errors refuse the request as unauthorized.
    static func isUnauthorized(_ errors: [GraphQLError]) -> Bool {
        errors.contains { error in
            error.errorType == "Unauthorized" || error.errorType == "UnauthorizedException"
                || error.message.contains("Not Authorized")
        }
    }

    /// Whether `error` is worth sending again: the network failed, or the backend is busy.
    static func isRetryable(_ error: any Error) -> Bool {
        switch error as? APIError {
        case .networkError: return true
        // 409: the backend is still answering the same idempotency key.
        case .httpStatusError(let status, _): return status >= 500 || status == 429 || status == 408 || status == 409
        default: return false
        }
    }

    /// `2^attempt · 100 ms` (``Backoff``), capped at 5 minutes, with half of it random.
    static func backoff(attempt: Int) -> Duration {
        let base = Backoff.exponential(attempt: attempt + 1, base: .milliseconds(100), cap: .seconds(300))
        return base / 2 + (base / 2) * Double.random(in: 0...1)
    }
}
