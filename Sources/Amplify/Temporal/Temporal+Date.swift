import Foundation

extension Temporal {
    /// An `AWSDate`: a calendar day, `YYYY-MM-DD`, with an optional UTC offset.
    ///
    /// The offset is `Z` or `±hh:mm[:ss]`, and a zero offset is written `Z` (see ``Temporal`` for
    /// the canonical form). Values are ordered by the instant their day starts: at midnight in
    /// their offset when they have one, else at midnight UTC.
    ///
    /// ```swift
    /// let birthday = try Temporal.Date(iso8601String: "2024-02-29")
    /// birthday.iso8601String                                   // "2024-02-29"
    /// try Temporal.Date(iso8601String: "2024-02-29+00:00").iso8601String  // "2024-02-29Z"
    /// ```
    public struct Date: Sendable, Hashable {
        let day: CalendarDay
        let offset: UTCOffset?

        init(day: CalendarDay, offset: UTCOffset?) {
            self.day = day
            self.offset = offset
        }

        /// Reads an `AWSDate`: `YYYY-MM-DD`, optionally followed by `Z` or `±hh:mm[:ss]`.
        ///
        /// - Throws: ``TemporalError`` when the text does not have this format, or names a month,
        ///   a day or an offset that does not exist.
        public init(iso8601String: String) throws(TemporalError) {
            self = try Parser.parse(iso8601String, as: .date) { parser throws(TemporalError) in
                let day = try CalendarDay.read(from: &parser)
                let offset = try UTCOffset.read(from: &parser, expected: "Z, ±hh:mm or the end")
                return Date(day: day, offset: offset)
            }
        }

        /// The calendar day of `date` in `timeZone`, with no offset.
        ///
        /// ```swift
        /// let today = Temporal.Date(.now, timeZone: .current)
        /// ```
        ///
        /// - Precondition: `date` falls in the years 0000 through 9999.
        public init(_ date: Foundation.Date, timeZone: TimeZone = .utc) {
            self.init(day: Temporal.localTime(of: date, in: timeZone).day, offset: nil)
        }

        /// Today in UTC, with no offset.
        public static func now() -> Date {
            Date(Foundation.Date(), timeZone: .utc)
        }

        /// The value in the canonical form of `AWSDate`, such as `2024-01-02` or `2024-01-02+05:30`.
        public var iso8601String: String {
            var text = ""
            text.reserveCapacity(16)
            day.write(to: &text)
            offset?.write(to: &text)
            return text
        }

        /// The start of the day: midnight in the value's offset, or midnight UTC when it has none.
        public var foundationDate: Foundation.Date {
            Temporal.foundationDate(secondsSince1970: startSecondsSince1970, nanoseconds: 0)
        }

        /// The seconds from 1970-01-01T00:00:00Z to the start of the day.
        private var startSecondsSince1970: Int {
            day.daysSince1970 * Temporal.secondsPerDay - (offset?.seconds ?? 0)
        }
    }
}

extension Temporal.Date: Comparable {
    /// Orders by the start of the day; at the same instant, a date without an offset comes first,
    /// then smaller offsets.
    public static func < (lhs: Temporal.Date, rhs: Temporal.Date) -> Bool {
        (lhs.startSecondsSince1970, lhs.offset?.seconds ?? Int.min)
            < (rhs.startSecondsSince1970, rhs.offset?.seconds ?? Int.min)
    }
}

extension Temporal.Date: Codable {
    /// Reads the value from a single string.
    ///
    /// - Throws: `DecodingError.dataCorrupted` with the ``TemporalError`` as its underlying error
    ///   when the string is not a valid `AWSDate`.
    public init(from decoder: any Decoder) throws {
        self = try Temporal.decode(from: decoder) { text throws(TemporalError) in
            try Temporal.Date(iso8601String: text)
        }
    }

    /// Writes ``iso8601String`` as a single string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso8601String)
    }
}

extension Temporal.Date: Persistable {
    /// ``iso8601String`` as a JSON string.
    public var persistableValue: JSONValue { .string(iso8601String) }
}

extension Temporal.Date: CustomStringConvertible {
    /// ``iso8601String``.
    public var description: String { iso8601String }
}
