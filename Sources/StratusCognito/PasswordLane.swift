import StratusServer
import Synchronization

/// A bound on one kind of slow password work: at most ``width`` run at once on
/// ``CognitoThread/passwords``, at most ``maxWaiting`` more wait, and the next is refused at once
/// with `TooManyRequestsException` rather than queued behind them.
///
/// A pool has two lanes: one for the passwords users present (sign-in's scrypt check, SRP's
/// exponentiations), one for new passwords (sign-up, a reset, an administrator's, each a scrypt
/// hash and an SRP verifier). A burst of sign-ups fills its own lane and leaves the other free:
/// a sign-in waits at most for the new-password work already running, never for a queue of it.
/// The work runs outside the pool's one-at-a-time section (``CognitoUserPool/serially(_:)``), so
/// that reading and writing records never waits for hashing either.
package final class PasswordLane: Sendable {
    /// How many run at once, and how many more may wait.
    package struct Limits: Sendable, Hashable {
        /// How many run at once.
        package var width: Int
        /// How many more may wait; the next is refused.
        package var maxWaiting: Int

        package init(width: Int, maxWaiting: Int) {
            precondition(width > 0 && maxWaiting >= 0, "A lane runs at least one and lets none or more wait.")
            self.width = width
            self.maxWaiting = maxWaiting
        }

        /// For the passwords users present: as many at once as there are password threads,
        /// 32 waiting.
        package static let signIns = Limits(width: CognitoThread.passwords.count, maxWaiting: 32)
        /// For new passwords: half the password threads (at least one) at once, 8 waiting.
        package static let newPasswords = Limits(width: max(1, CognitoThread.passwords.count / 2), maxWaiting: 8)
    }

    let limits: Limits
    private let gate: AsyncGate
    /// Running and waiting.
    private let admitted = Mutex(0)

    init(_ limits: Limits) {
        self.limits = limits
        gate = AsyncGate(width: limits.width)
    }

    /// How many run or wait.
    var occupancy: Int { admitted.withLock { $0 } }

    /// The value of `work`, run on ``CognitoThread/passwords`` once it is its turn.
    ///
    /// - Throws: ``CognitoError`` `TooManyRequestsException` when ``Limits/maxWaiting`` already
    ///   wait, or what `work` throws.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let entered = admitted.withLock { count in
            guard count < limits.width + limits.maxWaiting else { return false }
            count += 1
            return true
        }
        guard entered else { throw CognitoError.tooManyRequests }
        defer { admitted.withLock { $0 -= 1 } }
        return try await gate.run { try await CognitoThread.passwords.run { try work() } }
    }
}
