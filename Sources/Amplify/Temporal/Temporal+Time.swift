import Foundation

extension Temporal {
    /// An `AWSTime`: a time of day, `hh:mm[:ss[.f]]`, with an optional UTC offset.
    ///
    /// The seconds and a fraction of 1 to 9 digits are optional, and the offset is `Z` or
    /// `±hh:mm[:ss]`; see ``Temporal`` for the canonical form. Values are ordered by their time in
    /// UTC when they have an offset, else by their local time, as if all were on the same day:
    /// `01:00+02:00` is 23:00 UTC the day before, so it comes before `00:30Z`.
    ///
    /// ```swift
    /// let opening = try Temporal.Time(iso8601String: "09:30")
    /// opening.iso8601String  // "09:30:00"
    /// ```
    public struct Time: Sendable, Hashable {
        let time: ClockTime
        let offset: UTCOffset?

        init(time: ClockTime, offset: UTCOffset?) {
            self.time = time
            self.offset = offset
        }

        /// Reads an `AWSTime`: `hh:mm[:ss[.f]]`, with 1 to 9 fraction digits, optionally followed
        /// by `Z` or `±hh:mm[:ss]`.
        ///
        /// - Throws: ``TemporalError`` when the text does not have this format, or names a time or
        ///   an offset that does not exist.
        public init(iso8601String: String) throws(TemporalError) {
            self = try Parser.parse(iso8601String, as: .time) { parser throws(TemporalError) in
                let time = try ClockTime.read(from: &parser)
                let offset = try UTCOffset.read(from: &parser, expected: "Z, ±hh:mm or the end")
                return Time(time: time, offset: offset)
            }
        }

        /// The time of day of `date` in `timeZone`, to the millisecond, with no offset.
        ///
        /// ```swift
        /// let tokyo = TimeZone(identifier: "Asia/Tokyo")!
        /// Temporal.Time(Date(timeIntervalSince1970: 0.25), timeZone: tokyo).iso8601String
        /// // "09:00:00.250"
        /// ```
        ///
        /// - Precondition: `date` falls in the years 0000 through 9999.
        public init(_ date: Foundation.Date, timeZone: TimeZone = .utc) {
            self.init(time: Temporal.localTime(of: date, in: timeZone).time, offset: nil)
        }

        /// The current time of day in UTC, to the millisecond, with no offset.
        public static func now() -> Time {
            Time(Foundation.Date(), timeZone: .utc)
        }

        /// The value in the canonical form of `AWSTime`, such as `03:04:05` or `03:04:05.678+01:00`.
        public var iso8601String: String {
            var text = ""
            text.reserveCapacity(28)
            time.write(to: &text)
            offset?.write(to: &text)
            return text
        }

        /// The time on 1970-01-01, in the value's offset, or in UTC when it has none.
        public var foundationDate: Foundation.Date {
            Temporal.foundationDate(
                secondsSince1970: time.secondOfDay - (offset?.seconds ?? 0),
                nanoseconds: time.nanosecond
            )
        }

        /// The nanoseconds from midnight UTC, or local midnight without an offset; negative or
        /// beyond a day when the offset moves the time to another day.
        private var nanosecondsFromMidnight: Int {
            time.nanosecondOfDay - (offset?.seconds ?? 0) * ClockTime.nanosecondsPerSecond
        }
    }
}

extension Temporal.Time: Comparable {
    /// Orders by time in UTC, or local time without an offset; at the same time, a value without
    /// an offset comes first, then smaller offsets, then fewer fraction digits.
    public static func < (lhs: Temporal.Time, rhs: Temporal.Time) -> Bool {
        (lhs.nanosecondsFromMidnight, lhs.offset?.seconds ?? Int.min, lhs.time.fractionDigits)
            < (rhs.nanosecondsFromMidnight, rhs.offset?.seconds ?? Int.min, rhs.time.fractionDigits)
    }
}

extension Temporal.Time: Codable {
    /// Reads the value from a single string.
    ///
    /// - Throws: `DecodingError.dataCorrupted` with the ``TemporalError`` as its underlying error
    ///   when the string is not a valid `AWSTime`.
    public init(from decoder: any Decoder) throws {
        self = try Temporal.decode(from: decoder) { text throws(TemporalError) in
            try Temporal.Time(iso8601String: text)
        }
    }

    /// Writes ``iso8601String`` as a single string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso8601String)
    }
}

extension Temporal.Time: Persistable {
    /// ``iso8601String`` as a JSON string.
    public var persistableValue: JSONValue { .string(iso8601String) }
}

extension Temporal.Time: CustomStringConvertible {
    /// ``iso8601String``.
    public var description: String { iso8601String }
}
