import Foundation

/// A JSON value: what a GraphQL response, a variables object or a stored record holds.
///
/// Integers stay exact: `12345678901234567` decodes to ``integer(_:)``, never to a `Double`
/// that loses digits. `JSONDecoder` does not say how a number was spelled, so every whole number
/// that fits an `Int` decodes to ``integer(_:)``, `2.0` and `1e3` included, and
/// ``number(_:)`` holds the others. For the same reason `.number(2.0)` is written `2` and reads
/// back as `.integer(2)`: read numbers with ``intValue`` and ``doubleValue``, which accept both
/// cases.
///
/// ```swift
/// let response: JSONValue = ["listTodos": ["items": [["id": "1", "done": false]]]]
/// response.listTodos?.items?[0]?.id          // .string("1")
/// response.value(at: "listTodos.items")      // the array
/// ```
@dynamicMemberLookup
public enum JSONValue: Sendable, Hashable {
    case array([JSONValue])
    case boolean(Bool)
    case integer(Int)
    case number(Double)
    case object([String: JSONValue])
    case string(String)
    case null
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Strings first: they are the most common values (identifiers, foreign keys), and each
        // failed attempt costs a thrown error. JSON types never decode as one another, so the
        // order does not change the result.
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .boolean(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription:
                    "The value is not JSON: expected null, a boolean, a number, a string, an object or an array."
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .array(let value): try container.encode(value)
        case .boolean(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }
}

extension JSONValue {
    /// The member named `key` when this is an object, else `nil`.
    public subscript(dynamicMember key: String) -> JSONValue? {
        self[key]
    }

    /// The member named `key` when this is an object, else `nil`.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// The element at `index` when this is an array and the index is in range, else `nil`.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let array) = self, array.indices.contains(index) else { return nil }
        return array[index]
    }

    /// The value at a dotted path such as `"listTodos.items"` or `"items.0.id"`.
    ///
    /// Each component names an object member, or an array index when the value there is an array.
    /// An empty path returns `self`.
    public func value(at path: String) -> JSONValue? {
        var current: JSONValue? = self
        for component in path.split(separator: ".", omittingEmptySubsequences: true) {
            guard let value = current else { return nil }
            switch value {
            case .object(let object): current = object[String(component)]
            case .array(let array):
                guard let index = Int(component), array.indices.contains(index) else { return nil }
                current = array[index]
            default: return nil
            }
        }
        return current
    }

    /// `true` for ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer, when this is an integer, or a number with no fraction that fits an `Int`.
    public var intValue: Int? {
        switch self {
        case .integer(let value): return value
        case .number(let value):
            guard value.rounded() == value, let exact = Int(exactly: value) else { return nil }
            return exact
        default: return nil
        }
    }

    /// The number as a `Double`, for both ``integer(_:)`` and ``number(_:)``.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .number(let value): return value
        default: return nil
        }
    }

    /// The boolean, when this is a boolean.
    public var booleanValue: Bool? {
        if case .boolean(let value) = self { return value }
        return nil
    }

    /// The members, when this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }
}

extension JSONValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSONValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .number(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int) { self = .integer(value) }
}

extension JSONValue: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue {
    /// Encodes any `Encodable` value into a `JSONValue`.
    ///
    /// - Throws: `EncodingError` when the value cannot be encoded.
    public init(encoding value: some Encodable, encoder: JSONEncoder = JSONEncoder()) throws {
        let data = try encoder.encode(value)
        self = try JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// Decodes this value as `T`.
    ///
    /// - Throws: `DecodingError` when the value does not have the shape of `T`.
    public func decode<T: Decodable>(as type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        let data = try JSONEncoder().encode(self)
        return try decoder.decode(T.self, from: data)
    }
}
