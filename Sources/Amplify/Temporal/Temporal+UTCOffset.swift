extension Temporal {
    /// The difference between a local time and UTC: `Z`, or `±hh:mm[:ss]` up to 18 hours.
    struct UTCOffset: Sendable, Hashable, Comparable {
        /// The seconds to add to UTC to get the local time, -64_800...64_800.
        let seconds: Int

        init(seconds: Int) {
            precondition(
                abs(seconds) <= Self.maximumSeconds,
                "The UTC offset of \(seconds) seconds is more than the 18 hours the AppSync scalars can write."
            )
            self.seconds = seconds
        }

        static let zero = UTCOffset(seconds: 0)

        /// 18 hours, the largest offset ISO 8601 allows.
        static let maximumSeconds = 18 * 3_600

        static func < (lhs: UTCOffset, rhs: UTCOffset) -> Bool { lhs.seconds < rhs.seconds }

        /// Reads `Z` or `±hh:mm[:ss]`, or nothing at the end of the text.
        ///
        /// - Parameter expected: What the text may hold at this place, for the error message.
        static func read(from parser: inout Parser, expected: String) throws(TemporalError) -> UTCOffset? {
            guard let byte = parser.peek() else { return nil }
            switch byte {
            case UInt8(ascii: "Z"):
                _ = parser.skip(byte)
                return .zero
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                _ = parser.skip(byte)
                let hours = try parser.readDigits(2)
                try parser.read(UInt8(ascii: ":"))
                let minutes = try parser.readDigits(2)
                guard minutes < 60 else { throw parser.error(.offsetMinute) }
                var seconds = 0
                if parser.skip(UInt8(ascii: ":")) {
                    seconds = try parser.readDigits(2)
                    guard seconds < 60 else { throw parser.error(.offsetSecond) }
                }
                let magnitude = (hours * 60 + minutes) * 60 + seconds
                guard magnitude <= maximumSeconds else { throw parser.error(.offsetRange) }
                return UTCOffset(seconds: byte == UInt8(ascii: "-") ? -magnitude : magnitude)
            default:
                throw parser.unexpected(expected)
            }
        }

        /// Writes `Z` for a zero offset, else `±hh:mm`, followed by `:ss` when the seconds are not
        /// zero.
        func write(to text: inout String) {
            guard seconds != 0 else {
                text.append("Z")
                return
            }
            let magnitude = abs(seconds)
            text.append(seconds < 0 ? "-" : "+")
            text.appendDigits(of: magnitude / 3_600, count: 2)
            text.append(":")
            text.appendDigits(of: magnitude / 60 % 60, count: 2)
            if magnitude % 60 != 0 {
                text.append(":")
                text.appendDigits(of: magnitude % 60, count: 2)
            }
        }
    }
}
