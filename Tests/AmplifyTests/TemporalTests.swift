import Amplify
import Foundation
import Testing

/// The expected-format sentences that end every error message.
private enum Expected {
    static let date = "Expected YYYY-MM-DD, optionally followed by Z or ±hh:mm."
    static let dateTime = "Expected YYYY-MM-DDThh:mm[:ss[.sss]] followed by Z or ±hh:mm."
    static let time = "Expected hh:mm[:ss[.sss]], optionally followed by Z or ±hh:mm."
}

private func utcOffset(hours: Int, minutes: Int = 0) -> TimeZone {
    TimeZone(secondsFromGMT: (hours * 60 + minutes) * 60)!
}

@Suite("Temporal.Date")
struct TemporalDateTests {
    @Test(
        "Valid forms are written back in canonical form",
        arguments: [
            ("2024-01-02", "2024-01-02"),
            ("2024-01-02Z", "2024-01-02Z"),
            ("2024-01-02+00:00", "2024-01-02Z"),
            ("2024-01-02-00:00", "2024-01-02Z"),
            ("2024-01-02-08:00", "2024-01-02-08:00"),
            ("2024-01-02+05:45:30", "2024-01-02+05:45:30"),
            ("2024-01-02+01:00:00", "2024-01-02+01:00"),
            ("2024-01-02+18:00", "2024-01-02+18:00"),
            ("2024-01-02-18:00", "2024-01-02-18:00"),
            ("2024-01-31", "2024-01-31"),
            ("2024-04-30", "2024-04-30"),
            ("2024-12-31", "2024-12-31"),
            ("0000-01-01", "0000-01-01"),
            ("9999-12-31", "9999-12-31"),
        ]
    )
    func validForms(input: String, canonical: String) throws {
        let date = try Temporal.Date(iso8601String: input)
        #expect(date.iso8601String == canonical)
        #expect(date.description == canonical)
        #expect(try Temporal.Date(iso8601String: canonical) == date)
    }

    @Test(
        "Leap days exist in leap years only",
        arguments: [
            ("2024-02-29", true),
            ("2000-02-29", true),
            ("1600-02-29", true),
            ("0000-02-29", true),
            ("2023-02-29", false),
            ("1900-02-29", false),
            ("2100-02-29", false),
        ]
    )
    func leapDays(input: String, exists: Bool) {
        #expect((try? Temporal.Date(iso8601String: input))?.iso8601String == (exists ? input : nil))
    }

