/// The error thrown when a string is not a valid `AWSDate`, `AWSDateTime` or `AWSTime`.
///
/// The ``description`` quotes the text, says what is wrong with it and shows the expected format:
///
/// ```swift
/// do {
///     _ = try Temporal.Date(iso8601String: "2024-13-01")
/// } catch {
///     print(error)
///     // '2024-13-01' is not a valid AWSDate: the month must be 01...12. Expected YYYY-MM-DD,
///     // optionally followed by Z or ±hh:mm.
/// }
/// ```
public struct TemporalError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text that could not be read.
    public let input: String

    private let scalar: Scalar
    private let reason: Reason

    init(input: String, scalar: Scalar, reason: Reason) {
        self.input = input
        self.scalar = scalar
        self.reason = reason
    }

    /// A sentence that quotes the text, says what is wrong with it and shows the expected format.
    public var description: String {
        "'\(quotedInput)' is not a valid \(scalar.name): \(reason). \(scalar.expectedFormat)"
    }

    /// The input with control characters escaped, shortened when it is long.
    private var quotedInput: String {
        let limit = 64
        var quoted = ""
        for (index, scalar) in input.unicodeScalars.enumerated() {
            guard index < limit else {
                quoted.append("…")
                break
            }
            quoted.append(Self.visible(scalar))
        }
        return quoted
    }

    /// `scalar`, or its escape sequence when it is an ASCII control character such as a newline.
    fileprivate static func visible(_ scalar: Unicode.Scalar) -> String {
        scalar.value < 0x20 || scalar.value == 0x7F ? scalar.escaped(asASCII: true) : String(scalar)
    }
}

extension TemporalError {
    /// The AppSync scalar that was read.
    enum Scalar: Sendable, Hashable {
        case date
        case dateTime
        case time

        var name: String {
            switch self {
            case .date: return "AWSDate"
            case .dateTime: return "AWSDateTime"
            case .time: return "AWSTime"
            }
        }

        var expectedFormat: String {
            switch self {
            case .date: return "Expected YYYY-MM-DD, optionally followed by Z or ±hh:mm."
            case .dateTime: return "Expected YYYY-MM-DDThh:mm[:ss[.sss]] followed by Z or ±hh:mm."
            case .time: return "Expected hh:mm[:ss[.sss]], optionally followed by Z or ±hh:mm."
            }
        }
    }

    /// What is wrong with the text.
    enum Reason: Sendable, Hashable, CustomStringConvertible {
        case empty
        case unexpected(found: Unicode.Scalar, expected: String)
        case truncated(expected: String)
        case missingOffset
        case month
        case day(numberOfDays: Int, year: Int, month: Int)
        case hour
        case minute
        case second
        case fractionDigits(Int)
        case offsetMinute
        case offsetSecond
        case offsetRange

        var description: String {
            switch self {
            case .empty:
                return "it is empty"
            case .unexpected(let found, let expected):
                return "found '\(TemporalError.visible(found))' instead of \(expected)"
            case .truncated(let expected):
                return "it ends where \(expected) should be"
            case .missingOffset:
                return "the UTC offset is missing"
            case .month:
                return "the month must be 01...12"
            case .day(let numberOfDays, let year, let month):
                var yearMonth = ""
                yearMonth.appendDigits(of: year, count: 4)
                yearMonth.append("-")
                yearMonth.appendDigits(of: month, count: 2)
                return "the day must be 01...\(numberOfDays) in \(yearMonth)"
            case .hour:
                return "the hour must be 00...23"
            case .minute:
                return "the minute must be 00...59"
            case .second:
                return "the second must be 00...59; leap seconds are not supported"
            case .fractionDigits(let count):
                return "the fraction has \(count) digits; it must have 1 to 9"
            case .offsetMinute:
                return "the minutes of the UTC offset must be 00...59"
            case .offsetSecond:
                return "the seconds of the UTC offset must be 00...59"
            case .offsetRange:
                return "the UTC offset must be within ±18:00"
            }
        }
    }
}
