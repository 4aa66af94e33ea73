import Foundation
import Synchronization

/// A signing time in whole UTC seconds, in the formats SigV4 and HTTP use.
struct SigV4Timestamp: Hashable, Comparable {
    /// Seconds since 1970-01-01T00:00:00Z.
    let epochSeconds: Int64

    init(_ date: Date) {
        self.epochSeconds = Int64(date.timeIntervalSince1970.rounded(.down))
    }

    init(epochSeconds: Int64) {
        self.epochSeconds = epochSeconds
    }

    var date: Date {
        Date(timeIntervalSince1970: TimeInterval(epochSeconds))
    }

    static func < (a: SigV4Timestamp, b: SigV4Timestamp) -> Bool {
        a.epochSeconds < b.epochSeconds
    }

    func adding(seconds: Int64) -> SigV4Timestamp {
        SigV4Timestamp(epochSeconds: epochSeconds + seconds)
    }

    /// ISO 8601 basic format, as in `X-Amz-Date`: `20240102T030405Z`.
    var basic: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        appendBasic(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The date of the credential scope: `20240102`.
    var dateStamp: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8)
        let c = components
        appendDigits(c.year, 4, to: &bytes)
        appendDigits(c.month, 2, to: &bytes)
        appendDigits(c.day, 2, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``basic`` and ``dateStamp`` at once, for a signature, which needs both; the texts of the
    /// last second asked for are kept, since requests signed one after another share it.
    var basicAndDateStamp: (basic: String, dateStamp: String) {
        if let last = Self.lastFormatted.withLock({ $0 }), last.epochSeconds == epochSeconds {
            return (last.basic, last.dateStamp)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        appendBasic(to: &bytes)
        let dateEnd = bytes.firstIndex(of: UInt8(ascii: "T")) ?? bytes.count
        let texts = (
            basic: String(decoding: bytes, as: UTF8.self), dateStamp: String(decoding: bytes[..<dateEnd], as: UTF8.self)
        )
        Self.lastFormatted.withLock { $0 = (epochSeconds, texts.basic, texts.dateStamp) }
        return texts
    }

    private static let lastFormatted = Mutex<(epochSeconds: Int64, basic: String, dateStamp: String)?>(nil)

    /// Appends ``basic``, `20240102T030405Z`, to `bytes`.
    func appendBasic(to bytes: inout [UInt8]) {
        let c = components
        appendDigits(c.year, 4, to: &bytes)
        appendDigits(c.month, 2, to: &bytes)
        appendDigits(c.day, 2, to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        appendDigits(c.hour, 2, to: &bytes)
        appendDigits(c.minute, 2, to: &bytes)
        appendDigits(c.second, 2, to: &bytes)
        bytes.append(UInt8(ascii: "Z"))
    }

    /// An RFC 2822 date as Python's `email.utils.formatdate` writes it, which botocore puts in a
    /// `Date` header: `Tue, 02 Jan 2024 03:04:05 -0000`.
    var httpDate: String {
        let c = components
        let days = Int(floorDivide(epochSeconds, 86_400))
        // 1970-01-01 was a Thursday.
        let weekday = Self.weekdays[((days % 7) + 7 + 3) % 7]
        return "\(weekday), \(pad(c.day, 2)) \(Self.months[c.month - 1]) \(pad(c.year, 4)) "
            + "\(pad(c.hour, 2)):\(pad(c.minute, 2)):\(pad(c.second, 2)) -0000"
    }

    /// Parses ISO 8601 basic format, `yyyyMMdd'T'HHmmss'Z'`, exactly.
    init?(basic text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 16, bytes[8] == UInt8(ascii: "T"), bytes[15] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
            let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15)
        else { return nil }
        self.init(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// Parses an HTTP date such as `Tue, 02 Jan 2024 03:04:05 GMT`, or with a numeric zone such
    /// as `-0000` or `+0100`. The weekday is optional and not checked.
    init?(httpDate text: String) {
        var words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        if let first = words.first, first.hasSuffix(",") {
            words.removeFirst()
        }
        guard words.count == 5, let day = Int(words[0]), let monthIndex = Self.months.firstIndex(of: words[1]),
            let year = Int(words[2]), words[2].count == 4
        else { return nil }
        let time = words[3].split(separator: ":", omittingEmptySubsequences: false)
        guard time.count == 3, time.allSatisfy({ $0.count == 2 }), let hour = Int(time[0]), let minute = Int(time[1]),
            let second = Int(time[2])
        else { return nil }
        let offset: Int
        switch words[4] {
        case "GMT", "UT", "UTC", "Z":
            offset = 0
        case let zone where zone.count == 5 && (zone.hasPrefix("+") || zone.hasPrefix("-")):
            guard let hours = Int(zone.dropFirst().prefix(2)), let minutes = Int(zone.suffix(2)) else { return nil }
            offset = (zone.hasPrefix("-") ? -1 : 1) * (hours * 3600 + minutes * 60)
        default:
            return nil
        }
        self.init(year: year, month: monthIndex + 1, day: day, hour: hour, minute: minute, second: second)
        self = adding(seconds: Int64(-offset))
    }

    private init?(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        guard (1...12).contains(month), (1...CivilDate.numberOfDays(inMonth: month, year: year)).contains(day),
            (0...23).contains(hour),
            (0...59).contains(minute), (0...59).contains(second)
        else { return nil }
        let days = Int64(CivilDate(year: year, month: month, day: day).daysSince1970)
        self.epochSeconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    // MARK: - Calendar arithmetic (proleptic Gregorian, UTC)

    private static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private var components: (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        let days = floorDivide(epochSeconds, 86_400)
        let seconds = Int(epochSeconds - days * 86_400)
        let date = CivilDate(daysSince1970: Int(days))
        return (date.year, date.month, date.day, seconds / 3600, seconds / 60 % 60, seconds % 60)
    }
}

private func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
    let quotient = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
}

/// Appends `value` in decimal, left-padded with zeros to `width` digits, as ``pad(_:_:)`` writes it.
private func appendDigits(_ value: Int, _ width: Int, to bytes: inout [UInt8]) {
    var limit = 1
    for _ in 0..<width { limit *= 10 }
    guard value >= 0, value < limit else {
        bytes.append(contentsOf: pad(value, width).utf8)
        return
    }
    var divisor = limit / 10
    while divisor > 0 {
        bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
        divisor /= 10
    }
}

private func pad(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}

extension SigV4Signer {
    /// `date` as an `X-Amz-Date` value: `20240102T030405Z`.
    public static func amzDate(_ date: Date) -> String {
        SigV4Timestamp(date).basic
    }
}

extension Date {
    /// The time an HTTP date names, as in a response's `Date` header
    /// (`Tue, 02 Jan 2024 03:04:05 GMT`, or with a numeric zone); `nil` when `text` is not one.
    package init?(httpDate text: String) {
        guard let timestamp = SigV4Timestamp(httpDate: text) else { return nil }
        self = timestamp.date
    }
}