    @Test(
        "Invalid forms throw an error that quotes the input and shows the format",
        arguments: [
            ("", "it is empty"),
            ("2024-13-01", "the month must be 01...12"),
            ("2024-00-10", "the month must be 01...12"),
            ("2024-01-00", "the day must be 01...31 in 2024-01"),
            ("2024-01-32", "the day must be 01...31 in 2024-01"),
            ("2024-04-31", "the day must be 01...30 in 2024-04"),
            ("2024-02-30", "the day must be 01...29 in 2024-02"),
            ("2023-02-29", "the day must be 01...28 in 2023-02"),
            ("1900-02-29", "the day must be 01...28 in 1900-02"),
            ("2024-1-02", "found '-' instead of a digit"),
            ("24-01-02", "found '-' instead of a digit"),
            ("+2024-01-02", "found '+' instead of a digit"),
            ("2024/01/02", "found '/' instead of '-'"),
            ("2024-01", "it ends where '-' should be"),
            ("2024-01-0", "it ends where a digit should be"),
            ("2024-01-02T00:00Z", "found 'T' instead of Z, ±hh:mm or the end"),
            ("2024-01-02 ", "found ' ' instead of Z, ±hh:mm or the end"),
            ("2024-01-02z", "found 'z' instead of Z, ±hh:mm or the end"),
            ("2024-01-02ZZ", "found 'Z' instead of the end"),
            ("2024-01-02+05", "it ends where ':' should be"),
            ("2024-01-02+0500", "found '0' instead of ':'"),
            ("2024-01-02+19:00", "the UTC offset must be within ±18:00"),
            ("2024-01-02-18:00:01", "the UTC offset must be within ±18:00"),
            ("2024-01-02+05:60", "the minutes of the UTC offset must be 00...59"),
            ("2024-01-02+05:30:60", "the seconds of the UTC offset must be 00...59"),
            ("２０２４-01-02", "found '２' instead of a digit"),
            ("2024-01-02\n", "found '\\n' instead of Z, ±hh:mm or the end"),
        ]
    )
    func invalidForms(input: String, reason: String) throws {
        let error = try #require(throws: TemporalError.self) {
            try Temporal.Date(iso8601String: input)
        }
        let quoted = input.replacingOccurrences(of: "\n", with: "\\n")
        #expect(error.description == "'\(quoted)' is not a valid AWSDate: \(reason). \(Expected.date)")
        #expect(error.input == input)
    }

    @Test func errorMessageForAMonthOutOfRange() throws {
        let error = try #require(throws: TemporalError.self) {
            try Temporal.Date(iso8601String: "2024-13-01")
        }
        #expect(
            error.description
                == "'2024-13-01' is not a valid AWSDate: the month must be 01...12. Expected YYYY-MM-DD, optionally followed by Z or ±hh:mm."
        )
    }

    @Test func errorMessageShortensALongInput() throws {
        let input = "2024-01-02" + String(repeating: "x", count: 100)
        let error = try #require(throws: TemporalError.self) {
            try Temporal.Date(iso8601String: input)
        }
        let shortened = "2024-01-02" + String(repeating: "x", count: 54) + "…"
        #expect(
            error.description
                == "'\(shortened)' is not a valid AWSDate: found 'x' instead of Z, ±hh:mm or the end. \(Expected.date)"
        )
        #expect(error.input == input)
    }

    @Test func orderIsByTheStartOfTheDay() throws {
        let texts = ["2024-01-03+14:00", "2024-01-02-03:00", "2024-01-02Z", "2024-01-02", "2024-01-02+05:00"]
        let dates = try texts.map { try Temporal.Date(iso8601String: $0) }
        // 2024-01-02+05:00 starts at 2024-01-01T19:00Z; 2024-01-02 and 2024-01-02Z start at
        // 2024-01-02T00:00Z, the one without an offset first; 2024-01-02-03:00 starts at
        // 2024-01-02T03:00Z; 2024-01-03+14:00 at 2024-01-02T10:00Z.
        #expect(
            dates.sorted().map(\.iso8601String) == [
                "2024-01-02+05:00", "2024-01-02", "2024-01-02Z", "2024-01-02-03:00", "2024-01-03+14:00",
            ]
        )
        #expect(try Temporal.Date(iso8601String: "2024-01-02") != Temporal.Date(iso8601String: "2024-01-02Z"))
        #expect(try Temporal.Date(iso8601String: "2023-12-31") < Temporal.Date(iso8601String: "2024-01-01"))
        #expect(try Temporal.Date(iso8601String: "0999-12-31") < Temporal.Date(iso8601String: "1000-01-01"))
    }

    @Test func foundationDateIsMidnightInTheOffset() throws {
        #expect(
            try Temporal.Date(iso8601String: "2024-01-02").foundationDate
                == Date(timeIntervalSince1970: 1_704_153_600)
        )
        #expect(
            try Temporal.Date(iso8601String: "2024-01-02+05:00").foundationDate
                == Date(timeIntervalSince1970: 1_704_153_600 - 5 * 3_600)
        )
        #expect(
            try Temporal.Date(iso8601String: "1969-12-31-00:30").foundationDate
                == Date(timeIntervalSince1970: -86_400 + 1_800)
        )
    }

    @Test func initializerFromFoundationDateTakesTheDayInTheTimeZone() {
        let instant = Date(timeIntervalSince1970: 1_704_196_800)  // 2024-01-02T12:00:00Z
        #expect(Temporal.Date(instant).iso8601String == "2024-01-02")
        #expect(Temporal.Date(instant, timeZone: utcOffset(hours: -13)).iso8601String == "2024-01-01")
        #expect(Temporal.Date(instant, timeZone: utcOffset(hours: 14)).iso8601String == "2024-01-03")
    }

    @Test func nowIsTodayInUTC() {
        let before = Temporal.Date(Date(), timeZone: .utc)
        let now = Temporal.Date.now()
        let after = Temporal.Date(Date(), timeZone: .utc)
        #expect(now == before || now == after)
        #expect(now.iso8601String.count == 10)
    }

    @Test func persistableValueIsTheCanonicalString() throws {
        let date = try Temporal.Date(iso8601String: "2024-01-02+00:00")
        #expect(date.persistableValue == .string("2024-01-02Z"))
    }
}

