/// The exponential part of every retry wait in the clients (the real-time reconnection, the API
/// plugin's retries, the AppSync offline queue and DataStore's sync): `base · 2^(attempt − 1)`,
/// at most `cap`, without overflow however many attempts failed. Each caller adds its own
/// jitter, so that clients do not retry in step.
public enum Backoff {
    /// The wait before attempt `attempt + 1`, after `attempt` failed ones (1 or more; less
    /// counts as 1).
    public static func exponential(attempt: Int, base: Duration, cap: Duration) -> Duration {
        let exponent = min(max(attempt - 1, 0), 30)
        return min(base * (Int64(1) << exponent), cap)
    }
}
