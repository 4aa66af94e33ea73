/// A day of the proleptic Gregorian calendar, and its count of days from 1970-01-01: the one
/// calendar routine of SigV4's timestamps, the AppSync scalars (`Temporal`) and the server's
/// `AWSDateTime` values.
///
/// The conversions are Howard Hinnant's `days_from_civil` and `civil_from_days`: they count in
/// eras of 400 years, with years that start on March 1 so that the leap day ends them. They
/// hold for any year, before 1970 and before year 1 too; each caller checks the range its
/// format can write.
///
/// ```swift
/// CivilDate(daysSince1970: 19_724)  // 2024-01-02
/// CivilDate(year: 2024, month: 1, day: 2).daysSince1970  // 19_724
/// ```
package struct CivilDate: Sendable, Hashable {
    /// The year; 0 is 1 BC.
    package var year: Int
    /// The month, 1...12.
    package var month: Int
    /// The day of the month, 1...28, 29, 30 or 31.
    package var day: Int

    /// The date of a year, month and day whose ranges the caller has checked.
    @inlinable
    package init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The day that is `days` days after 1970-01-01 (before it when negative).
    @inlinable
    package init(daysSince1970 days: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        self.init(
            year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0),
            month: month,
            day: dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        )
    }

    /// The number of days from 1970-01-01 to this day, negative before it.
    @inlinable
    package var daysSince1970: Int {
        let marchYear = month <= 2 ? year - 1 : year
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Whether `year` has a February 29.
    @inlinable
    package static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// The number of days in `month` (1...12) of `year`.
    @inlinable
    package static func numberOfDays(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
