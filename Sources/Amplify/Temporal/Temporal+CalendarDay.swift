import AWSWire

extension Temporal {
    /// A day of the proleptic Gregorian calendar, in the years 0000 through 9999.
    struct CalendarDay: Sendable, Hashable {
        /// The year, 0...9999.
        let year: Int
        /// The month, 1...12.
        let month: Int
        /// The day of the month, 1...28, 29, 30 or 31.
        let day: Int

        /// The day whose fields have already been checked.
        init(checkedYear year: Int, month: Int, day: Int) {
            self.year = year
            self.month = month
            self.day = day
        }

        /// The day that is `days` days after 1970-01-01, as `AWSWire`'s `CivilDate` counts.
        init(daysSince1970 days: Int) {
            precondition(
                (Self.firstDaysSince1970...Self.lastDaysSince1970).contains(days),
                "Day \(days) after 1970-01-01 is outside the years 0000 through 9999 that the AppSync scalars can write."
            )
            let date = CivilDate(daysSince1970: days)
            self.init(checkedYear: date.year, month: date.month, day: date.day)
        }

        /// The number of days from 1970-01-01 to this day.
        var daysSince1970: Int {
            CivilDate(year: year, month: month, day: day).daysSince1970
        }

        /// The number of days from 1970-01-01 to 0000-01-01.
        static let firstDaysSince1970 = -719_528
        /// The number of days from 1970-01-01 to 9999-12-31.
        static let lastDaysSince1970 = 2_932_896

        /// Reads `YYYY-MM-DD` and checks the month and the day.
        static func read(from parser: inout Parser) throws(TemporalError) -> CalendarDay {
            let year = try parser.readDigits(4)
            try parser.read(UInt8(ascii: "-"))
            let month = try parser.readDigits(2)
            guard (1...12).contains(month) else { throw parser.error(.month) }
            try parser.read(UInt8(ascii: "-"))
            let day = try parser.readDigits(2)
            let numberOfDays = CivilDate.numberOfDays(inMonth: month, year: year)
            guard (1...numberOfDays).contains(day) else {
                throw parser.error(.day(numberOfDays: numberOfDays, year: year, month: month))
            }
            return CalendarDay(checkedYear: year, month: month, day: day)
        }

        /// Writes `YYYY-MM-DD`.
        func write(to text: inout String) {
            text.appendDigits(of: year, count: 4)
            text.append("-")
            text.appendDigits(of: month, count: 2)
            text.append("-")
            text.appendDigits(of: day, count: 2)
        }
    }
}
