import AWSWire
import Foundation

/// The wait a `Retry-After` header asks for: the one reader of it in the clients.
///
/// RFC 9110 §10.2.3 allows two forms, and both are read:
/// - delay-seconds, one or more ASCII digits (`120`); a number too large for `Int64` is read
///   as the longest wait `Int64` seconds can hold;
/// - an HTTP date, in any of the three formats of RFC 9110 §5.6.7: IMF-fixdate
///   (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 form
///   (`Sunday, 06-Nov-94 08:49:37 GMT`, whose two-digit year is taken as the nearest year with
///   those digits, never more than 50 years ahead) and asctime (`Sun Nov  6 08:49:37 1994`).
///   The wait runs from `now` to the date, rounded up to the millisecond; zero for a date past.
///
/// Whitespace around the value is ignored. Anything else (`-1`, `1.5`, `soon`, a date with
/// another zone than GMT or with an impossible day) is not a `Retry-After`: the initializers
/// return `nil`, and the caller waits its own backoff.
///
/// ```swift
/// RetryAfter("120", now: Date())?.delay  // .seconds(120)
/// RetryAfter(headers: response.headers, now: Date())?.delay
/// ```
public struct RetryAfter: Sendable, Hashable {
    /// How long to wait from now; zero for a date in the past.
    public var delay: Duration

    /// A wait of `delay`.
    public init(delay: Duration) {
        self.delay = delay
    }

    /// The wait `header` asks for, or `nil` when it is neither delay-seconds nor an HTTP date.
    ///
    /// - Parameters:
    ///   - header: The value of the `Retry-After` header.
    ///   - now: The date an HTTP date is measured from.
    public init?(_ header: String, now: Date) {
        let text = header.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            delay = .seconds(Int64(text) ?? Int64.max)
            return
        }
        guard let seconds = HTTPDate.secondsSince1970(text, now: now) else { return nil }
        let interval = Double(seconds) - now.timeIntervalSince1970
        delay = interval > 0 ? .milliseconds(Int64((interval * 1000).rounded(.up))) : .zero
    }

    /// The wait the `Retry-After` header of `headers` asks for (its name in any case), or `nil`
    /// when there is none or it cannot be read.
    public init?(headers: [String: String], now: Date) {
        guard let value = headers.first(where: { $0.key.lowercased() == "retry-after" })?.value else { return nil }
        self.init(value, now: now)
    }
}

/// The three date formats HTTP allows (RFC 9110 §5.6.7), read without a `DateFormatter`, whose
/// parsing depends on the platform's ICU and on a two-digit-year window.
enum HTTPDate {
    private static let shortDays: Set<Substring> = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDays: Set<Substring> = [
        "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
    ]
    private static let months: [Substring] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    /// The seconds since 1970 of an IMF-fixdate, RFC 850 or asctime date; `nil` for anything
    /// else. `now` places an RFC 850 two-digit year.
    static func secondsSince1970(_ text: String, now: Date) -> Int64? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        switch parts.count {
        case 6:
            // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
            guard parts[0].hasSuffix(","), shortDays.contains(parts[0].dropLast()), parts[5] == "GMT" else {
                return nil
            }
            return date(year: number(parts[3], digits: 4...4), month: parts[2], day: parts[1], time: parts[4])
        case 4:
            // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
            guard parts[0].hasSuffix(","), longDays.contains(parts[0].dropLast()), parts[3] == "GMT" else {
                return nil
            }
            let date = parts[1].split(separator: "-", omittingEmptySubsequences: false)
            guard date.count == 3, let twoDigits = number(date[2], digits: 2...2) else { return nil }
            return self.date(
                year: fullYear(twoDigits, now: now),
                month: date[1],
                day: date[0],
                time: parts[2]
            )
        case 5:
            // asctime: Sun Nov  6 08:49:37 1994
            guard shortDays.contains(parts[0]) else { return nil }
            return date(year: number(parts[4], digits: 4...4), month: parts[1], day: parts[2], time: parts[3])
        default:
            return nil
        }
    }

    /// The seconds since 1970 of a date and a `HH:MM:SS` time, when every part is valid.
    private static func date(year: Int?, month: Substring, day: Substring, time: Substring) -> Int64? {
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard let year, let monthIndex = months.firstIndex(of: month), let day = number(day, digits: 1...2),
            clock.count == 3, let hour = number(clock[0], digits: 2...2), let minute = number(clock[1], digits: 2...2),
            let second = number(clock[2], digits: 2...2),
            hour < 24, minute < 60, second <= 60,
            (1...CivilDate.numberOfDays(inMonth: monthIndex + 1, year: year)).contains(day)
        else { return nil }
        let days = CivilDate(year: year, month: monthIndex + 1, day: day).daysSince1970
        return Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// A number of `digits` ASCII digits.
    private static func number(_ text: Substring, digits: ClosedRange<Int>) -> Int? {
        guard digits.contains(text.utf8.count),
            text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return Int(text)
    }

    /// The year an RFC 850 two-digit year stands for: the one with those digits nearest to
    /// `now`'s year, and not more than 50 years ahead of it (RFC 9110 §5.6.7).
    private static func fullYear(_ twoDigits: Int, now: Date) -> Int {
        let today = Int((now.timeIntervalSince1970 / 86_400).rounded(.down))
        let current = CivilDate(daysSince1970: today).year
        var year = current - current % 100 + twoDigits
        if year > current + 50 { year -= 100 } else if year < current - 50 { year += 100 }
        return year
    }
}
