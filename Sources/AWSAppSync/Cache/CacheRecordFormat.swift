import Amplify

/// The stored form of a cache record: its fields in a compact binary encoding, read straight
/// from SQLite's buffer.
///
/// JSON text made every read parse each character of every record: looking for the end of each
/// string, unescaping it, spelling out numbers. Here every value says its type and length up
/// front, so a read copies strings out of the buffer and reads integers and doubles as they
/// are, exactly: a 64-bit integer stays exact, a double keeps every bit.
///
/// A record is the format byte (``version``) followed by an object value. A value is a tag byte
/// and what the tag says follows:
///
/// | Tag | Value   | Then                                                           |
/// |-----|---------|----------------------------------------------------------------|
/// | 0   | null    | nothing                                                        |
/// | 1   | false   | nothing                                                        |
/// | 2   | true    | nothing                                                        |
/// | 3   | integer | its zigzag encoding as an unsigned LEB128 number               |
/// | 4   | number  | the 8 bytes of its IEEE 754 bit pattern, little-endian         |
/// | 5   | string  | its byte count (LEB128), then its UTF-8                        |
/// | 6   | array   | its element count (LEB128), then the elements                  |
/// | 7   | object  | its member count (LEB128), then each key as a string, its value |
///
/// Keys are written sorted, so that equal records have equal bytes.
enum CacheRecordFormat {
    /// The format byte that starts every record.
    static let version: UInt8 = 1

    enum Tag: UInt8 {
        case null = 0
        case falseValue = 1
        case trueValue = 2
        case integer = 3
        case number = 4
        case string = 5
        case array = 6
        case object = 7
    }

    /// The stored bytes of `record`; `nil` when it holds an infinite or NaN number, which the
    /// JSON the cache's data turns back into cannot hold.
    static func encode(_ record: [String: JSONValue]) -> [UInt8]? {
        var writer = Writer()
        writer.bytes.append(version)
        writer.bytes.append(Tag.object.rawValue)
        writer.write(members: record)
        return writer.holdsNonFiniteNumber ? nil : writer.bytes
    }

    /// The record stored in `bytes`.
    ///
    /// - Throws: ``CacheRecordFormatError`` naming the offset of the first byte that does not
    ///   fit the format.
    static func decode(_ bytes: UnsafeRawBufferPointer) throws(CacheRecordFormatError) -> [String: JSONValue] {
        var reader = Reader(bytes)
        guard !bytes.isEmpty else { throw reader.failure("the record is empty") }
        guard bytes[0] == version else {
            throw reader.failure("the record has format \(bytes[0]), and this version reads format \(version)")
        }
        reader.offset = 1
        guard try reader.readTag() == .object else {
            reader.offset = 1
            throw reader.failure("the record is not an object")
        }
        let record = try reader.readMembers()
        guard reader.offset == bytes.count else { throw reader.failure("bytes follow the record") }
        return record
    }

    private struct Writer {
        var bytes: [UInt8] = []
        var holdsNonFiniteNumber = false

        init() {
            bytes.reserveCapacity(128)
        }

        mutating func write(_ value: JSONValue) {
            switch value {
            case .null:
                bytes.append(Tag.null.rawValue)
            case .boolean(let value):
                bytes.append(value ? Tag.trueValue.rawValue : Tag.falseValue.rawValue)
            case .integer(let value):
                bytes.append(Tag.integer.rawValue)
                // Zigzag: small magnitudes of either sign take few bytes.
                writeCount(UInt64(bitPattern: Int64(value) << 1 ^ Int64(value) >> 63))
            case .number(let value):
                if !value.isFinite { holdsNonFiniteNumber = true }
                bytes.append(Tag.number.rawValue)
                withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
            case .string(let value):
                bytes.append(Tag.string.rawValue)
                write(text: value)
            case .array(let elements):
                bytes.append(Tag.array.rawValue)
                writeCount(UInt64(elements.count))
                for element in elements { write(element) }
            case .object(let members):
                bytes.append(Tag.object.rawValue)
                write(members: members)
            }
        }

        mutating func write(members: [String: JSONValue]) {
            writeCount(UInt64(members.count))
            for (key, value) in members.sorted(by: { $0.key < $1.key }) {
                write(text: key)
                write(value)
            }
        }

        mutating func write(text: String) {
            var text = text
            text.withUTF8 { utf8 in
                writeCount(UInt64(utf8.count))
                bytes.append(contentsOf: utf8)
            }
        }