@Suite("Temporal.DateTime")
struct TemporalDateTimeTests {
    @Test(
        "Valid forms are written back in canonical form",
        arguments: [
            ("2024-01-02T03:04Z", "2024-01-02T03:04:00Z"),
            ("2024-01-02T03:04:05Z", "2024-01-02T03:04:05Z"),
            ("2024-01-02T03:04:05.1Z", "2024-01-02T03:04:05.1Z"),
            ("2024-01-02T03:04:05.000Z", "2024-01-02T03:04:05.000Z"),
            ("2024-01-02T03:04:05.123456789Z", "2024-01-02T03:04:05.123456789Z"),
            ("2024-01-02T03:04:05+00:00", "2024-01-02T03:04:05Z"),
            ("2024-01-02T03:04:05-00:00", "2024-01-02T03:04:05Z"),
            ("2024-01-02T03:04:05+05:30", "2024-01-02T03:04:05+05:30"),
            ("2024-01-02T03:04:05-03:30:15", "2024-01-02T03:04:05-03:30:15"),
            ("2024-01-02T03:04:05+01:00:00", "2024-01-02T03:04:05+01:00"),
            ("2024-01-02T03:04+18:00", "2024-01-02T03:04:00+18:00"),
            ("2024-01-02T03:04-18:00", "2024-01-02T03:04:00-18:00"),
            ("2024-02-29T00:00Z", "2024-02-29T00:00:00Z"),
            ("0000-01-01T00:00:00Z", "0000-01-01T00:00:00Z"),
            ("9999-12-31T23:59:59.999999999+14:00", "9999-12-31T23:59:59.999999999+14:00"),
        ]
    )
    func validForms(input: String, canonical: String) throws {
        let dateTime = try Temporal.DateTime(iso8601String: input)
        #expect(dateTime.iso8601String == canonical)
        #expect(dateTime.description == canonical)
        #expect(try Temporal.DateTime(iso8601String: canonical) == dateTime)
    }

