import Foundation

/// A GraphQL operation to send: the document, its variables, and how to decode the response.
///
/// ```swift
/// let request = GraphQLRequest<Todo>(
///     document: "query getTodo($id: ID!) { getTodo(id: $id) { id name } }",
///     variables: ["id": id],
///     responseType: Todo.self,
///     decodePath: "getTodo"
/// )
/// let response = try await Amplify.API.query(request: request)
/// ```
public struct GraphQLRequest<R: Decodable>: Sendable {
    /// The API to send to, by its name in the configuration; `nil` for the only GraphQL API.
    public var apiName: String?
    /// The GraphQL document.
    public var document: String
    /// The operation's variables, as JSON.
    public var variables: [String: JSONValue]?
    /// The dotted path in `data` to decode as `R`, such as `"getTodo"` or `"listTodos.items"`.
    public var decodePath: String?
    /// The authorization mode for this request, overriding the API's default.
    public var authMode: AWSAuthorizationType?
    /// Additional HTTP headers for this request, such as DataStore's `Idempotency-Key`; they are
    /// set before the request is signed.
    public var headers: [String: String] = [:]
    /// Why the variables given as `[String: Any]` could not all become JSON; the API plugin
    /// refuses to send the request with this message.
    package var variablesProblem: String?

    /// The type the response decodes to.
    public var responseType: R.Type { R.self }

    /// A request whose variables are already JSON.
    public init(
        apiName: String? = nil,
        document: String,
        variables: [String: JSONValue]? = nil,
        responseType: R.Type,
        decodePath: String? = nil,
        authMode: AWSAuthorizationType? = nil
    ) {
        self.apiName = apiName
        self.document = document
        self.variables = variables
        self.decodePath = decodePath
        self.authMode = authMode
    }

    /// A request whose variables are JSON-compatible values, as `JSONSerialization` produces
    /// them (`String`, numbers, `Bool`, arrays, dictionaries, `NSNull`) or ``JSONValue``s.
    ///
    /// A value that is not JSON-compatible makes the request fail when it is sent, with an
    /// `APIError` naming its key: encode it first, for example with `JSONEncoder` and
    /// `JSONSerialization`.
    @_disfavoredOverload
    public init(
        apiName: String? = nil,
        document: String,
        variables: [String: Any]?,
        responseType: R.Type,
        decodePath: String? = nil,
        authMode: AWSAuthorizationType? = nil
    ) {
        var converted: [String: JSONValue]?
        var problems: [String] = []
        if let variables {
            var values: [String: JSONValue] = [:]
            for (key, value) in variables {
                if let json = JSONValue(jsonObject: value) {
                    values[key] = json
                } else {
                    problems.append("'\(key)' (\(type(of: value)))")
                }
            }
            converted = values
        }
        self.init(
            apiName: apiName,
            document: document,
            variables: converted,
            responseType: responseType,
            decodePath: decodePath,
            authMode: authMode
        )
        if !problems.isEmpty {
            variablesProblem =
                "GraphQLRequest variables must be JSON-compatible; \(problems.sorted().joined(separator: ", ")) "
                + "\(problems.count == 1 ? "is" : "are") not. Encode with JSONEncoder and JSONSerialization first."
        }
    }

    /// The HTTP body: `{"query": document, "variables": variables}`.
    public var body: JSONValue {
        var object: [String: JSONValue] = ["query": .string(document)]
        if let variables { object["variables"] = .object(variables) }
        return .object(object)
    }
}

extension JSONValue {
    /// Converts a value as `JSONSerialization` produces it; `nil` when it is not JSON.
    public init?(jsonObject value: Any) {
        switch value {
        case let json as JSONValue: self = json
        case is NSNull: self = .null
        case let string as String: self = .string(string)
        case let bool as Bool where !(value is NSNumber): self = .boolean(bool)
        case let number as NSNumber:
            let type = String(cString: number.objCType)
            if type == "c" || type == "B" {
                self = .boolean(number.boolValue)
            } else if ["d", "f"].contains(type) {
                let double = number.doubleValue
                self = .number(double)
            } else {
                self = .integer(number.intValue)
            }
        case let int as Int: self = .integer(int)
        case let double as Double: self = .number(double)
        case let array as [Any]:
            var elements: [JSONValue] = []
            for element in array {
                guard let json = JSONValue(jsonObject: element) else { return nil }
                elements.append(json)
            }
            self = .array(elements)
        case let dictionary as [String: Any]:
            var object: [String: JSONValue] = [:]
            for (key, element) in dictionary {
                guard let json = JSONValue(jsonObject: element) else { return nil }
                object[key] = json
            }
            self = .object(object)
        case let optional as Any? where optional == nil: self = .null
        default: return nil
        }
    }
}
