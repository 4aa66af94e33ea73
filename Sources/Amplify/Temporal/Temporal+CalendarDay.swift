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

        /// The day that is `days` days after 1970-01-01.
        ///
        /// The algorithm is Howard Hinnant's `civil_from_days`: it counts in eras of 400 years,
        /// with years that start on March 1 so that the leap day ends them.
        init(daysSince1970 days: Int) {
            precondition(
                (Self.firstDaysSince1970...Self.lastDaysSince1970).contains(days),
                "Day \(days) after 1970-01-01 is outside the years 0000 through 9999 that the AppSync scalars can write."
            )
            let shifted = days + 719_468
            let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
            let dayOfEra = shifted - era * 146_097
            let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
            let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
            let shiftedMonth = (5 * dayOfYear + 2) / 153
            let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
            self.init(
                checkedYear: yearOfEra + era * 400 + (month <= 2 ? 1 : 0),
                month: month,
                day: dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
            )
        }

        /// The number of days from 1970-01-01 to this day: Howard Hinnant's `days_from_civil`.
        var daysSince1970: Int {
            let marchYear = month <= 2 ? year - 1 : year
            let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
            let yearOfEra = marchYear - era * 400
            let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
            let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
            return era * 146_097 + dayOfEra - 719_468
        }

        /// The number of days from 1970-01-01 to 0000-01-01.
        static let firstDaysSince1970 = -719_528
        /// The number of days from 1970-01-01 to 9999-12-31.
        static let lastDaysSince1970 = 2_932_896

        /// Whether `year` has a February 29.
        static func isLeapYear(_ year: Int) -> Bool {
            year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        }

        /// The number of days in `month` of `year`.
        static func numberOfDays(inMonth month: Int, year: Int) -> Int {
            switch month {
            case 2: return isLeapYear(year) ? 29 : 28
            case 4, 6, 9, 11: return 30
            default: return 31
            }
        }

        /// Reads `YYYY-MM-DD` and checks the month and the day.
        static func read(from parser: inout Parser) throws(TemporalError) -> CalendarDay {
            let year = try parser.readDigits(4)
            try parser.read(UInt8(ascii: "-"))
            let month = try parser.readDigits(2)
            guard (1...12).contains(month) else { throw parser.error(.month) }
            try parser.read(UInt8(ascii: "-"))
            let day = try parser.readDigits(2)
            let numberOfDays = numberOfDays(inMonth: month, year: year)
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
