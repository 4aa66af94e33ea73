import Foundation
import StratusCodegen

/// An `@http` field as the server calls it: the request Amplify's request template makes,
/// with `${env}` and `${aws_region}` replaced and the origin sent where `httpOrigins` says.
///
/// For `@http(method: PUT, url: "https://api.example.com/posts/:id", headers: [{key: "X-Key",
/// value: "k"}])`, a call with `params: {id: "7"}`, `query: {draft: true}` and `body: {title: "T"}`
/// sends:
///
/// ```http
/// PUT https://api.example.com/posts/7?draft=true
/// (the client's request headers, but Host, Content-Length and the other hop-by-hop ones)
/// accept-encoding: application/json
/// Content-Type: application/json
/// X-Key: k
///
/// {"title":"T"}
/// ```
///
/// `GET` and `DELETE` send no body, and `DELETE` no query either; path parameters are
/// percent-encoded; `null` query values are left out, lists repeat their name, objects are
/// sent as JSON text. `${ctx.args.…}` and `${ctx.source.…}` in the URL are replaced by the
/// argument or the parent's field.
struct HTTPDirective: Sendable, Hashable {
    var method: StratusCodegen.HTTPRequest.Method
    /// Where requests go: the URL's origin, or the one `httpOrigins` maps it to.
    var origin: String
    /// The resource path, parameters and `${ctx…}` references still in it.
    var path: String
    var headers: [StratusCodegen.HTTPRequest.Header]
    var requiredArguments: [String]

    /// The field `request` describes, under `configuration`.
    init(_ request: StratusCodegen.HTTPRequest, configuration: ServerConfiguration) {
        let substitute = { (text: String) in
            CustomFieldPlan.functionName(text, environment: configuration.environmentName)
                .replacingOccurrences(of: "${aws_region}", with: configuration.region)
        }
        let origin = substitute(request.origin)
        let mapped = configuration.httpOrigins[request.origin] ?? configuration.httpOrigins[origin]
        var target = mapped?.absoluteString ?? origin
        while target.hasSuffix("/") { target.removeLast() }
        self.method = request.method
        self.origin = target
        self.path = substitute(request.path)
        self.headers = request.headers.map {
            StratusCodegen.HTTPRequest.Header(key: substitute($0.key), value: substitute($0.value))
        }
        self.requiredArguments = request.requiredArguments
    }

    /// The message of AppSync's request template when a non-null argument is in neither the
    /// query nor the body.
    static let missingArgument =
        "An argument you marked as Non-Null is not present in the query nor the body of your request."

    /// The request for the field of `event`.
    ///
    /// - Throws: ``ResolverError`` when a non-null argument is missing from both `query` and
    ///   `body`, or when the URL names a value the event does not have.
    func request(for event: FunctionEvent, field: String) throws(ResolverError) -> HTTPDataSource.Request {
        let arguments = event.arguments
        let query = arguments["query"]?.objectValue ?? [:]
        if method.hasBody {
            let body = arguments["body"]?.objectValue ?? [:]
            // The template tests `!$ctx.args.body.name && !$ctx.args.query.name`: absent, null
            // and false are all missing to it.
            func missing(_ value: JSON?) -> Bool { value == nil || value == .null || value == .bool(false) }
            if requiredArguments.contains(where: { missing(body[$0]) && missing(query[$0]) }) {
                throw ResolverError(errorType: nil, message: Self.missingArgument)
            }
        }
        var url = origin + (try resolvedPath(event, field: field))
        if method != .delete {
            let items = Self.queryItems(query)
            if !items.isEmpty { url += (url.contains("?") ? "&" : "?") + items.joined(separator: "&") }
        }
        var request = HTTPDataSource.Request(method: method, url: url)
        request.headers = HTTPDataSource.copiedHeaders(event.headers)
        request.setHeader("accept-encoding", "application/json")
        if method.hasBody {
            request.setHeader("Content-Type", "application/json")
            if let body = arguments["body"], body != .null { request.body = body }
        }
        for header in headers { request.setHeader(header.key, header.value) }
        return request
    }

    /// ``path`` with each `:name` replaced by `params.name` and each `${ctx.…}` by its value,
    /// percent-encoded.
    private func resolvedPath(_ event: FunctionEvent, field: String) throws(ResolverError) -> String {
        let params = event.arguments["params"]?.objectValue ?? [:]
        var result = ""
        var rest = Substring(path)
        while let next = rest.firstIndex(where: { $0 == ":" || $0 == "$" }) {
            result += rest[..<next]
            rest = rest[next...]
            if rest.first == ":" {
                let name = rest.dropFirst().prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
                guard !name.isEmpty else {
                    result.append(":")
                    rest = rest.dropFirst()
                    continue
                }
                result += Self.pathSegment(params[String(name)] ?? .null)
                rest = rest.dropFirst(name.count + 1)
            } else if rest.hasPrefix("${"), let close = rest.firstIndex(of: "}") {
                let expression = String(rest[rest.index(rest.startIndex, offsetBy: 2)..<close])
                result += Self.pathSegment(try value(of: expression, in: event, field: field))
                rest = rest[rest.index(after: close)...]
            } else {
                result.append(rest.removeFirst())
            }
        }
        return result + rest
    }

    /// The value of `${expression}` in the URL: `ctx.args.…`, `ctx.arguments.…` or
    /// `ctx.source.…` (`context.` for `ctx.`).
    private func value(of expression: String, in event: FunctionEvent, field: String) throws(ResolverError) -> JSON {
        var parts = expression.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 3, ["ctx", "context"].contains(parts[0]) else {
            throw Self.unsupported(expression, field: field)
        }
        parts.removeFirst()
        var value: JSON
        switch parts.removeFirst() {
        case "args", "arguments": value = .object(event.arguments)
        case "source": value = event.source
        default: throw Self.unsupported(expression, field: field)
        }
        for part in parts { value = value[part] ?? .null }
        guard value != .null else {
            throw ResolverError(
                errorType: nil,
                message: "The URL of \(field)'s @http uses ${\(expression)}, which is null here. Give it a value."
            )
        }
        return value
    }

    private static func unsupported(_ expression: String, field: String) -> ResolverError {
        ResolverError(
            errorType: nil,
            message:
                "The URL of \(field)'s @http uses ${\(expression)}, which the local server does not evaluate. It "
                + "evaluates ${env}, ${aws_region}, ${ctx.args.…} and ${ctx.source.…}."
        )
    }

    /// The text of `value` in a URL: strings as they are, other values as JSON.
    private static func text(_ value: JSON) -> String {
        if case .string(let string) = value { return string }
        return value.text
    }

    private static let segmentCharacters = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/;"))
    private static let queryCharacters = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+#;"))

    private static func pathSegment(_ value: JSON) -> String {
        text(value).addingPercentEncoding(withAllowedCharacters: segmentCharacters) ?? ""
    }

    /// `name=value` for each member of `query`, in order: `null` left out, a list repeating its
    /// name.
    static func queryItems(_ query: JSONObject) -> [String] {
        var items: [String] = []
        func add(_ name: String, _ value: JSON) {
            switch value {
            case .null: return
            case .array(let elements): for element in elements { add(name, element) }
            default:
                let encodedName = name.addingPercentEncoding(withAllowedCharacters: queryCharacters) ?? name
                let encodedValue = text(value).addingPercentEncoding(withAllowedCharacters: queryCharacters) ?? ""
                items.append("\(encodedName)=\(encodedValue)")
            }
        }
        for (name, value) in query { add(name, value) }
        return items
    }
}
