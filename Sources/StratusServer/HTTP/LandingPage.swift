import HTTPTypes
import Hummingbird

/// What a person who opens the server in a browser reads: `GET /` names the endpoints, and
/// `GET /graphql` without a query says how to send one, instead of a 404 or a parse error.
enum LandingPage {
    /// The answer to `GET /`: the endpoints at the origin the request reached.
    static func root(_ request: Request, restAPIs: [RESTAPI]) -> Response {
        let (http, webSocket) = origins(of: request)
        var lines = [
            "Stratus: a local AppSync-compatible backend.",
            "",
            "GraphQL endpoint: \(http)/graphql (POST a JSON body {\"query\": ...} with the x-api-key header)",
            "Real-time endpoint: \(webSocket)/graphql/realtime",
        ]
        for api in restAPIs { lines.append("REST API \(api.name): \(http)/rest/\(api.name)") }
        lines += [
            "Health: \(http)/health",
            "",
            "Clients read amplifyconfiguration.json, amplify_outputs.json and awsconfiguration.json, which `stratus serve` writes into "
                + "its working directory (or --config-output), with the endpoint and the API key.",
        ]
        return text(lines)
    }

    /// Whether `request` is a browser opening `/graphql`: a `GET` without a query that accepts
    /// HTML. Clients that send a query, or accept JSON only, get the API's own answer.
    static func isBrowserVisit(_ request: Request) -> Bool {
        guard request.method == .get, request.headers[values: .accept].contains(where: { $0.contains("text/html") })
        else { return false }
        let query = FormEncoding.parameters(request.uri.query ?? "")?["query"] ?? ""
        return query.isEmpty
    }

    /// The answer to a browser opening `/graphql`.
    static func graphQLEndpoint(_ request: Request) -> Response {
        let (http, webSocket) = origins(of: request)
        return text([
            "This is the GraphQL endpoint of a local AppSync-compatible backend.",
            "",
            "Send a query as AppSync takes it, with the API key `stratus serve` printed:",
            "  curl \(http)/graphql -H 'x-api-key: <API key>' -H 'content-type: application/json' "
                + "-d '{\"query\": \"{ __typename }\"}'",
            "or as a GET: \(http)/graphql?query=%7B__typename%7D with the x-api-key header.",
            "Subscriptions connect to \(webSocket)/graphql/realtime.",
        ])
    }

    /// The HTTP and WebSocket origins the request reached, by its `Host`.
    private static func origins(of request: Request) -> (http: String, webSocket: String) {
        let authority = request.head.authority ?? "127.0.0.1"
        return ("http://\(authority)", "ws://\(authority)")
    }

    private static func text(_ lines: [String]) -> Response {
        var headers = GraphQLEndpoint.corsHeaders
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(
            status: .ok,
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: lines.joined(separator: "\n") + "\n"))
        )
    }
}
