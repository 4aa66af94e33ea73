import Crypto
import Foundation
import Hummingbird
import Prometheus

/// `GET /metrics`: the ``ServerMetrics`` of a server (and whatever else was made in the same
/// registry) in Prometheus's text format, for Prometheus to scrape.
///
/// With a `token`, a scrape must send `Authorization: Bearer <token>` (Prometheus's
/// `authorization: {credentials: …}` in its scrape configuration); `stratus serve` asks for one
/// when it listens beyond the loopback interface, where anyone on the network could read what
/// the API is used for.
///
/// ```swift
/// let registry = PrometheusCollectorRegistry()
/// let metrics = ServerMetrics(factory: PrometheusMetricsFactory(registry: registry))
/// let http = StratusHTTPServer(
///     server: server, authorization: authorization,
///     routes: [MetricsEndpoint(registry: registry)], metrics: metrics
/// )
/// ```
public struct MetricsEndpoint: HTTPRouteProvider {
    /// What is exported.
    public let registry: PrometheusCollectorRegistry
    /// The bearer token a scrape must send; `nil` lets any scrape read.
    public let token: String?

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), token: String? = nil) {
        self.registry = registry
        self.token = token
    }

    /// Metrics that this endpoint exports.
    public func makeMetrics() -> ServerMetrics {
        var factory = PrometheusMetricsFactory(registry: registry)
        // A local request takes well under the 5 ms of the default first bucket; a real-time
        // connection lasts up to a day.
        let requestBuckets: [Duration] = [
            .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
            .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
            .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
        ]
        factory.durationHistogramBuckets = [
            "stratus_latency_seconds": requestBuckets,
            "stratus_function_duration_seconds": requestBuckets,
            "stratus_connection_duration_seconds": [
                .seconds(1), .seconds(10), .seconds(60), .seconds(300), .seconds(1800), .seconds(3600),
                .seconds(14_400), .seconds(86_400),
            ],
        ]
        return ServerMetrics(factory: factory)
    }

    public func addRoutes(to router: Router<ClientAddressRequestContext>) {
        router.get("metrics") { request, _ in respond(to: request) }
    }

    public func serverListens(at origin: String) {}

    func respond(to request: Request) -> Response {
        if let token, !Self.authorizes(request.headers[.authorization], token: token) {
            let body =
                #"{"errors":[{"errorType":"UnauthorizedException","message":"/metrics needs the token "#
                + #"stratus serve printed at start-up: send Authorization: Bearer <token>."}]}"#
            return Response(
                status: .unauthorized,
                headers: [.contentType: "application/json", .wwwAuthenticate: "Bearer"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: body))
            )
        }
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: buffer))
        )
    }

    /// Whether `header` is `Bearer <token>`, compared in constant time.
    static func authorizes(_ header: String?, token: String) -> Bool {
        guard let header, header.hasPrefix("Bearer ") else { return false }
        let sent = SHA256.hash(data: Data(header.dropFirst("Bearer ".count).utf8))
        let expected = SHA256.hash(data: Data(token.utf8))
        return sent == expected
    }
}
