import Foundation

/// The AppSync date and time scalars: ``Date`` (`AWSDate`), ``DateTime`` (`AWSDateTime`) and
/// ``Time`` (`AWSTime`).
///
/// Each value keeps the text it was read from: its fields, its UTC offset and the number of
/// fraction digits. Reading a string and writing it back gives the string in its canonical form:
///
/// - The seconds are always written: `03:04` becomes `03:04:00`.
/// - The fraction keeps its digits, trailing zeros included: `03:04:05.10` stays `03:04:05.10`.
/// - A zero offset is written `Z`: `+00:00` and `-00:00` become `Z`. Other offsets are written
///   `±hh:mm`, or `±hh:mm:ss` when they have seconds.
///
/// Two values are equal when they write the same string. They are ordered by the instant they
/// name; values that name the same instant in different ways are ordered by offset, then by the
/// number of fraction digits, so that the order agrees with equality.
///
/// The parser is strict: `T` and `Z` are upper case, the fields have exactly two digits (four for
/// the year, 0000 through 9999), and a fraction has 1 to 9 digits. Leap seconds (second 60) are
/// rejected, because `Foundation.Date` cannot name them, and so is the hour 24. Offsets may be
/// at most 18 hours either way.
///
/// `AWSTimestamp`, the number of seconds since 1970-01-01T00:00:00Z, is a plain `Int`; see
/// ``DateTime/init(timestamp:)`` and ``DateTime/timestamp``.
///
/// ```swift
/// let createdAt = try Temporal.DateTime(iso8601String: "2024-01-02T03:04+01:00")
/// createdAt.iso8601String  // "2024-01-02T03:04:00+01:00"
/// createdAt.timestamp      // 1704161040
/// ```
public enum Temporal {}

extension Temporal {
    /// Decodes a value written as one ISO 8601 string.
    static func decode<Value>(
        from decoder: any Decoder,
        _ parse: (String) throws(TemporalError) -> Value
    ) throws -> Value {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            return try parse(text)
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: error.description,
                    underlyingError: error
                )
            )
        }
    }

    /// The number of seconds from 1970-01-01T00:00:00Z to 2001-01-01T00:00:00Z, the reference
    /// date of `Foundation.Date`.
    static let secondsFrom1970To2001 = 978_307_200

    /// The `Foundation.Date` that is `seconds` and `nanoseconds` after 1970-01-01T00:00:00Z.
    static func foundationDate(secondsSince1970 seconds: Int, nanoseconds: Int) -> Foundation.Date {
        // Subtracting in integers first keeps the most precision the Double allows.
        Foundation.Date(
            timeIntervalSinceReferenceDate: Double(seconds - secondsFrom1970To2001) + Double(nanoseconds) / 1e9
        )
    }

    /// The wall clock reading of `date` in `timeZone`, to the millisecond.
    static func localTime(
        of date: Foundation.Date,
        in timeZone: TimeZone
    ) -> (day: CalendarDay, time: ClockTime, offset: UTCOffset) {
        let interval = date.timeIntervalSinceReferenceDate
        precondition(
            interval.isFinite && abs(interval) < 1e15,
            "\(date) is outside the years 0000 through 9999 that the AppSync scalars can write."
        )
        let milliseconds = Int((interval * 1000).rounded()) + secondsFrom1970To2001 * 1000
        let offset = UTCOffset(seconds: timeZone.secondsFromGMT(for: date))
        let (seconds, millisecond) = floorDivision(milliseconds, 1000)
        let (days, secondOfDay) = floorDivision(seconds + offset.seconds, secondsPerDay)
        let time = ClockTime(
            nanosecondOfDay: secondOfDay * ClockTime.nanosecondsPerSecond + millisecond * 1_000_000,
            fractionDigits: 3
        )
        return (CalendarDay(daysSince1970: days), time, offset)
    }

    /// The number of seconds in a day.
    static let secondsPerDay = 86_400

    /// The quotient rounded down and a remainder of the sign of `divisor`.
    static func floorDivision(_ dividend: Int, _ divisor: Int) -> (quotient: Int, remainder: Int) {
        let remainder = dividend % divisor
        return remainder < 0 ? (dividend / divisor - 1, remainder + divisor) : (dividend / divisor, remainder)
    }
}
