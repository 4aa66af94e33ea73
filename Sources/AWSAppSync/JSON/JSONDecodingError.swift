/// Why a response, a snapshot or a value does not have the shape its selection set or type
/// expects.
///
/// The message names the path of the field in the response (`listTodos.items.0.name`), what was
/// found and what was expected:
///
/// ```
/// The response has null at 'createTodo.name', which is a non-null String. Regenerate API.swift if the schema changed.
/// ```
public struct JSONDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Kind: Hashable {
        case missingValue
        case nullValue(expected: String)
        case wrongType(found: JSONValue, expected: String)
        case malformedResponse(String)
    }

    private var kind: Kind
    /// The response keys and list indexes leading to the value, outermost first.
    public private(set) var path: [String]

    private init(_ kind: Kind, path: [String] = []) {
        self.kind = kind
        self.path = path
    }

    /// A value is absent where a field was selected.
    static func missingValue(at path: [String]) -> JSONDecodingError {
        JSONDecodingError(.missingValue, path: path)
    }

    /// A non-null field is null.
    static func nullValue(expected: String, at path: [String]) -> JSONDecodingError {
        JSONDecodingError(.nullValue(expected: expected), path: path)
    }

    /// A value has another JSON type than its field's.
    static func wrongType(_ found: JSONValue, expected: String, at path: [String] = []) -> JSONDecodingError {
        JSONDecodingError(.wrongType(found: found, expected: expected), path: path)
    }

    /// The response is not a GraphQL response: what is wrong with it.
    static func malformedResponse(_ problem: String) -> JSONDecodingError {
        JSONDecodingError(.malformedResponse(problem))
    }

    /// The same error, for the value at `prefix` followed by this error's path.
    func prefixed(by prefix: [String]) -> JSONDecodingError {
        JSONDecodingError(kind, path: prefix + path)
    }

    public var description: String {
        let location = path.isEmpty ? "the top level" : "'\(path.joined(separator: "."))'"
        let hint = "Regenerate API.swift if the schema changed."
        switch kind {
        case .missingValue:
            return "The response has no value at \(location), which the selection set selects. \(hint)"
        case .nullValue(let expected):
            return "The response has null at \(location), which is a non-null \(expected). \(hint)"
        case .wrongType(let found, let expected):
            return "The response has \(Self.render(found)) at \(location), which is \(Self.article(expected)). \(hint)"
        case .malformedResponse(let problem):
            return "The response is not a GraphQL response: \(problem)"
        }
    }

    /// `a String`, `an Int`; names that already start with `a ` or `an ` are kept.
    private static func article(_ type: String) -> String {
        if type.hasPrefix("a ") || type.hasPrefix("an ") { return type }
        let vowels: Set<Character> = ["A", "E", "I", "O", "U"]
        return (type.first.map(vowels.contains) == true ? "an " : "a ") + type
    }

    /// A short rendering of a JSON value for a message.
    private static func render(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .boolean(let boolean): return "the boolean \(boolean)"
        case .integer(let integer): return "the number \(integer)"
        case .number(let number): return "the number \(number)"
        case .string(let string):
            let shown = string.count > 40 ? String(string.prefix(40)) + "…" : string
            return "the string \"\(shown)\""
        case .array: return "a list"
        case .object: return "an object"
        }
    }
}
