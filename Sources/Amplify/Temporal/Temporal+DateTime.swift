import Foundation

extension Temporal {
    /// An `AWSDateTime`: an instant written as a local date and time and its UTC offset.
    ///
    /// AppSync requires the offset: `Z` or `±hh:mm[:ss]`. The seconds and a fraction of 1 to 9
    /// digits are optional; see ``Temporal`` for the canonical form. Values are ordered by
    /// instant.
    ///
    /// ```swift
    /// let meeting = try Temporal.DateTime(iso8601String: "2024-01-02T09:30-05:00")
    /// meeting.iso8601String  // "2024-01-02T09:30:00-05:00"
    /// meeting.timestamp      // 1704205800, the instant 2024-01-02T14:30:00Z
    /// ```
    public struct DateTime: Sendable, Hashable {
        let day: CalendarDay
        let time: ClockTime
        let offset: UTCOffset

        init(day: CalendarDay, time: ClockTime, offset: UTCOffset) {
            self.day = day
            self.time = time
            self.offset = offset
        }

        /// Reads an `AWSDateTime`: `YYYY-MM-DDThh:mm[:ss[.f]]` followed by `Z` or `±hh:mm[:ss]`,
        /// with 1 to 9 fraction digits.
        ///
        /// - Throws: ``TemporalError`` when the text does not have this format, lacks the offset,
        ///   or names a month, a day, a time or an offset that does not exist.
        public init(iso8601String: String) throws(TemporalError) {
            self = try Parser.parse(iso8601String, as: .dateTime) { parser throws(TemporalError) in
                let day = try CalendarDay.read(from: &parser)
                try parser.read(UInt8(ascii: "T"))
                let time = try ClockTime.read(from: &parser)
                guard let offset = try UTCOffset.read(from: &parser, expected: "Z or ±hh:mm") else {
                    throw parser.error(.missingOffset)
                }
                return DateTime(day: day, time: time, offset: offset)
            }
        }

        /// The instant `date`, written in `timeZone` to the millisecond.
        ///
        /// The offset is the one `timeZone` has at `date`, so daylight saving time is taken into
        /// account.
        ///
        /// ```swift
        /// let paris = TimeZone(identifier: "Europe/Paris")!
        /// Temporal.DateTime(Date(timeIntervalSince1970: 0), timeZone: paris).iso8601String
        /// // "1970-01-01T01:00:00.000+01:00"
        /// ```
        ///
        /// - Precondition: `date` falls in the years 0000 through 9999.
        public init(_ date: Foundation.Date, timeZone: TimeZone = .utc) {
            let local = Temporal.localTime(of: date, in: timeZone)
            self.init(day: local.day, time: local.time, offset: local.offset)
        }

        /// The instant `timestamp` seconds after 1970-01-01T00:00:00Z, written in UTC without a
        /// fraction: the `AWSDateTime` of an `AWSTimestamp`.
        ///
        /// ```swift
        /// Temporal.DateTime(timestamp: 1_704_164_645).iso8601String  // "2024-01-02T03:04:05Z"
        /// ```
        ///
        /// - Precondition: the instant falls in the years 0000 through 9999.
        public init(timestamp: Int) {
            let (days, secondOfDay) = Temporal.floorDivision(timestamp, Temporal.secondsPerDay)
            self.init(
                day: CalendarDay(daysSince1970: days),
                time: ClockTime(nanosecondOfDay: secondOfDay * ClockTime.nanosecondsPerSecond, fractionDigits: 0),
                offset: .zero
            )
        }

        /// The current instant in UTC, to the millisecond.
        public static func now() -> DateTime {
            DateTime(Foundation.Date(), timeZone: .utc)
        }

        /// The value in the canonical form of `AWSDateTime`, such as `2024-01-02T03:04:05.678Z`.
        public var iso8601String: String {
            var text = ""
            text.reserveCapacity(40)
            day.write(to: &text)
            text.append("T")
            time.write(to: &text)
            offset.write(to: &text)
            return text
        }

        /// The instant, to the precision of `Foundation.Date`: about a microsecond today.
        public var foundationDate: Foundation.Date {
            Temporal.foundationDate(secondsSince1970: timestamp, nanoseconds: time.nanosecond)
        }

        /// The `AWSTimestamp` of the instant: whole seconds since 1970-01-01T00:00:00Z, rounded
        /// down.
        public var timestamp: Int {
            day.daysSince1970 * Temporal.secondsPerDay + time.secondOfDay - offset.seconds
        }
    }
}

extension Temporal.DateTime: Comparable {
    /// Orders by instant; at the same instant, by offset, then by the number of fraction digits.
    public static func < (lhs: Temporal.DateTime, rhs: Temporal.DateTime) -> Bool {
        (lhs.timestamp, lhs.time.nanosecond, lhs.offset.seconds, lhs.time.fractionDigits)
            < (rhs.timestamp, rhs.time.nanosecond, rhs.offset.seconds, rhs.time.fractionDigits)
    }
}

extension Temporal.DateTime: Codable {
    /// Reads the value from a single string.
    ///
    /// - Throws: `DecodingError.dataCorrupted` with the ``TemporalError`` as its underlying error
    ///   when the string is not a valid `AWSDateTime`.
    public init(from decoder: any Decoder) throws {
        self = try Temporal.decode(from: decoder) { text throws(TemporalError) in
            try Temporal.DateTime(iso8601String: text)
        }
    }

    /// Writes ``iso8601String`` as a single string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso8601String)
    }
}

extension Temporal.DateTime: Persistable {
    /// ``iso8601String`` as a JSON string.
    public var persistableValue: JSONValue { .string(iso8601String) }
}

extension Temporal.DateTime: CustomStringConvertible {
    /// ``iso8601String``.
    public var description: String { iso8601String }
}