    @Test(
        "Invalid forms throw an error that quotes the input and shows the format",
        arguments: [
            ("", "it is empty"),
            ("2024-01-02", "it ends where 'T' should be"),
            ("2024-01-02T03:04:05", "the UTC offset is missing"),
            ("2024-01-02T03:04", "the UTC offset is missing"),
            ("2024-01-02 03:04:05Z", "found ' ' instead of 'T'"),
            ("2024-01-02t03:04:05Z", "found 't' instead of 'T'"),
            ("2024-13-02T03:04:05Z", "the month must be 01...12"),
            ("2023-02-29T03:04:05Z", "the day must be 01...28 in 2023-02"),
            ("2024-01-02T24:00:00Z", "the hour must be 00...23"),
            ("2024-01-02T03:60:00Z", "the minute must be 00...59"),
            ("2024-01-02T23:59:60Z", "the second must be 00...59; leap seconds are not supported"),
            ("2024-01-02T3:04:05Z", "found ':' instead of a digit"),
            ("2024-01-02T03", "it ends where ':' should be"),
            ("2024-01-02T03:04:05.Z", "found 'Z' instead of a digit"),
            ("2024-01-02T03:04:05.", "it ends where a digit should be"),
            ("2024-01-02T03:04:05,5Z", "found ',' instead of Z or ±hh:mm"),
            ("2024-01-02T03:04:05.1234567890Z", "the fraction has 10 digits; it must have 1 to 9"),
            ("2024-01-02T03:04.5Z", "found '.' instead of Z or ±hh:mm"),
            ("2024-01-02T03:04:05z", "found 'z' instead of Z or ±hh:mm"),
            ("2024-01-02T03:04:05 Z", "found ' ' instead of Z or ±hh:mm"),
            ("2024-01-02T03:04:05Z ", "found ' ' instead of the end"),
            ("2024-01-02T03:04:05+05:30Z", "found 'Z' instead of the end"),
            ("2024-01-02T03:04:05+", "it ends where a digit should be"),
            ("2024-01-02T03:04:05+0530", "found '3' instead of ':'"),
            ("2024-01-02T03:04:05+18:01", "the UTC offset must be within ±18:00"),
            ("2024-01-02T03:04:05+99:00", "the UTC offset must be within ±18:00"),
            ("2024-01-02T03:04:05+05:60", "the minutes of the UTC offset must be 00...59"),
            ("2024-01-02T03:04:05+05:30:60", "the seconds of the UTC offset must be 00...59"),
            ("2024-01-02T03:04:05🕒", "found '🕒' instead of Z or ±hh:mm"),
        ]
    )
    func invalidForms(input: String, reason: String) throws {
        let error = try #require(throws: TemporalError.self) {
            try Temporal.DateTime(iso8601String: input)
        }
        #expect(error.description == "'\(input)' is not a valid AWSDateTime: \(reason). \(Expected.dateTime)")
        #expect(error.input == input)
    }

    @Test func errorMessageForAMissingOffset() throws {
        let error = try #require(throws: TemporalError.self) {
            try Temporal.DateTime(iso8601String: "2024-01-02T03:04:05")
        }
        #expect(
            error.description
                == "'2024-01-02T03:04:05' is not a valid AWSDateTime: the UTC offset is missing. Expected YYYY-MM-DDThh:mm[:ss[.sss]] followed by Z or ±hh:mm."
        )
    }

    @Test("Fractions of 1 to 9 digits round trip", arguments: 1...9)
    func fractionDigits(count: Int) throws {
        let digits = String("123456789".prefix(count))
        let text = "2024-01-02T03:04:05.\(digits)+01:00"
        let dateTime = try Temporal.DateTime(iso8601String: text)
        #expect(dateTime.iso8601String == text)
        let fraction = try #require(Double("0." + digits))
        let expected = Date(timeIntervalSince1970: 1_704_164_645 - 3_600 + fraction)
        #expect(abs(dateTime.foundationDate.timeIntervalSince(expected)) < 1e-6)
        #expect(dateTime.timestamp == 1_704_164_645 - 3_600)
    }

    @Test("Trailing zeros make a different value at the same instant", arguments: 1...8)
    func trailingZeros(count: Int) throws {
        let shorter = try Temporal.DateTime(
            iso8601String: "2024-01-02T03:04:05." + String(repeating: "0", count: count) + "Z"
        )
        let longer = try Temporal.DateTime(
            iso8601String: "2024-01-02T03:04:05." + String(repeating: "0", count: count + 1) + "Z"
        )
        #expect(shorter != longer)
        #expect(shorter < longer)
        #expect(!(longer < shorter))
        #expect(shorter.foundationDate == longer.foundationDate)
    }

    @Test func orderIsByInstantAcrossOffsets() throws {
        let texts = [
            "2024-01-01T23:30:00-05:00",  // 2024-01-02T04:30Z
            "2024-01-01T09:00:00Z",  // 2024-01-01T09:00Z
            "2024-01-02T03:00:00.5Z",  // 2024-01-02T03:00:00.5Z
            "2024-01-01T10:00:00+02:00",  // 2024-01-01T08:00Z
            "2024-01-02T03:00:00.25Z",  // 2024-01-02T03:00:00.25Z
        ]
        let sorted = try texts.map { try Temporal.DateTime(iso8601String: $0) }.sorted()
        #expect(
            sorted.map(\.iso8601String) == [
                "2024-01-01T10:00:00+02:00",
                "2024-01-01T09:00:00Z",
                "2024-01-02T03:00:00.25Z",
                "2024-01-02T03:00:00.5Z",
                "2024-01-01T23:30:00-05:00",
            ]
        )
    }

    @Test func theSameInstantInDifferentOffsetsIsOrderedByOffset() throws {
        let utc = try Temporal.DateTime(iso8601String: "2024-01-01T12:00:00Z")
        let east = try Temporal.DateTime(iso8601String: "2024-01-01T13:00:00+01:00")
        let west = try Temporal.DateTime(iso8601String: "2024-01-01T11:00:00-01:00")
        #expect(utc != east)
        #expect(utc.timestamp == east.timestamp)
        #expect(utc.foundationDate == east.foundationDate)
        #expect([east, utc, west].sorted() == [west, utc, east])
        #expect(Set([utc, east, west, try Temporal.DateTime(iso8601String: "2024-01-01T12:00+00:00")]).count == 3)
    }

    @Test(
        "Timestamps convert both ways",
        arguments: [
            (0, "1970-01-01T00:00:00Z"),
            (-1, "1969-12-31T23:59:59Z"),
            (1_704_164_645, "2024-01-02T03:04:05Z"),
            (951_782_400, "2000-02-29T00:00:00Z"),
            (-62_167_219_200, "0000-01-01T00:00:00Z"),
            (253_402_300_799, "9999-12-31T23:59:59Z"),
        ]
    )
    func timestamps(timestamp: Int, text: String) throws {
        #expect(Temporal.DateTime(timestamp: timestamp).iso8601String == text)
        #expect(try Temporal.DateTime(iso8601String: text).timestamp == timestamp)
    }

    @Test func timestampRoundsDownAndCountsTheOffset() throws {
        #expect(try Temporal.DateTime(iso8601String: "1969-12-31T23:59:59.5Z").timestamp == -1)
        #expect(try Temporal.DateTime(iso8601String: "1970-01-01T00:00:00.999999999Z").timestamp == 0)
        #expect(try Temporal.DateTime(iso8601String: "2024-01-02T09:30-05:00").timestamp == 1_704_205_800)
        #expect(try Temporal.DateTime(iso8601String: "1970-01-01T05:30:00+05:30").timestamp == 0)
    }

    @Test func daysAgreeWithTheGregorianCalendar() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .utc
        var mismatches: [String] = []
        // Every 29th day of the years 0000 through 9999, so that every day of the month is met.
        for day in stride(from: -719_528, through: 2_932_896, by: 29) {
            let dateTime = Temporal.DateTime(timestamp: day * 86_400)
            let text = dateTime.iso8601String
            guard (try? Temporal.DateTime(iso8601String: text)) == dateTime, dateTime.timestamp == day * 86_400 else {
                mismatches.append("day \(day) does not round trip through \(text)")
                continue
            }
            // Foundation's calendar is Julian before October 1582, so it is compared from
            // 1583-01-01 on.
            guard day >= -141_349 else { continue }
            let components = calendar.dateComponents([.year, .month, .day], from: dateTime.foundationDate)
            let expected = String(
                format: "%04d-%02d-%02dT00:00:00Z",
                components.year ?? -1,
                components.month ?? -1,
                components.day ?? -1
            )
            if text != expected { mismatches.append("day \(day) is \(text), not \(expected)") }
        }
        #expect(mismatches.prefix(5) == [])
    }

    @Test func foundationDateIsTheInstant() throws {
        let dateTime = try Temporal.DateTime(iso8601String: "2024-01-02T03:04:05.25+01:00")
        #expect(dateTime.foundationDate == Date(timeIntervalSince1970: 1_704_164_645.25 - 3_600))
    }

    @Test func initializerFromFoundationDateKeepsMillisecondsAndTheOffset() throws {
        let instant = Date(timeIntervalSince1970: 1_704_164_645.678)
        #expect(Temporal.DateTime(instant).iso8601String == "2024-01-02T03:04:05.678Z")
        #expect(
            Temporal.DateTime(instant, timeZone: utcOffset(hours: 5, minutes: 30)).iso8601String
                == "2024-01-02T08:34:05.678+05:30"
        )
        #expect(
            Temporal.DateTime(instant, timeZone: utcOffset(hours: -5)).iso8601String
                == "2024-01-01T22:04:05.678-05:00"
        )
        #expect(
            Temporal.DateTime(Date(timeIntervalSince1970: -0.0004)).iso8601String == "1970-01-01T00:00:00.000Z"
        )
        #expect(
            Temporal.DateTime(Date(timeIntervalSince1970: -0.0006)).iso8601String == "1969-12-31T23:59:59.999Z"
        )
        let parsed = try Temporal.DateTime(iso8601String: "2024-01-02T03:04:05.678-07:00")
        #expect(Temporal.DateTime(parsed.foundationDate, timeZone: utcOffset(hours: -7)) == parsed)
    }

    @Test func initializerFromFoundationDateUsesTheOffsetAtThatDate() throws {
        let newYork = try #require(TimeZone(identifier: "America/New_York"))
        let winter = Date(timeIntervalSince1970: 1_704_110_400)  // 2024-01-01T12:00:00Z
        let summer = Date(timeIntervalSince1970: 1_719_835_200)  // 2024-07-01T12:00:00Z
        #expect(Temporal.DateTime(winter, timeZone: newYork).iso8601String == "2024-01-01T07:00:00.000-05:00")
        #expect(Temporal.DateTime(summer, timeZone: newYork).iso8601String == "2024-07-01T08:00:00.000-04:00")
    }

    @Test func nowIsTheCurrentInstantInUTC() {
        let now = Temporal.DateTime.now()
        #expect(abs(now.foundationDate.timeIntervalSinceNow) < 60)
        #expect(now.iso8601String.count == "2024-01-02T03:04:05.678Z".count)
        #expect(now.iso8601String.hasSuffix("Z"))
    }

    @Test func persistableValueIsTheCanonicalString() throws {
        let dateTime = try Temporal.DateTime(iso8601String: "2024-01-02T03:04+00:00")
        #expect(dateTime.persistableValue == .string("2024-01-02T03:04:00Z"))
    }
}

