extension PredicateValueKind {
    /// Two ISO 8601 strings by the instant they name, or `nil` when either does not parse as
    /// `kind`.
    ///
    /// Unlike the ``Temporal`` types' own order, values naming the same instant in different
    /// ways compare equal: `2024-01-02T03:00:00Z` equals `2024-01-02T04:00:00+01:00`, and
    /// `12:00:00.5` equals `12:00:00.500`.
    static func compareTemporal(_ kind: TemporalKind, _ lhs: String, _ rhs: String) -> Order? {
        guard let left = instant(kind, lhs), let right = instant(kind, rhs) else { return nil }
        return order(left.seconds, right.seconds) == .equal
            ? order(left.nanoseconds, right.nanoseconds)
            : order(left.seconds, right.seconds)
    }

    /// The instant `text` names, in seconds since 1970-01-01T00:00:00Z and nanoseconds: the start
    /// of the day for a date (midnight UTC without an offset), the time on 1970-01-01 for a time
    /// (in UTC with an offset, else as local time).
    private static func instant(_ kind: TemporalKind, _ text: String) -> (seconds: Int, nanoseconds: Int)? {
        switch kind {
        case .date:
            guard let date = try? Temporal.Date(iso8601String: text) else { return nil }
            let seconds = date.day.daysSince1970 * Temporal.secondsPerDay - (date.offset?.seconds ?? 0)
            return (seconds, 0)
        case .dateTime:
            guard let dateTime = try? Temporal.DateTime(iso8601String: text) else { return nil }
            return (dateTime.timestamp, dateTime.time.nanosecond)
        case .time:
            guard let time = try? Temporal.Time(iso8601String: text) else { return nil }
            return (time.time.secondOfDay - (time.offset?.seconds ?? 0), time.time.nanosecond)
        }
    }
}
