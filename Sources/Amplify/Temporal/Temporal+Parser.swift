extension Temporal {
    /// Reads the fields of an AppSync scalar from the UTF-8 bytes of its text.
    ///
    /// The parser only steps over ASCII bytes, so it always stands at the start of a Unicode
    /// scalar, which is what an error message quotes.
    struct Parser {
        private let bytes: UnsafeBufferPointer<UInt8>
        private let input: String
        private let scalar: TemporalError.Scalar
        private var position = 0

        private init(bytes: UnsafeBufferPointer<UInt8>, input: String, scalar: TemporalError.Scalar) {
            self.bytes = bytes
            self.input = input
            self.scalar = scalar
        }

        /// Reads all of `input` with `body`.
        ///
        /// - Throws: ``TemporalError`` when the text is empty, when `body` throws, or when text is
        ///   left after the value.
        static func parse<Value>(
            _ input: String,
            as scalar: TemporalError.Scalar,
            _ body: (inout Parser) throws(TemporalError) -> Value
        ) throws(TemporalError) -> Value {
            var text = input
            let result = text.withUTF8 { bytes in
                var parser = Parser(bytes: bytes, input: input, scalar: scalar)
                return Result { () throws(TemporalError) -> Value in
                    guard !bytes.isEmpty else { throw parser.error(.empty) }
                    let value = try body(&parser)
                    if parser.position < bytes.count { throw parser.unexpected("the end") }
                    return value
                }
            }
            return try result.get()
        }

        /// The next byte, or `nil` at the end.
        func peek() -> UInt8? {
            position < bytes.count ? bytes[position] : nil
        }

        /// Steps over `byte` when it comes next.
        mutating func skip(_ byte: UInt8) -> Bool {
            guard peek() == byte else { return false }
            position += 1
            return true
        }

        /// Steps over the next byte when it is an ASCII digit, and returns its value.
        mutating func skipDigit() -> Int? {
            guard let byte = peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            position += 1
            return Int(byte - UInt8(ascii: "0"))
        }

        /// Steps over `byte`.
        ///
        /// - Throws: ``TemporalError`` when something else comes next.
        mutating func read(_ byte: UInt8) throws(TemporalError) {
            guard skip(byte) else { throw unexpected("'\(Character(Unicode.Scalar(byte)))'") }
        }

        /// Reads exactly `count` ASCII digits as a decimal number.
        ///
        /// - Throws: ``TemporalError`` when fewer digits come next.
        mutating func readDigits(_ count: Int) throws(TemporalError) -> Int {
            var value = 0
            for _ in 0..<count {
                guard let digit = skipDigit() else { throw unexpected("a digit") }
                value = value * 10 + digit
            }
            return value
        }

        /// The error for `reason`.
        func error(_ reason: TemporalError.Reason) -> TemporalError {
            TemporalError(input: input, scalar: scalar, reason: reason)
        }

        /// The error for text that does not hold `expected` at this place.
        func unexpected(_ expected: String) -> TemporalError {
            guard position < bytes.count else { return error(.truncated(expected: expected)) }
            // A Unicode scalar takes at most 4 bytes of UTF-8.
            let next = UnsafeBufferPointer(rebasing: bytes[position..<min(position + 4, bytes.count)])
            let found = String(decoding: next, as: UTF8.self).unicodeScalars.first!
            return error(.unexpected(found: found, expected: expected))
        }
    }
}

extension String {
    /// Appends the last `count` decimal digits of the non-negative `value`, with leading zeros.
    mutating func appendDigits(of value: Int, count: Int) {
        var divisor = 1
        for _ in 1..<count { divisor *= 10 }
        while divisor > 0 {
            append(Character(Unicode.Scalar(UInt8(ascii: "0") + UInt8(value / divisor % 10))))
            divisor /= 10
        }
    }
}