@Suite("Temporal.Time")
struct TemporalTimeTests {
    @Test(
        "Valid forms are written back in canonical form",
        arguments: [
            ("03:04", "03:04:00"),
            ("03:04:05", "03:04:05"),
            ("03:04:05.5", "03:04:05.5"),
            ("03:04:05.120", "03:04:05.120"),
            ("00:00", "00:00:00"),
            ("23:59:59.999999999", "23:59:59.999999999"),
            ("00:00Z", "00:00:00Z"),
            ("03:04:05+01:00", "03:04:05+01:00"),
            ("03:04:05.120-00:00", "03:04:05.120Z"),
            ("03:04-09:30:15", "03:04:00-09:30:15"),
        ]
    )
    func validForms(input: String, canonical: String) throws {
        let time = try Temporal.Time(iso8601String: input)
        #expect(time.iso8601String == canonical)
        #expect(time.description == canonical)
        #expect(try Temporal.Time(iso8601String: canonical) == time)
    }

    @Test(
        "Invalid forms throw an error that quotes the input and shows the format",
        arguments: [
            ("", "it is empty"),
            ("12", "it ends where ':' should be"),
            ("1200", "found '0' instead of ':'"),
            ("24:00", "the hour must be 00...23"),
            ("12:60", "the minute must be 00...59"),
            ("12:00:60", "the second must be 00...59; leap seconds are not supported"),
            ("12:00:00.", "it ends where a digit should be"),
            ("12:00:00.0000000001", "the fraction has 10 digits; it must have 1 to 9"),
            ("12:00:00 Z", "found ' ' instead of Z, ±hh:mm or the end"),
            ("12:00.5", "found '.' instead of Z, ±hh:mm or the end"),
            ("T12:00Z", "found 'T' instead of a digit"),
            ("12:00:00+19:00", "the UTC offset must be within ±18:00"),
            ("12:00:00Z+01:00", "found '+' instead of the end"),
        ]
    )
    func invalidForms(input: String, reason: String) throws {
        let error = try #require(throws: TemporalError.self) {
            try Temporal.Time(iso8601String: input)
        }
        #expect(error.description == "'\(input)' is not a valid AWSTime: \(reason). \(Expected.time)")
        #expect(error.input == input)
    }

    @Test("Fractions of 1 to 9 digits round trip", arguments: 1...9)
    func fractionDigits(count: Int) throws {
        let digits = String("987654321".prefix(count))
        let text = "23:59:59.\(digits)"
        let time = try Temporal.Time(iso8601String: text)
        #expect(time.iso8601String == text)
        let fraction = try #require(Double("0." + digits))
        #expect(abs(time.foundationDate.timeIntervalSince1970 - (86_399 + fraction)) < 1e-6)
    }

    @Test func orderIsByTheTimeInUTC() throws {
        let texts = ["00:30Z", "00:30", "01:00+02:00", "00:30:00.0", "23:00-01:00", "00:30+00:00:01"]
        let sorted = try texts.map { try Temporal.Time(iso8601String: $0) }.sorted()
        // 01:00+02:00 is 23:00 UTC the day before; 23:00-01:00 is 00:00 UTC the day after.
        #expect(
            sorted.map(\.iso8601String) == [
                "01:00:00+02:00", "00:30:00+00:00:01", "00:30:00", "00:30:00.0", "00:30:00Z", "23:00:00-01:00",
            ]
        )
    }

    @Test func foundationDateIsTheTimeOnTheFirstOfJanuary1970() throws {
        #expect(try Temporal.Time(iso8601String: "03:04:05.5").foundationDate == Date(timeIntervalSince1970: 11_045.5))
        #expect(
            try Temporal.Time(iso8601String: "03:04:05.5+01:00").foundationDate
                == Date(timeIntervalSince1970: 11_045.5 - 3_600)
        )
    }

    @Test func initializerFromFoundationDateTakesTheTimeInTheTimeZone() {
        let instant = Date(timeIntervalSince1970: 1_704_164_645.5)  // 2024-01-02T03:04:05.5Z
        #expect(Temporal.Time(instant).iso8601String == "03:04:05.500")
        #expect(Temporal.Time(instant, timeZone: utcOffset(hours: 5, minutes: 30)).iso8601String == "08:34:05.500")
        #expect(Temporal.Time(instant, timeZone: utcOffset(hours: -4)).iso8601String == "23:04:05.500")
    }

    @Test func nowIsTheCurrentTimeInUTC() {
        let now = Temporal.Time.now()
        let secondsSinceMidnight = Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400)
        let difference = abs(now.foundationDate.timeIntervalSince1970 - secondsSinceMidnight)
        #expect(difference < 60 || difference > 86_400 - 60)
        #expect(now.iso8601String.count == "03:04:05.678".count)
    }

    @Test func persistableValueIsTheCanonicalString() throws {
        #expect(try Temporal.Time(iso8601String: "03:04Z").persistableValue == .string("03:04:00Z"))
    }
}

