import Foundation

/// A user and the client address a sign-in came from: failures are counted, and lockouts
/// applied, per pair.
struct SignInAttempt: Hashable, Sendable {
    /// The user's username, or the name given when no user has it (so that an unknown name
    /// locks out as a user's would, and a lockout tells nothing of who exists).
    var name: String
    /// The address of the connection's peer.
    var client: String
}

/// The failed sign-ins of one ``SignInAttempt``.
struct SignInFailures: Sendable {
    /// Failures since the last lockout (or success).
    var count = 0
    /// Lockouts so far: each lasts twice the one before, up to the configured longest.
    var lockouts = 0
    var lockedUntil: Date?
    var lastFailure: Date
}

/// Failed sign-ins and lockouts (see ``CognitoConfiguration/maxFailedSignIns``).
///
/// Why per client address: a lockout per user lets anyone keep any user locked out, five wrong
/// passwords at a time. Per address, a guesser locks out only itself, ever longer, while the user
/// signs in from elsewhere; a guesser with many addresses is slowed by each address's lockouts
/// and by ``CognitoConfiguration/clientRequestLimit``.
extension CognitoUserPool {
    /// The most attempts remembered; past it, those idle for ``CognitoConfiguration/maxLockout``
    /// are forgotten first, and if that is not enough, every one not locked out.
    static let maxRememberedAttempts = 10_000

    /// Refuses `attempt` while its lockout lasts, before any password work: attempts during a
    /// lockout neither count nor extend it.
    ///
    /// - Throws: ``CognitoError/attemptsExceeded``.
    func checkNotLockedOut(_ attempt: SignInAttempt) throws(CognitoError) {
        let now = clock()
        let locked = failures.withLock { $0[attempt]?.lockedUntil.map { $0 > now } ?? false }
        if locked { throw CognitoError.attemptsExceeded }
    }

    /// Counts a wrong password; the ``CognitoConfiguration/maxFailedSignIns``th in a row locks the
    /// attempt's address out of the user.
    func recordFailure(_ attempt: SignInAttempt) {
        let now = clock()
        let configuration = configuration
        failures.withLock { failures in
            var entry = failures[attempt] ?? SignInFailures(lastFailure: now)
            // Quiet for the longest lockout after the last one ended: it starts over.
            let quietSince = entry.lockedUntil ?? entry.lastFailure
            if now.timeIntervalSince(quietSince) >= configuration.maxLockout {
                entry = SignInFailures(lastFailure: now)
            }
            entry.count += 1
            entry.lastFailure = now
            if entry.count >= configuration.maxFailedSignIns {
                let length = min(
                    configuration.lockout * pow(2, Double(min(entry.lockouts, 30))),
                    configuration.maxLockout
                )
                entry.lockouts += 1
                entry.count = 0
                entry.lockedUntil = now.addingTimeInterval(length)
            }
            if failures[attempt] == nil, failures.count >= Self.maxRememberedAttempts {
                Self.forgetIdle(&failures, now: now, after: configuration.maxLockout)
            }
            failures[attempt] = entry
        }
    }

    /// Forgets the failures of `attempt`: the password was right.
    func recordSuccess(_ attempt: SignInAttempt) {
        _ = failures.withLock { $0.removeValue(forKey: attempt) }
    }

    private static func forgetIdle(
        _ failures: inout [SignInAttempt: SignInFailures],
        now: Date,
        after quiet: TimeInterval
    ) {
        failures = failures.filter { now.timeIntervalSince($0.value.lockedUntil ?? $0.value.lastFailure) < quiet }
        if failures.count >= maxRememberedAttempts {
            failures = failures.filter { ($0.value.lockedUntil ?? .distantPast) > now }
        }
    }
}
