import AWSWire
import Foundation

extension JSON: JSONTextValue {
    /// The value as compact JSON text: no insignificant whitespace, object keys in order, only
    /// `"`, `\` and control characters escaped.
    public var text: String {
        var writer = JSONTextWriter(sortsKeys: false, doubleStyle: .keepsFraction)
        write(to: &writer)
        return writer.text
    }

    /// ``text`` as UTF-8 bytes.
    public var data: Data { Data(text.utf8) }

    /// Reads JSON text.
    ///
    /// Numbers without a fraction or exponent that fit in an `Int` become `.int`, every other
    /// number `.double`. Object keys keep their order.
    ///
    /// - Throws: `JSONParseError` naming the offset of the first problem.
    public init(parsing text: String) throws(JSONParseError) {
        self = try JSONTextReader<JSON>.read(text)
    }

    /// Reads JSON text from UTF-8 bytes.
    ///
    /// - Throws: `JSONParseError` naming the offset of the first problem.
    public init(parsing data: Data) throws(JSONParseError) {
        self = try JSONTextReader<JSON>.read(data)
    }

    package typealias Members = JSONObject

    package static var jsonNull: JSON { .null }
    package static func jsonBool(_ value: Bool) -> JSON { .bool(value) }
    package static func jsonString(_ value: String) -> JSON { .string(value) }
    package static func jsonArray(_ elements: [JSON]) -> JSON { .array(elements) }
    package static func jsonInteger(_ value: Int) -> JSON { .int(value) }
    package static func jsonDouble(_ value: Double) -> JSON? { .double(value) }
    package static func jsonMembers() -> JSONObject { JSONObject() }
    package static func jsonAdd(_ value: JSON, forKey key: String, to members: inout JSONObject) {
        members[key] = value
    }
    package static func jsonObject(_ members: JSONObject) -> JSON { .object(members) }

    package func write(to writer: inout JSONTextWriter) {
        switch self {
        case .null: writer.writeNull()
        case .bool(let value): writer.write(value)
        case .int(let value): writer.write(value)
        case .double(let value): writer.write(value)
        case .string(let value): writer.write(value)
        case .array(let elements): writer.writeArray(elements) { $0.write(to: &$1) }
        case .object(let members): writer.writeObject(members)
        }
    }
}
