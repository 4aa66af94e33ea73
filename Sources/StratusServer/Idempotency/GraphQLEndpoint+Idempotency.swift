import AWSWire
import Foundation
import HTTPTypes
import Hummingbird

/// Mutations sent with an `Idempotency-Key` (IETF httpapi draft): the first complete response
/// is recorded in the store and answered again to every repeat with the same key and body.
///
/// The key is recorded in the SQLite transaction of each write the mutation makes, and its
/// response right after the mutation ends; a repeat finds one of three things:
/// - the response: it is answered again, with `Idempotent-Replayed: true`, and nothing runs;
/// - the first request still running (in this process): `409`, as the draft says; on another
///   server sharing the PostgreSQL database, the repeat runs, and its write is refused once the
///   first run's is committed (`500`, sent again and then answered the first run's response);
/// - the key written but no response, when the server stopped between the mutation's writes and
///   recording its response: the mutation does not run again, and the answer says so.
/// The same key with another body gets `422`. Keys are per caller (``Identity/idempotencyScope``)
/// and expire after ``ServerConfiguration/idempotencyKeyTTL``.
///
/// A response that tells of an internal failure (the store failed under the mutation: its
/// database restarting, its connection cut) is not recorded, and its status is `500`: clients
/// send a 5xx again with the same key, and the repeat runs the mutation unless its first run
/// wrote. With a `200`, DataStore and the AppSync client take the errors for the backend's
/// refusal of the write and drop it.
extension GraphQLEndpoint {
    func respondOnce(
        to operation: Operation,
        identity: Identity,
        key: IdempotencyKey,
        body: Data
    ) async throws -> Response {
        let claim: IdempotencyClaim
        switch try await server.startIdempotent(key: key.value, identity: identity, body: body) {
        case .run(let started): claim = started
        case .replay(let response):
            var replayed = Self.response(status: response.status, data: Data(response.body))
            replayed.headers[.idempotentReplayed] = "true"
            return replayed
        case .running: throw HTTPRejection.idempotencyKeyInFlight(key)
        case .reused: throw HTTPRejection.idempotencyKeyReused(key)
        case .responseLost:
            var lost = Self.response(
                status: 200,
                body: AppSyncError.body(
                    [
                        AppSyncError(
                            .idempotentResponseLost,
                            "The mutation sent with the Idempotency-Key '\(key.value)' was applied, but the server "
                                + "stopped before it recorded the response. Read the items it wrote for their "
                                + "current state; do not send the mutation again."
                        )
                    ],
                    data: .null
                )
            )
            lost.headers[.idempotentReplayed] = "true"
            return lost
        }
        // The mutation runs to its end even when the caller gives up waiting (a timeout, a closed
        // connection), so that a repeat finds its response rather than a lost one.
        let (server, log) = (server, log)
        let mutation = Task { [self] in
            let result = await run(operation, identity: identity, idempotency: claim)
            let data = finalBody(result)
            let transient = Self.isTransientFailure(result)
            let recorded = transient ? nil : IdempotencyRecord.Response(status: 200, body: [UInt8](data))
            do {
                try await server.finishIdempotent(claim, recording: recorded)
            } catch {
                log("Cannot record the response to the mutation with the Idempotency-Key '\(claim.key)': \(error)")
            }
            return (data: data, status: transient ? 500 : 200)
        }
        let work = Task { await mutation.value }
        guard let answered = await ExecutionDeadline.value(of: work, timeout: limits.executionTimeout) else {
            return Self.response(status: 200, data: Self.executionTimedOut)
        }
        return Self.response(status: answered.status, data: answered.data)
    }

    /// Whether a response tells of a failure a repeat may not meet (an internal failure): such a
    /// response is not recorded, and a repeat runs the mutation again unless it wrote.
    private static func isTransientFailure(_ body: JSON) -> Bool {
        body["errors"]?.arrayValue?.contains {
            $0["errorType"]?.stringValue == AppSyncErrorType.internalFailure.rawValue
        } ?? false
    }
}
