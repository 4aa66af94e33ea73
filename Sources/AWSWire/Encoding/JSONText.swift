import Foundation

/// JSON text that could not be read.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The byte offset where reading stopped.
    public var offset: Int
    /// What was wrong there: `unexpected end of input`.
    public var reason: String

    /// Describes a failure at `offset`.
    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    /// What was wrong, with the byte offset where reading stopped.
    public var description: String { "Invalid JSON at offset \(offset): \(reason)." }
}

/// A JSON value type that the package's one JSON text reader builds and its one writer writes:
/// Amplify's `JSONValue` and the server's order-keeping `JSON`.
package protocol JSONTextValue {
    /// The members of an object while it is read.
    associatedtype Members

    static var jsonNull: Self { get }
    static func jsonBool(_ value: Bool) -> Self
    static func jsonString(_ value: String) -> Self
    static func jsonArray(_ elements: [Self]) -> Self
    /// A number written without fraction or exponent that fits in an `Int`.
    static func jsonInteger(_ value: Int) -> Self
    /// Any other number; `nil` when the type cannot hold it (the reader then fails).
    static func jsonDouble(_ value: Double) -> Self?
    static func jsonMembers() -> Members
    static func jsonAdd(_ value: Self, forKey key: String, to members: inout Members)
    static func jsonObject(_ members: Members) -> Self

    /// Writes the value with `writer`'s methods.
    func write(to writer: inout JSONTextWriter)
}

