import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// The connection a statement was sent on closed before PostgreSQL answered it: PostgreSQL ended
/// the connection (a restart, `pg_terminate_backend`) or the network failed.
package struct PostgresConnectionClosed: Error, CustomStringConvertible {
    package var description: String {
        "PostgreSQL closed the connection before it answered the statement (it restarted, or the connection "
            + "was terminated)."
    }
}

/// A transaction of ``PostgresClient/answeredTransaction(logger:_:)`` that failed, with the
/// failure of the step that failed.
package struct PostgresTransactionFailure: Error, CustomStringConvertible {
    /// What failed: `BEGIN`, the transaction's own statements, or `COMMIT`.
    package enum Step: Sendable { case begin, body, commit }

    package var step: Step
    package var error: any Error
    /// Why the `ROLLBACK` after a failed body failed, when it did.
    package var rollbackError: (any Error)?

    package var description: String { "\(error)" }
}

extension PostgresConnection {
    /// The rows of `query`, or ``PostgresConnectionClosed`` when the connection closes before
    /// they all came.
    ///
    /// PostgresNIO's `query` hands the statement to the connection's channel without waiting for
    /// the handoff: on a channel that closed since the previous statement (PostgreSQL ended an
    /// idle connection in a transaction), the handoff fails unseen and the query never answers,
    /// which held a write, and the connection, for good. The query's answer is raced with the
    /// connection's close.
    package func answeredRows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        guard !isClosed else { throw PostgresConnectionClosed() }
        let answer = FirstAnswer<[PostgresRow]>()
        // Told of the close through one callback per connection, not one per statement: a
        // callback stays on the close future until the connection closes, which on a pooled
        // connection may be never.
        let token = PendingStatements.shared.add(self) { answer.give(.failure(PostgresConnectionClosed())) }
        defer { PendingStatements.shared.remove(token, of: self) }
        return try await withCheckedThrowingContinuation { continuation in
            answer.await(continuation)
            // The future form collects the rows on the connection's event loop and answers
            // there: no task of its own, and no thread hop per row batch.
            let result: EventLoopFuture<PostgresQueryResult> = self.query(query, logger: logger)
            result.whenComplete { outcome in answer.give(outcome.map(\.rows)) }
        }
    }
}

extension PostgresClient {
    /// The rows of `query` on a pooled connection, through
    /// ``PostgresConnection/answeredRows(_:logger:)``: the pool may lease a connection that
    /// PostgreSQL has just ended, on which PostgresNIO's own query never answers.
    package func answeredRows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        try await withConnection { connection in try await connection.answeredRows(query, logger: logger) }
    }

    /// Runs `body` in a transaction on a pooled connection, each of `BEGIN`, `COMMIT` and
    /// `ROLLBACK` through ``PostgresConnection/answeredRows(_:logger:)``: a connection that
    /// closes at any point fails the transaction at once rather than holding it forever. `body`
    /// sends its own statements through `answeredRows` too.
    ///
    /// - Throws: ``PostgresTransactionFailure`` naming the step that failed.
    package func answeredTransaction<Result: Sendable>(
        logger: Logger,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await withConnection { connection in
            do {
                _ = try await connection.answeredRows("BEGIN", logger: logger)
            } catch {
                connection.closeInDoubt()
                throw PostgresTransactionFailure(step: .begin, error: error)
            }
            let value: Result
            do {
                value = try await body(connection)
            } catch {
                var failure = PostgresTransactionFailure(step: .body, error: error)
                do {
                    _ = try await connection.answeredRows("ROLLBACK", logger: logger)
                } catch {
                    failure.rollbackError = error
                    connection.closeInDoubt()
                }
                throw failure
            }
            do {
                _ = try await connection.answeredRows("COMMIT", logger: logger)
            } catch {
                connection.closeInDoubt()
                throw PostgresTransactionFailure(step: .commit, error: error)
            }
            return value
        }
    }
}

extension PostgresConnection {
    /// Closes a connection whose transaction state is unknown (its `BEGIN`, `COMMIT` or
    /// `ROLLBACK` failed), rather than let the pool lease it again: a transaction left open on
    /// it would take in the statements of the connection's next users, which would then commit
    /// or roll back with it, and its transaction id, older than theirs, would deliver their
    /// events out of commit order. PostgreSQL ends a closed connection's transaction; the pool
    /// opens another connection.
    fileprivate func closeInDoubt() {
        guard !isClosed else { return }
        // Not awaited: the channel closes on its loop, and the pool hears of it from the close
        // future; a close that fails leaves nothing more to do.
        let closing: EventLoopFuture<Void> = close()
        _ = closing
    }
}

/// The statements of each open connection that wait for their answer, which the connection's
/// close fails: one callback on each connection's close future, whatever the number of its
/// statements.
private final class PendingStatements: Sendable {
    static let shared = PendingStatements()

    private struct State {
        /// Per connection seen and not closed yet, the connection and its waiting statements'
        /// failures by token. The entry holds the connection until its close: an identifier
        /// stands for one connection only while that connection lives, and another one made at
        /// the same address would otherwise take over the entry, so that the first one's close
        /// failed the second one's statements, and the second one's close failed none.
        var connections: [ObjectIdentifier: (connection: PostgresConnection, waiting: [UInt64: @Sendable () -> Void])] =
            [:]
        var nextToken: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Registers `fail`, called when `connection` closes before ``remove(_:of:)``.
    func add(_ connection: PostgresConnection, _ fail: @escaping @Sendable () -> Void) -> UInt64 {
        let id = ObjectIdentifier(connection)
        let (token, isNew) = state.withLock { state in
            state.nextToken += 1
            let isNew = state.connections[id] == nil
            state.connections[id, default: (connection, [:])].waiting[state.nextToken] = fail
            return (state.nextToken, isNew)
        }
        if isNew { connection.closeFuture.whenComplete { _ in self.closed(id) } }
        return token
    }

    /// Forgets the statement `token`, answered.
    func remove(_ token: UInt64, of connection: PostgresConnection) {
        _ = state.withLock { $0.connections[ObjectIdentifier(connection)]?.waiting.removeValue(forKey: token) }
    }

    /// Fails the waiting statements of a connection that closed, and forgets it.
    private func closed(_ id: ObjectIdentifier) {
        let failures = state.withLock { $0.connections.removeValue(forKey: id)?.waiting } ?? [:]
        for fail in failures.values { fail() }
    }
}

/// The first of several outcomes that race to resume one continuation; the later ones are
/// dropped.
private final class FirstAnswer<Value: Sendable>: Sendable {
    private enum State {
        case waiting
        case awaiting(CheckedContinuation<Value, any Error>)
        case early(Result<Value, any Error>)
        case done
    }

    private let state = Mutex<State>(.waiting)

    /// Takes the continuation the outcome resumes; an outcome given before resumes it at once.
    func await(_ continuation: CheckedContinuation<Value, any Error>) {
        let early: Result<Value, any Error>? = state.withLock { state in
            switch state {
            case .early(let result):
                state = .done
                return result
            default:
                state = .awaiting(continuation)
                return nil
            }
        }
        if let early { continuation.resume(with: early) }
    }

    /// Gives an outcome: the first one resumes the continuation.
    func give(_ result: Result<Value, any Error>) {
        let continuation: CheckedContinuation<Value, any Error>? = state.withLock { state in
            switch state {
            case .waiting:
                state = .early(result)
                return nil
            case .awaiting(let continuation):
                state = .done
                return continuation
            case .early, .done:
                return nil
            }
        }
        continuation?.resume(with: result)
    }
}
