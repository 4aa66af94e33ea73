import AWSPluginsCore

/// When a queued mutation is tried again after a failure that may pass: `2^n·base + jitter`,
/// capped, for a mutation that failed `n + 1` times.
struct MutationRetryPolicy: Sendable {
    /// The delay after the first failure.
    var base: Duration = .milliseconds(100)
    /// The longest delay.
    var cap: Duration = .seconds(300)
    /// How often, while waiting after a network failure, the client checks whether the API
    /// answers again, to retry at once when it does.
    var probeInterval: Duration = .seconds(1)

    /// The delay before the next attempt after `failures` failed ones (at least 1): the
    /// exponential delay, capped, plus up to `base` at random so that clients do not retry in
    /// step.
    func delay(afterFailures failures: Int, random: Double = Double.random(in: 0..<1)) -> Duration {
        Backoff.exponential(attempt: failures, base: base, cap: cap) + base * random
    }
}
