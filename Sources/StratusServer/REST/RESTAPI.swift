import AWSWire
import Foundation

// A route's methods are AWSWire's, which the clients send requests with too.
@_exported import enum AWSWire.RESTMethod

/// A REST API in the style of API Gateway with Lambda proxy integrations, served at
/// `/rest/<name>` next to the GraphQL endpoint.
///
/// ```swift
/// let items = RESTAPI(name: "items", routes: [
///     RESTRoute(path: "/items", methods: [.any], authorization: .awsIAM, handler: .echo),
///     RESTRoute(path: "/items/{proxy+}", methods: [.any], authorization: .awsIAM, handler: .echo),
/// ])
/// let http = StratusHTTPServer(server: server, authorization: authorization, restAPIs: [items])
/// // GET http://127.0.0.1:20002/rest/items/items/42 → {"success":"get call succeed!","url":"/items/42"}
/// ```
public struct RESTAPI: Sendable {
    /// The API's name: the `apiName` clients use, and the path segment after `/rest/`.
    public var name: String
    public var routes: [RESTRoute]
    /// Whether responses carry `Access-Control-Allow-Origin: *` and preflight `OPTIONS`
    /// requests are answered.
    public var cors: Bool

    public init(name: String, routes: [RESTRoute], cors: Bool = true) {
        self.name = name
        self.routes = routes
        self.cors = cors
    }

    /// The mode clients configure for the API: its routes' (the first route's, when they differ).
    public var authorizationMode: Identity.AuthorizationMode { routes.first?.authorization ?? .none }

    /// The authorization modes a route may use: API Gateway's Lambda authorizers (`AWS_LAMBDA`)
    /// are not served.
    static let servedModes: Set<Identity.AuthorizationMode> = [
        .none, .apiKey, .awsIAM, .amazonCognitoUserPools, .openIDConnect,
    ]

    /// Checks that every route can be served, before the server listens.
    ///
    /// - Throws: ``ServerError`` naming the route whose authorization is `AWS_LAMBDA`, which a
    ///   REST route would otherwise answer with 401 to every request.
    func validate() throws(ServerError) {
        for route in routes where !Self.servedModes.contains(route.authorization) {
            throw .invalidRESTAPI(
                "The REST route \(route.path) of '\(name)' uses \(route.authorization.rawValue) authorization, "
                    + "which REST APIs do not serve (API Gateway's Lambda authorizers are not supported). "
                    + "Use NONE, API_KEY, AWS_IAM, AMAZON_COGNITO_USER_POOLS or OPENID_CONNECT."
            )
        }
    }

    /// Where a backend whose GraphQL endpoint is `graphQLEndpoint` serves the API:
    /// `http://127.0.0.1:20002/rest/<name>` for `http://127.0.0.1:20002/graphql`.
    public func endpoint(besides graphQLEndpoint: URL) -> URL {
        graphQLEndpoint.deletingLastPathComponent().appending(path: "rest/\(name)")
    }
}

/// A resource path and the methods a handler serves there.
public struct RESTRoute: Sendable {
    /// `/items`, `/items/{id}`, or `/items/{proxy+}` for every path below `/items`.
    public var path: String
    /// HTTP methods, or `RESTMethod.any`.
    public var methods: [RESTMethod]
    /// Who may call: `NONE`, `API_KEY` (`x-api-key`), `AWS_IAM` (SigV4, service `execute-api`),
    /// `AMAZON_COGNITO_USER_POOLS` or `OPENID_CONNECT` (a JWT in `Authorization`).
    public var authorization: Identity.AuthorizationMode
    public var handler: RESTHandler

    public init(
        path: String,
        methods: [RESTMethod] = [.any],
        authorization: Identity.AuthorizationMode = .none,
        handler: RESTHandler = .echo
    ) {
        self.path = path
        self.methods = methods
        self.authorization = authorization
        self.handler = handler
    }

    /// The path parameters of `path` when this route serves it: `{id}` matches one segment,
    /// `{proxy+}` (or any `{name+}`) the rest of the path, at least one segment.
    func match(_ path: String) -> JSONObject? {
        let pattern = self.path.split(separator: "/", omittingEmptySubsequences: true)
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        var parameters = JSONObject()
        for (index, part) in pattern.enumerated() {
            if part.hasPrefix("{"), part.hasSuffix("+}") {
                guard segments.count > index else { return nil }
                let name = String(part.dropFirst().dropLast(2))
                let rest = segments[index...].joined(separator: "/")
                parameters[name] = .string(rest.removingPercentEncoding ?? rest)
                return parameters
            }
            guard index < segments.count else { return nil }
            let segment = String(segments[index])
            if part.hasPrefix("{"), part.hasSuffix("}") {
                parameters[String(part.dropFirst().dropLast())] = .string(segment.removingPercentEncoding ?? segment)
            } else if part != segment {
                return nil
            }
        }
        return pattern.count == segments.count ? parameters : nil
    }

    func serves(_ method: String) -> Bool {
        methods.contains(.any) || methods.contains { $0.rawValue == method }
    }
}

/// What answers a route's requests.
public enum RESTHandler: Sendable {
    /// Answers as the `/items` routes of Amplify's "Serverless express function" template:
    /// `{"success":"get call succeed!","url":"/items?x=1"}`, with `body` for POST and PUT.
    case echo
    /// An external command: the API Gateway proxy event as JSON on its standard input, the
    /// proxy response (`statusCode`, `headers`, `body`, `isBase64Encoded`) as JSON on its
    /// standard output, within `timeout`.
    case command([String], timeout: Duration = .seconds(29))
    /// A Swift function from the proxy event to the proxy response.
    case function(@Sendable (JSON) async throws -> JSON)
}
