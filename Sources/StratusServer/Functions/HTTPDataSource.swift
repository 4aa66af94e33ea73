import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StratusCodegen

/// AppSync's HTTP data source: sends the request a resolver makes and maps the response as
/// Amplify's `@http` response template does.
///
/// A response with a success status (`200`, and `201` for methods with a body) gives the
/// field its body, parsed as JSON (an empty body is `null`). Any other status is a field error
/// whose `errorType` is the status code and whose message is the body, as
/// `$util.appendError($ctx.result.body, $ctx.result.statusCode)` reports it:
///
/// ```json
/// {"path": ["weather"], "data": null, "errorType": "404", "errorInfo": null,
///  "locations": [{"line": 1, "column": 3, "sourceName": null}], "message": "{\"error\":\"no city\"}"}
/// ```
///
/// A request that cannot connect, or that gets no complete answer within ``timeout``, is a
/// field error naming the URL; redirects are not followed.
struct HTTPDataSource: Sendable {
    /// One request.
    struct Request: Sendable {
        var method: StratusCodegen.HTTPRequest.Method
        var url: String
        /// Names and values in the order they are set; a name set again replaces the earlier
        /// value, whatever its case.
        var headers: [(name: String, value: String)] = []
        var body: JSON?

        mutating func setHeader(_ name: String, _ value: String) {
            headers.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
            headers.append((name, value))
        }
    }

    /// The headers of the client's request that AppSync's `$util.http.copyHeaders` leaves out.
    static let restrictedHeaders: Set<String> = [
        "transfer-encoding", "connection", "host", "expect", "keep-alive", "upgrade", "proxy-authenticate",
        "proxy-authorization", "te", "content-length",
    ]

    /// The largest response body read, in bytes: AppSync's response size limit.
    static let maximumResponseSize = 5 * 1024 * 1024

    /// The client every HTTP data source shares. A connection that cannot be made fails the
    /// request at once, and no redirect is followed.
    private static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.decompression = .disabled
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// How long a request may take, connecting included.
    var timeout: Duration

    /// The client's request headers as `$util.http.copyHeaders($ctx.request.headers)` gives them:
    /// names in lower case, without ``restrictedHeaders``.
    static func copiedHeaders(_ headers: JSONObject) -> [(name: String, value: String)] {
        headers.compactMap { name, value in
            guard !restrictedHeaders.contains(name.lowercased()), let value = value.stringValue else { return nil }
            return (name.lowercased(), value)
        }
    }

    /// Sends `request` and maps its response; `field` (`Query.weather`) is named in errors.
    ///
    /// - Throws: ``ResolverError`` for a status other than a success, a body that is not JSON,
    ///   and a request that fails or times out.
    func send(_ request: Request, field: String) async throws(ResolverError) -> JSON {
        let described = "\(request.method.rawValue) \(request.url)"
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(string: body.text)) }
        let status: Int
        let contentType: String
        let bytes: ByteBuffer
        do {
            let deadline =
                NIODeadline.now()
                + .nanoseconds(
                    Int64(timeout.components.seconds) * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
                )
            let response = try await Self.client.execute(outgoing, deadline: deadline)
            status = Int(response.status.code)
            contentType = response.headers.first(name: "content-type") ?? ""
            bytes = try await response.body.collect(upTo: Self.maximumResponseSize)
        } catch {
            throw ResolverError(
                errorType: nil,
                message: Self.failure(error, request: described, field: field, timeout: timeout)
            )
        }
        let text = String(buffer: bytes)
        let succeeded = status == 200 || (request.method.hasBody && status == 201)
        guard succeeded else {
            var error = ResolverError(errorType: nil, message: text)
            error.reportedErrorType = String(status)
            throw error
        }
        if contentType.lowercased().contains("xml") {
            var error = ResolverError(
                errorType: nil,
                message:
                    "\(described) answered XML (Content-Type: \(contentType)), which AppSync converts to JSON and the "
                    + "local server does not. Answer \(field) with a JSON body."
            )
            error.reportedErrorType = "MappingTemplate"
            throw error
        }
        guard !text.allSatisfy(\.isWhitespace) else { return .null }
        do {
            return try JSON(parsing: text)
        } catch {
            var failure = ResolverError(
                errorType: nil,
                message:
                    "\(described) answered a body that is not JSON (\(error)); the body is \(field)'s value, so it "
                    + "must be JSON: \(String(text.prefix(200)))"
            )
            failure.reportedErrorType = "MappingTemplate"
            throw failure
        }
    }

    /// What the client reads when no response arrived.
    private static func failure(_ error: any Error, request: String, field: String, timeout: Duration) -> String {
        if let error = error as? HTTPClientError, error == .deadlineExceeded {
            return "\(request) for \(field) got no answer within \(FunctionFailure.seconds(timeout)) seconds."
        }
        if let error = error as? NIOTooManyBytesError {
            return "\(request) for \(field) answered more than \(error.maxBytes.map(String.init) ?? "5242880") bytes, "
                + "AppSync's limit for a response."
        }
        return "\(request) for \(field) failed: \(error). Check that the server at this URL is running."
    }
}