/// Reads JSON text (RFC 8259, strictly) into any ``JSONTextValue``.
package struct JSONTextReader<Value: JSONTextValue> {
    @usableFromInline let bytes: [UInt8]
    @usableFromInline var offset = 0
    @usableFromInline var depth = 0

    /// The value `data` holds.
    ///
    /// - Throws: ``JSONParseError`` naming the offset of the first problem.
    @inlinable package static func read(_ data: Data) throws(JSONParseError) -> Value {
        var reader = JSONTextReader(bytes: [UInt8](data))
        let value = try reader.readValue()
        reader.skipWhitespace()
        guard reader.offset == reader.bytes.count else { throw reader.failure("unexpected text after the JSON value") }
        return value
    }

    /// The value `text` holds.
    ///
    /// - Throws: ``JSONParseError`` naming the offset of the first problem.
    @inlinable package static func read(_ text: String) throws(JSONParseError) -> Value {
        try read(Data(text.utf8))
    }

    @inlinable init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    @inlinable func failure(_ message: String) -> JSONParseError {
        JSONParseError(offset: offset, reason: message)
    }

    @inlinable mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x0A, 0x0D, 0x09: offset += 1
            default: return
            }
        }
    }

    @inlinable mutating func readValue() throws(JSONParseError) -> Value {
        skipWhitespace()
        guard offset < bytes.count else { throw failure("unexpected end of input") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try readObject()
        case UInt8(ascii: "["): return try readArray()
        case UInt8(ascii: "\""): return .jsonString(try readString())
        case UInt8(ascii: "t"): return try readLiteral("true", .jsonBool(true))
        case UInt8(ascii: "f"): return try readLiteral("false", .jsonBool(false))
        case UInt8(ascii: "n"): return try readLiteral("null", .jsonNull)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
        default: throw failure("unexpected character")
        }
    }

    @inlinable mutating func readLiteral(_ word: StaticString, _ value: Value) throws(JSONParseError) -> Value {
        let count = word.utf8CodeUnitCount
        let matches = word.withUTF8Buffer { expected in
            offset + count <= bytes.count && bytes[offset..<offset + count].elementsEqual(expected)
        }
        guard matches else { throw failure("expected '\(word)'") }
        offset += count
        return value
    }

    @inlinable mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > 512 { throw failure("nesting deeper than 512 levels") }
    }

    @inlinable mutating func readObject() throws(JSONParseError) -> Value {
        try enter()
        defer { depth -= 1 }
        offset += 1
        var members = Value.jsonMembers()
        skipWhitespace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
            offset += 1
            return .jsonObject(members)
        }
        while true {
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw failure("expected a key") }
            let key = try readString()
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw failure("expected ':'") }
            offset += 1
            Value.jsonAdd(try readValue(), forKey: key, to: &members)
            skipWhitespace()
            guard offset < bytes.count else { throw failure("unexpected end of input") }
            if bytes[offset] == UInt8(ascii: ",") {
                offset += 1
            } else if bytes[offset] == UInt8(ascii: "}") {
                offset += 1
                return .jsonObject(members)
            } else {
                throw failure("expected ',' or '}'")
            }
        }
    }

    @inlinable mutating func readArray() throws(JSONParseError) -> Value {
        try enter()
        defer { depth -= 1 }
        offset += 1
        var elements: [Value] = []
        skipWhitespace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
            offset += 1
            return .jsonArray(elements)
        }
        while true {
            elements.append(try readValue())
            skipWhitespace()
            guard offset < bytes.count else { throw failure("unexpected end of input") }
            if bytes[offset] == UInt8(ascii: ",") {
                offset += 1
            } else if bytes[offset] == UInt8(ascii: "]") {
                offset += 1
                return .jsonArray(elements)
            } else {
                throw failure("expected ',' or ']'")
            }
        }
    }

    @inlinable mutating func readString() throws(JSONParseError) -> String {
        offset += 1
        let start = offset
        // The common case: no escape, and the bytes are the string.
        while offset < bytes.count, bytes[offset] != UInt8(ascii: "\""), bytes[offset] != UInt8(ascii: "\\"),
            bytes[offset] >= 0x20
        {
            offset += 1
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") {
            defer { offset += 1 }
            return String(decoding: bytes[start..<offset], as: UTF8.self)
        }
        var utf8 = Array(bytes[start..<offset])
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                offset += 1
                return String(decoding: utf8, as: UTF8.self)
            }
            if byte < 0x20 { throw failure("control character in a string") }
            guard byte == UInt8(ascii: "\\") else {
                utf8.append(byte)
                offset += 1
                continue
            }
            offset += 1
            guard offset < bytes.count else { break }
            let escape = bytes[offset]
            offset += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var code = try readHex()
                if (0xD800..<0xDC00).contains(code) {
                    guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"),
                        bytes[offset + 1] == UInt8(ascii: "u")
                    else { throw failure("unpaired surrogate") }
                    offset += 2
                    let low = try readHex()
                    guard (0xDC00..<0xE000).contains(low) else { throw failure("unpaired surrogate") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw failure("invalid escape") }
                utf8.append(contentsOf: UTF8.encode(scalar)!)
            default:
                throw failure("invalid escape")
            }
        }
        throw failure("unterminated string")
    }

    @inlinable mutating func readHex() throws(JSONParseError) -> UInt32 {
        guard offset + 4 <= bytes.count else { throw failure("short \\u escape") }
        var value: UInt32 = 0
        for byte in bytes[offset..<offset + 4] {
            value <<= 4
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value += UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value += UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value += UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw failure("invalid \\u escape")
            }
        }
        offset += 4
        return value
    }

    @inlinable mutating func readNumber() throws(JSONParseError) -> Value {
        let start = offset
        var isInteger = true
        if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        let integerDigits = skipDigits()
        guard integerDigits > 0 else { throw failure("expected a digit") }
        if integerDigits > 1, bytes[offset - integerDigits] == UInt8(ascii: "0") {
            throw failure("leading zero in a number")
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            isInteger = false
            offset += 1
            guard skipDigits() > 0 else { throw failure("expected a digit after '.'") }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            isInteger = false
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                offset += 1
            }
            guard skipDigits() > 0 else { throw failure("expected a digit in the exponent") }
        }
        let text = String(decoding: bytes[start..<offset], as: UTF8.self)
        if isInteger, let value = Int(text) { return .jsonInteger(value) }
        guard let double = Double(text), let value = Value.jsonDouble(double) else {
            throw JSONParseError(offset: start, reason: "the number \(text) is out of range")
        }
        return value
    }

    @inlinable mutating func skipDigits() -> Int {
        let begin = offset
        while offset < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset]) {
            offset += 1
        }
        return offset - begin
    }
}