@Suite("Temporal values in JSON")
struct TemporalCodableTests {
    struct Event: Codable, Equatable {
        var day: Temporal.Date
        var startsAt: Temporal.DateTime
        var opensAt: Temporal.Time
        var endsAt: Temporal.DateTime?
    }

    @Test func valuesAreWrittenAsCanonicalStrings() throws {
        let json = #"{"day":"2024-02-29+00:00","opensAt":"09:30","startsAt":"2024-01-02T03:04:05.120-08:00"}"#
        let event = try JSONDecoder().decode(Event.self, from: Data(json.utf8))
        #expect(
            try JSONEncoderHelper.encode(event)
                == #"{"day":"2024-02-29Z","opensAt":"09:30:00","startsAt":"2024-01-02T03:04:05.120-08:00"}"#
        )
        #expect(event.endsAt == nil)
    }

    @Test func valuesRoundTripExactly() throws {
        let event = Event(
            day: try Temporal.Date(iso8601String: "0001-01-01-12:00"),
            startsAt: try Temporal.DateTime(iso8601String: "9999-12-31T23:59:59.999999999+14:00"),
            opensAt: try Temporal.Time(iso8601String: "00:00:00.000000001Z"),
            endsAt: Temporal.DateTime(timestamp: 1_704_164_645)
        )
        let json = try JSONEncoderHelper.encode(event)
        #expect(
            json
                == #"{"day":"0001-01-01-12:00","endsAt":"2024-01-02T03:04:05Z","opensAt":"00:00:00.000000001Z","startsAt":"9999-12-31T23:59:59.999999999+14:00"}"#
        )
        #expect(try JSONDecoder().decode(Event.self, from: Data(json.utf8)) == event)
    }

    @Test func valuesRoundTripThroughJSONValue() throws {
        let dateTime = try Temporal.DateTime(iso8601String: "2024-01-02T03:04:05.6+05:30")
        let value = try JSONValue(encoding: ["at": dateTime])
        #expect(value == ["at": "2024-01-02T03:04:05.6+05:30"])
        #expect(try value.decode(as: [String: Temporal.DateTime].self) == ["at": dateTime])
    }

    @Test func anInvalidStringIsDataCorruption() throws {
        let json = #"{"day":"2024-02-30","opensAt":"09:30","startsAt":"2024-01-02T03:04:05Z"}"#
        let error = try #require(throws: DecodingError.self) {
            try JSONDecoder().decode(Event.self, from: Data(json.utf8))
        }
        guard case .dataCorrupted(let context) = error else {
            Issue.record("Expected dataCorrupted, got \(error)")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["day"])
        #expect(
            context.debugDescription
                == "'2024-02-30' is not a valid AWSDate: the day must be 01...29 in 2024-02. \(Expected.date)"
        )
        let underlying = try #require(context.underlyingError as? TemporalError)
        #expect(underlying.input == "2024-02-30")
    }

    @Test func aNumberIsATypeMismatch() throws {
        let json = #"{"day":"2024-02-29","opensAt":"09:30","startsAt":1704164645}"#
        let error = try #require(throws: DecodingError.self) {
            try JSONDecoder().decode(Event.self, from: Data(json.utf8))
        }
        guard case .typeMismatch(let type, let context) = error else {
            Issue.record("Expected typeMismatch, got \(error)")
            return
        }
        #expect(ObjectIdentifier(type) == ObjectIdentifier(String.self))
        #expect(context.codingPath.map(\.stringValue) == ["startsAt"])
    }
}
