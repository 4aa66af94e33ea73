import Amplify

/// Why a response body is not a GraphQL response the clients can read: it is not JSON, not an
/// object, or its `errors` do not have the shape of GraphQL errors.
///
/// ```
/// The response is not a GraphQL response: 'errors.0.message' is the number 3, where a String was expected.
/// ```
public struct GraphQLResponseBodyError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Kind: Hashable {
        case notJSON(JSONParseError)
        case wrongType(found: JSONValue, expected: String)
    }

    private let kind: Kind
    /// The keys and list indexes leading to the value at fault, outermost first
    /// (`["errors", "0", "message"]`); empty for the body itself.
    public let path: [String]

    private init(_ kind: Kind, path: [String]) {
        self.kind = kind
        self.path = path
    }

    /// The body is not JSON.
    static func notJSON(_ error: JSONParseError) -> GraphQLResponseBodyError {
        GraphQLResponseBodyError(.notJSON(error), path: [])
    }

    /// The value at `path` is `found`, where `expected` was expected.
    static func wrongType(_ found: JSONValue, expected: String, at path: [String]) -> GraphQLResponseBodyError {
        GraphQLResponseBodyError(.wrongType(found: found, expected: expected), path: path)
    }

    /// The value found where another type was expected; `nil` when the body is not JSON.
    public var found: JSONValue? {
        guard case .wrongType(let found, _) = kind else { return nil }
        return found
    }

    /// What was expected at ``path`` (`"an object"`, `"a list"`, `"String"`); `nil` when the
    /// body is not JSON.
    public var expected: String? {
        guard case .wrongType(_, let expected) = kind else { return nil }
        return expected
    }

    public var description: String {
        switch kind {
        case .notJSON(let error):
            return "The response is not JSON: \(error)"
        case .wrongType(let found, let expected):
            let location = path.isEmpty ? "the body" : "'\(path.joined(separator: "."))'"
            let article =
                expected.hasPrefix("a ") || expected.hasPrefix("an ")
                ? expected : (expected.first.map { "AEIOU".contains($0) } == true ? "an " : "a ") + expected
            return "The response is not a GraphQL response: \(location) is \(Self.render(found)), "
                + "where \(article) was expected."
        }
    }

    /// A short rendering of a JSON value for a message.
    private static func render(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .boolean(let boolean): return "the boolean \(boolean)"
        case .integer(let integer): return "the number \(integer)"
        case .number(let number): return "the number \(number)"
        case .string(let string): return "the string \"\(string.count > 40 ? string.prefix(40) + "…" : string)\""
        case .array: return "a list"
        case .object: return "an object"
        }
    }
}
