@_exported import struct Amplify.GraphQLError
// `JSONValue` (what a snapshot, a variables map and a response hold) and `GraphQLError` (an
// error of a response, with AppSync's `errorType`, `errorInfo` and `data`) are the `Amplify`
// module's, visible to every importer of AWSAppSync.
@_exported import enum Amplify.JSONValue

/// The GraphQL `ID` scalar: a string, whatever the server stores.
public typealias GraphQLID = String

/// A value that can be read from JSON: scalars, enums, lists, optionals and selection sets.
///
/// Generated code reads every field through this protocol, so a value has one way to come out of
/// a snapshot or a response.
public protocol JSONDecodable: Sendable {
    /// Reads the value from `value`.
    ///
    /// - Throws: ``JSONDecodingError`` when `value` has another type or is null.
    init(jsonValue value: JSONValue) throws
}

/// A value that can be written as JSON: scalars, enums, lists, optionals, selection sets and
/// input objects.
public protocol JSONEncodable: Sendable {
    /// The value as JSON.
    var jsonValue: JSONValue { get }
}

extension JSONValue: JSONDecodable, JSONEncodable {
    public init(jsonValue value: JSONValue) throws {
        self = value
    }

    public var jsonValue: JSONValue { self }
}

extension String: JSONDecodable, JSONEncodable {
    public init(jsonValue value: JSONValue) throws {
        guard case .string(let string) = value else {
            throw JSONDecodingError.wrongType(value, expected: "String")
        }
        self = string
    }

    public var jsonValue: JSONValue { .string(self) }
}

extension Int: JSONDecodable, JSONEncodable {
    public init(jsonValue value: JSONValue) throws {
        guard let integer = value.intValue else {
            throw JSONDecodingError.wrongType(value, expected: "Int")
        }
        self = integer
    }

    public var jsonValue: JSONValue { .integer(self) }
}

extension Double: JSONDecodable, JSONEncodable {
    public init(jsonValue value: JSONValue) throws {
        guard let number = value.doubleValue else {
            throw JSONDecodingError.wrongType(value, expected: "Double")
        }
        self = number
    }

    public var jsonValue: JSONValue { .number(self) }
}

extension Bool: JSONDecodable, JSONEncodable {
    public init(jsonValue value: JSONValue) throws {
        guard case .boolean(let boolean) = value else {
            throw JSONDecodingError.wrongType(value, expected: "Bool")
        }
        self = boolean
    }

    public var jsonValue: JSONValue { .boolean(self) }
}

extension Optional: JSONDecodable where Wrapped: JSONDecodable {
    /// `nil` for null, else the wrapped value.
    public init(jsonValue value: JSONValue) throws {
        if value.isNull {
            self = .none
        } else {
            self = .some(try Wrapped(jsonValue: value))
        }
    }
}

extension Optional: JSONEncodable where Wrapped: JSONEncodable {
    /// Null for `nil`, else the wrapped value's JSON.
    public var jsonValue: JSONValue {
        switch self {
        case .none: return .null
        case .some(let wrapped): return wrapped.jsonValue
        }
    }
}

extension Array: JSONDecodable where Element: JSONDecodable {
    public init(jsonValue value: JSONValue) throws {
        guard case .array(let elements) = value else {
            throw JSONDecodingError.wrongType(value, expected: "a list")
        }
        self = try elements.map { try Element(jsonValue: $0) }
    }
}

extension Array: JSONEncodable where Element: JSONEncodable {
    public var jsonValue: JSONValue { .array(map(\.jsonValue)) }
}

extension JSONDecodable where Self: RawRepresentable, RawValue == String {
    /// Reads an enum from its GraphQL name.
    ///
    /// - Throws: ``JSONDecodingError`` when the value is not a string or names no case.
    public init(jsonValue value: JSONValue) throws {
        guard case .string(let name) = value else {
            throw JSONDecodingError.wrongType(value, expected: String(describing: Self.self))
        }
        guard let decoded = Self(rawValue: name) else {
            throw JSONDecodingError.wrongType(value, expected: String(describing: Self.self))
        }
        self = decoded
    }
}

extension JSONEncodable where Self: RawRepresentable, RawValue == String {
    /// The enum's GraphQL name.
    public var jsonValue: JSONValue { .string(rawValue) }
}
