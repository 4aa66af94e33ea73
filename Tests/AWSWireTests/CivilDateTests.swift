import AWSWire
import Testing

@Suite struct CivilDateTests {
    /// Days around leap days, century years and the ends of the range the AppSync scalars
    /// write, as Python's proleptic Gregorian `datetime.date` counts them from 1970-01-01.
    @Test(
        arguments: [
            (-719_529, -1, 12, 31), (-719_528, 0, 1, 1), (-719_162, 1, 1, 1), (-135_080, 1600, 3, 1),
            (-25_509, 1900, 2, 28), (-25_508, 1900, 3, 1), (-1, 1969, 12, 31), (0, 1970, 1, 1),
            (11_016, 2000, 2, 29), (11_017, 2000, 3, 1), (19_724, 2024, 1, 2), (47_541, 2100, 3, 1),
            (2_932_896, 9999, 12, 31),
        ]
    )
    func daysConvertBothWays(days: Int, year: Int, month: Int, day: Int) {
        #expect(CivilDate(daysSince1970: days) == CivilDate(year: year, month: month, day: day))
        #expect(CivilDate(year: year, month: month, day: day).daysSince1970 == days)
    }

    /// From 1600 through 2400, each day is the one after the day before: the day of the month
    /// counts up to the length of its month, then the month, then the year.
    @Test func consecutiveDaysFollowTheCalendar() {
        var previous = CivilDate(year: 1599, month: 12, day: 31)
        var wrong: [Int] = []
        for days in (previous.daysSince1970 + 1)...CivilDate(year: 2400, month: 12, day: 31).daysSince1970 {
            let date = CivilDate(daysSince1970: days)
            let expected =
                if previous.day < CivilDate.numberOfDays(inMonth: previous.month, year: previous.year) {
                    CivilDate(year: previous.year, month: previous.month, day: previous.day + 1)
                } else if previous.month < 12 {
                    CivilDate(year: previous.year, month: previous.month + 1, day: 1)
                } else {
                    CivilDate(year: previous.year + 1, month: 1, day: 1)
                }
            if date != expected || date.daysSince1970 != days { wrong.append(days) }
            previous = date
        }
        #expect(wrong == [])
        #expect(previous == CivilDate(year: 2400, month: 12, day: 31))
    }

    @Test func leapYearsAreEveryFourthButCenturiesOnlyEveryFourHundredth() {
        #expect([1996, 2000, 2024, 2400, 0].allSatisfy(CivilDate.isLeapYear))
        #expect(![1900, 2023, 2100, 2200].contains(where: CivilDate.isLeapYear))
        #expect(CivilDate.numberOfDays(inMonth: 2, year: 2000) == 29)
        #expect(CivilDate.numberOfDays(inMonth: 2, year: 1900) == 28)
        #expect(
            [1, 3, 5, 7, 8, 10, 12].map { CivilDate.numberOfDays(inMonth: $0, year: 2023) }
                == Array(repeating: 31, count: 7)
        )
        #expect([4, 6, 9, 11].map { CivilDate.numberOfDays(inMonth: $0, year: 2023) } == [30, 30, 30, 30])
    }
}