/// Writes compact JSON text: no insignificant whitespace, only `"`, `\` and control characters
/// escaped. The one writer of the package's JSON text.
package struct JSONTextWriter {
    /// How numbers with a fraction are written.
    package enum DoubleStyle: Sendable {
        /// `2.0`, `1.5`, `1e+21`: a whole number keeps a fraction below 10^15, so it reads
        /// back as a double.
        case keepsFraction
        /// `2`, `1.5`, `1e+21`: Foundation's `JSONEncoder`'s form.
        case shortest
    }

    /// The text written so far.
    package var text = ""
    /// Whether objects whose members have no order of their own write them sorted by key.
    package let sortsKeys: Bool
    private let doubleStyle: DoubleStyle
    /// Whether an infinite or NaN number was written (as `null`, which is all JSON can hold).
    package private(set) var wroteNonFiniteNumber = false
    /// Whether the next value is the first of its array or object.
    @usableFromInline var first = true

    package init(sortsKeys: Bool, doubleStyle: DoubleStyle) {
        self.sortsKeys = sortsKeys
        self.doubleStyle = doubleStyle
    }

    @usableFromInline mutating func separate() {
        if !first { text += "," }
        first = false
    }

    package mutating func writeNull() {
        separate()
        text += "null"
    }

    package mutating func write(_ value: Bool) {
        separate()
        text += value ? "true" : "false"
    }

    package mutating func write(_ value: Int) {
        separate()
        text += String(value)
    }

    package mutating func write(_ value: Double) {
        separate()
        guard value.isFinite else {
            wroteNonFiniteNumber = true
            text += "null"
            return
        }
        switch doubleStyle {
        case .keepsFraction:
            text += value.rounded() == value && abs(value) < 1e15 ? String(format: "%.1f", value) : "\(value)"
        case .shortest:
            let description = "\(value)"
            text += description.hasSuffix(".0") ? String(description.dropLast(2)) : description
        }
    }

    package mutating func write(_ value: String) {
        separate()
        writeQuoted(value)
    }

    /// Writes an array of `elements`, each with `element`.
    @inlinable package mutating func writeArray<S: Sequence>(
        _ elements: S,
        _ element: (S.Element, inout JSONTextWriter) -> Void
    ) {
        separate()
        text += "["
        first = true
        for value in elements { element(value, &self) }
        text += "]"
        first = false
    }

    /// Writes an object of `members` in their order.
    @inlinable package mutating func writeObject<S: Sequence, Value: JSONTextValue>(_ members: S)
    where S.Element == (key: String, value: Value) {
        separate()
        text += "{"
        first = true
        for (key, value) in members {
            separate()
            writeQuoted(key)
            text += ":"
            first = true
            value.write(to: &self)
        }
        text += "}"
        first = false
    }

    /// Writes an object whose members `members` writes, each as ``writeKey(_:)`` and then its
    /// value: for members that are no ``JSONTextValue`` (a stored row, say), in the order written.
    @inlinable package mutating func writeObject(_ members: (inout JSONTextWriter) -> Void) {
        separate()
        text += "{"
        first = true
        members(&self)
        text += "}"
        first = false
    }

    /// Writes the key of an object's member; its value is written next.
    package mutating func writeKey(_ key: String) {
        separate()
        writeQuoted(key)
        text += ":"
        first = true
    }

    /// Writes `json`, which is the text of one JSON value already (stored JSON, a number's
    /// digits), as it is.
    package mutating func writeJSONText(_ json: String) {
        separate()
        text += json
    }

    @usableFromInline mutating func writeQuoted(_ value: String) {
        text += "\""
        var value = value
        let escaped = value.withUTF8 { bytes -> Bool in
            // Runs of bytes that need no escape are appended whole: every byte of a multi-byte
            // character is 0x80 or above, so a run never splits one.
            var start = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if start < index {
                    text += String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                }
                start = index + 1
                switch byte {
                case UInt8(ascii: "\""): text += "\\\""
                case UInt8(ascii: "\\"): text += "\\\\"
                case UInt8(ascii: "\n"): text += "\\n"
                case UInt8(ascii: "\r"): text += "\\r"
                case UInt8(ascii: "\t"): text += "\\t"
                case 0x08: text += "\\b"
                case 0x0C: text += "\\f"
                default: text += String(format: "\\u%04x", UInt32(byte))
                }
            }
            guard start > 0 else { return false }
            if start < bytes.count {
                text += String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self)
            }
            return true
        }
        if !escaped { text += value }
        text += "\""
    }
}