        mutating func writeCount(_ value: UInt64) {
            var value = value
            while value >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
                value >>= 7
            }
            bytes.append(UInt8(value))
        }
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0
        var depth = 0

        init(_ bytes: UnsafeRawBufferPointer) {
            self.bytes = bytes
        }

        func failure(_ reason: String) -> CacheRecordFormatError {
            CacheRecordFormatError(offset: offset, reason: reason)
        }

        mutating func readTag() throws(CacheRecordFormatError) -> Tag {
            guard offset < bytes.count else { throw failure("the record ends where a value should start") }
            guard let tag = Tag(rawValue: bytes[offset]) else { throw failure("unknown value tag \(bytes[offset])") }
            offset += 1
            return tag
        }

        mutating func readValue() throws(CacheRecordFormatError) -> JSONValue {
            switch try readTag() {
            case .null: return .null
            case .falseValue: return .boolean(false)
            case .trueValue: return .boolean(true)
            case .integer:
                let zigzag = try readNumber()
                return .integer(Int(Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)))
            case .number:
                guard bytes.count - offset >= 8 else { throw failure("the record ends inside a number") }
                let pattern = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                offset += 8
                return .number(Double(bitPattern: UInt64(littleEndian: pattern)))
            case .string:
                return .string(try readText())
            case .array:
                let count = try readCount()
                try enter()
                defer { depth -= 1 }
                var elements: [JSONValue] = []
                elements.reserveCapacity(count)
                for _ in 0..<count { elements.append(try readValue()) }
                return .array(elements)
            case .object:
                try enter()
                defer { depth -= 1 }
                return .object(try readMembers())
            }
        }

        mutating func readMembers() throws(CacheRecordFormatError) -> [String: JSONValue] {
            let count = try readCount()
            var members = [String: JSONValue](minimumCapacity: count)
            for _ in 0..<count {
                let start = offset
                let key = try readText()
                guard members.updateValue(try readValue(), forKey: key) == nil else {
                    offset = start
                    throw failure("the key '\(key)' appears twice")
                }
            }
            return members
        }

        mutating func enter() throws(CacheRecordFormatError) {
            depth += 1
            if depth > 512 { throw failure("nesting deeper than 512 levels") }
        }

        mutating func readText() throws(CacheRecordFormatError) -> String {
            let count = try readCount()
            guard count > 0, let base = bytes.baseAddress else { return "" }
            let utf8 = UnsafeBufferPointer(start: (base + offset).assumingMemoryBound(to: UInt8.self), count: count)
            // Decoding repairs invalid UTF-8 (the validating initializer, generic, costs more
            // than the decoding): ASCII is valid as it is, other text when decoding kept every
            // byte.
            var text = String(decoding: utf8, as: UTF8.self)
            guard Self.isASCII(utf8) || text.withUTF8({ $0.elementsEqual(utf8) }) else {
                throw failure("a string is not UTF-8")
            }
            offset += count
            return text
        }

        static func isASCII(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
            let raw = UnsafeRawBufferPointer(utf8)
            var index = 0
            while index + 8 <= raw.count {
                guard raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 else {
                    return false
                }
                index += 8
            }
            while index < raw.count {
                guard raw[index] < 0x80 else { return false }
                index += 1
            }
            return true
        }

        /// A count of elements, members or bytes: each takes at least a byte, so a count past
        /// the end is corrupt and would only make the reader reserve memory for nothing.
        mutating func readCount() throws(CacheRecordFormatError) -> Int {
            let start = offset
            let count = try readNumber()
            guard count <= UInt64(bytes.count - offset) else {
                offset = start
                throw failure("a count of \(count) runs past the end of the record")
            }
            return Int(count)
        }

        mutating func readNumber() throws(CacheRecordFormatError) -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while offset < bytes.count {
                let byte = bytes[offset]
                guard shift < 63 || byte <= 1 else { throw failure("a number does not fit 64 bits") }
                offset += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
            throw failure("the record ends inside a number")
        }
    }
}

/// Bytes that are not a record of ``CacheRecordFormat``.
struct CacheRecordFormatError: Error, CustomStringConvertible {
    /// The offset of the byte where reading stopped.
    let offset: Int
    let reason: String

    var description: String { "Invalid record at byte \(offset): \(reason)." }
}
