extension Temporal {
    /// A time of day, `hh:mm:ss` with a fraction of up to nine digits.
    struct ClockTime: Sendable, Hashable {
        /// The nanoseconds since midnight, 0..<86_400_000_000_000.
        let nanosecondOfDay: Int
        /// The number of fraction digits to write, 0...9; the digits after them are zero.
        let fractionDigits: Int

        init(nanosecondOfDay: Int, fractionDigits: Int) {
            self.nanosecondOfDay = nanosecondOfDay
            self.fractionDigits = fractionDigits
        }

        static let nanosecondsPerSecond = 1_000_000_000

        /// The seconds since midnight.
        var secondOfDay: Int { nanosecondOfDay / Self.nanosecondsPerSecond }

        /// The nanoseconds after ``secondOfDay``.
        var nanosecond: Int { nanosecondOfDay % Self.nanosecondsPerSecond }

        /// Reads `hh:mm[:ss[.f]]`, with 1 to 9 fraction digits, and checks the fields.
        static func read(from parser: inout Parser) throws(TemporalError) -> ClockTime {
            let hour = try parser.readDigits(2)
            guard hour < 24 else { throw parser.error(.hour) }
            try parser.read(UInt8(ascii: ":"))
            let minute = try parser.readDigits(2)
            guard minute < 60 else { throw parser.error(.minute) }
            var second = 0
            var nanosecond = 0
            var fractionDigits = 0
            if parser.skip(UInt8(ascii: ":")) {
                second = try parser.readDigits(2)
                guard second < 60 else { throw parser.error(.second) }
                if parser.skip(UInt8(ascii: ".")) {
                    (nanosecond, fractionDigits) = try readFraction(from: &parser)
                }
            }
            let secondOfDay = (hour * 60 + minute) * 60 + second
            return ClockTime(
                nanosecondOfDay: secondOfDay * nanosecondsPerSecond + nanosecond,
                fractionDigits: fractionDigits
            )
        }

        /// Reads the digits after the decimal point, as nanoseconds.
        private static func readFraction(
            from parser: inout Parser
        ) throws(TemporalError) -> (nanosecond: Int, digits: Int) {
            var value = 0
            var digits = 0
            while let digit = parser.skipDigit() {
                digits += 1
                if digits <= 9 { value = value * 10 + digit }
            }
            guard digits > 0 else { throw parser.unexpected("a digit") }
            guard digits <= 9 else { throw parser.error(.fractionDigits(digits)) }
            return (value * powerOfTen(9 - digits), digits)
        }

        /// Writes `hh:mm:ss`, then the fraction when it has digits.
        func write(to text: inout String) {
            let secondOfDay = secondOfDay
            text.appendDigits(of: secondOfDay / 3_600, count: 2)
            text.append(":")
            text.appendDigits(of: secondOfDay / 60 % 60, count: 2)
            text.append(":")
            text.appendDigits(of: secondOfDay % 60, count: 2)
            if fractionDigits > 0 {
                text.append(".")
                text.appendDigits(of: nanosecond / Self.powerOfTen(9 - fractionDigits), count: fractionDigits)
            }
        }

        /// 10 raised to `exponent`, for exponents 0...9.
        private static func powerOfTen(_ exponent: Int) -> Int {
            var result = 1
            for _ in 0..<exponent { result *= 10 }
            return result
        }
    }
}
