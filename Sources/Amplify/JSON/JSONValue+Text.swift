import AWSWire
import Foundation

extension JSONValue: JSONTextValue {
    package typealias Members = [String: JSONValue]

    package static var jsonNull: JSONValue { .null }
    package static func jsonBool(_ value: Bool) -> JSONValue { .boolean(value) }
    package static func jsonString(_ value: String) -> JSONValue { .string(value) }
    package static func jsonArray(_ elements: [JSONValue]) -> JSONValue { .array(elements) }
    package static func jsonInteger(_ value: Int) -> JSONValue { .integer(value) }

    /// As decoding with `JSONDecoder` gives: a whole number that fits an `Int` (`2.0`, `1e3`) is
    /// an integer; a number too large for a `Double` cannot be held.
    package static func jsonDouble(_ value: Double) -> JSONValue? {
        guard value.isFinite else { return nil }
        if value == value.rounded(), let integer = Int(exactly: value) { return .integer(integer) }
        return .number(value)
    }

    package static func jsonMembers() -> [String: JSONValue] { [:] }
    package static func jsonAdd(_ value: JSONValue, forKey key: String, to members: inout [String: JSONValue]) {
        members[key] = value
    }
    package static func jsonObject(_ members: [String: JSONValue]) -> JSONValue { .object(members) }

    package func write(to writer: inout JSONTextWriter) {
        switch self {
        case .null: writer.writeNull()
        case .boolean(let value): writer.write(value)
        case .integer(let value): writer.write(value)
        case .number(let value): writer.write(value)
        case .string(let value): writer.write(value)
        case .array(let elements): writer.writeArray(elements) { $0.write(to: &$1) }
        case .object(let members):
            if writer.sortsKeys {
                writer.writeObject(members.sorted { $0.key < $1.key })
            } else {
                writer.writeObject(members)
            }
        }
    }

    /// The value of JSON text; numbers as decoding with `JSONDecoder` gives them.
    ///
    /// - Throws: ``JSONParseError`` naming the offset of the first problem.
    package init(parsing data: Data) throws(JSONParseError) {
        self = try JSONTextReader<JSONValue>.read(data)
    }

    /// The value of JSON text; numbers as decoding with `JSONDecoder` gives them.
    ///
    /// - Throws: ``JSONParseError`` naming the offset of the first problem.
    package init(parsing text: String) throws(JSONParseError) {
        self = try JSONTextReader<JSONValue>.read(text)
    }

    /// The text with sorted keys and unescaped slashes, as `JSONEncoder` with `.sortedKeys` and
    /// `.withoutEscapingSlashes` writes it, so that equal values give equal text; `nil` when
    /// the value holds an infinite or NaN number, which JSON cannot.
    package var canonicalText: String? {
        var writer = JSONTextWriter(sortsKeys: true, doubleStyle: .shortest)
        write(to: &writer)
        return writer.wroteNonFiniteNumber ? nil : writer.text
    }
}
