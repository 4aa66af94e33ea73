import AWSWire
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import StratusCognito
import StratusServer
import Synchronization

/// The Stratus Console on the API's port: the page at `/console` and its JSON admin API under
/// `/console/api` (the Console article of StratusServer's documentation lists the routes).
///
/// Every request needs the admin secret (``ConsoleAccess``); the first visit trades the secret
/// in the printed URL for a session cookie:
///
/// ```swift
/// let console = ConsoleEndpoint(access: ConsoleAccess(secret: ConsoleAccess.newSecret()), cognito: pool)
/// let http = StratusHTTPServer(server: server, authorization: authorization, routes: [console])
/// console.drive(http)
/// try await http.run(port: 0) { port in print(console.url(origin: "http://127.0.0.1:\(port)")) }
/// ```
public final class ConsoleEndpoint: HTTPRouteProvider {
    /// Who may use the console.
    public let access: ConsoleAccess
    /// The local Cognito whose users the console runs requests as; `nil` for none.
    public let cognito: CognitoUserPool?
    /// The backend's own OpenID Connect provider, whose tokens of any claims the console signs;
    /// `nil` for none.
    public let openIDConnect: LocalOpenIDConnect?
    /// Where the page's files are read from.
    let page: ConsolePage
    private let state = Mutex(State())
    /// The identity pool's credentials the Explorer signs with, by `guest` or `user:<name>`,
    /// reused until a minute before they expire.
    let identityPoolCredentials = Mutex<[String: AWSCredentials]>([:])

    private struct State {
        /// Where the server listens, once it does.
        var origin: String?
        var port = 0
        /// The server whose API the console drives.
        var http: StratusHTTPServer?
    }

    public init(access: ConsoleAccess, cognito: CognitoUserPool?, openIDConnect: LocalOpenIDConnect? = nil) {
        self.access = access
        self.cognito = cognito
        self.openIDConnect = openIDConnect
        page = ConsolePage()
    }

    /// Drives the API of `http`, the server the console is mounted on: its schema, its
    /// authorization and its API key.
    public func drive(_ http: StratusHTTPServer) {
        state.withLock { $0.http = http }
    }

    /// The URL that opens the console on the server at `origin` (`http://127.0.0.1:20002`), with
    /// the secret it trades for a session cookie.
    public func url(origin: String) -> String {
        "\(origin)/console?secret=\(access.secret)"
    }

    public func serverListens(at origin: String) {
        let port = URL(string: origin)?.port ?? 0
        state.withLock {
            $0.origin = origin
            $0.port = port
        }
    }

    /// Where the server listens (`http://127.0.0.1:<port>`), and the server it drives; `nil`
    /// before it listens.
    var serving: (origin: String, http: StratusHTTPServer)? {
        state.withLock { state in state.origin.flatMap { origin in state.http.map { (origin, $0) } } }
    }

    public func addRoutes(to router: Router<ClientAddressRequestContext>) {
        router.get("console") { request, _ in await self.respond(to: request) }
        router.get("console/**") { request, _ in await self.respond(to: request) }
        // Registered apart: a path under `console/api/` matches only these, whatever its method.
        router.get("console/api/**") { request, _ in await self.respond(to: request) }
        router.post("console/api/**") { request, _ in await self.respond(to: request) }
    }

    /// The answer to any request under `/console`.
    func respond(to request: Request) async -> Response {
        let port = state.withLock { $0.port }
        let path = request.uri.path
        let isAPI = path.hasPrefix("/console/api/")
        if let problem = access.crossSiteProblem(request) {
            return Self.refusal(
                .forbidden,
                "The console answers only its own pages; this request comes from another site (\(problem)).",
                json: isAPI
            )
        }
        if path == "/console", request.method == .get, let given = request.uri.queryParameters["secret"] {
            guard ConsoleAccess.same(String(given), access.secret) else {
                return Self.refusal(
                    .unauthorized,
                    "The secret in the URL is not this server's. Open the Console URL stratus serve printed.",
                    json: false
                )
            }
            var headers = Self.securityHeaders
            headers[.location] = "/console"
            headers[.setCookie] = access.sessionCookie(port: port)
            return Response(status: .seeOther, headers: headers)
        }
        guard access.carriesSecret(request, port: port) else {
            return Self.refusal(
                .unauthorized,
                "The console needs the admin secret: open the Console URL stratus serve printed (it sets a session "
                    + "cookie), or send Authorization: Bearer <secret>.",
                json: isAPI
            )
        }
        if isAPI { return await api(request) }
        guard request.method == .get else { return Self.refusal(.methodNotAllowed, "Use GET.", json: false) }
        return page.response(for: path)
    }

    /// A refusal that carries nothing of the data: JSON in AppSync's error shape for the admin
    /// API, plain text for the page.
    static func refusal(_ status: HTTPResponse.Status, _ message: String, json: Bool) -> Response {
        var headers = securityHeaders
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        guard json else {
            headers[.contentType] = "text/plain; charset=utf-8"
            return Response(
                status: status,
                headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(string: message))
            )
        }
        let errorType =
            status == .unauthorized
            ? "UnauthorizedException" : status == .forbidden ? "AccessDeniedException" : "BadRequestException"
        let body: JSON = ["errors": [["errorType": .string(errorType), "message": .string(message)]]]
        return jsonResponse(body, status: status, headers: headers)
    }

    static func jsonResponse(
        _ body: JSON,
        status: HTTPResponse.Status = .ok,
        headers: HTTPFields = securityHeaders
    ) -> Response {
        var headers = headers
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body.text)))
    }

    /// What every console answer carries: never cached, never framed by another page, never
    /// sniffed into another type, and no referrer.
    static var securityHeaders: HTTPFields {
        [
            .cacheControl: "no-store",
            .xContentTypeOptions: "nosniff",
            .contentSecurityPolicy: "default-src 'self'; frame-ancestors 'none'; form-action 'self'",
            HTTPField.Name("X-Frame-Options")!: "DENY",
            HTTPField.Name("Referrer-Policy")!: "no-referrer",
        ]
    }
}
