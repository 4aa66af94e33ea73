import Amplify
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends requests with AsyncHTTPClient: SwiftNIO's HTTP client, with pooled keep-alive
/// connections on an event loop. The default transport on Linux, where it answers a small
/// request on loopback in about half the time `URLSession` takes.
///
/// Failures without a response are thrown as `URLError` (`.timedOut`, `.cannotConnectToHost`,
/// `.networkConnectionLost`, …) with AsyncHTTPClient's description, as ``URLSessionTransport``
/// throws them, so that callers tell a network failure from a refusal the same way with both.
public struct AsyncHTTPClientTransport: HTTPTransport {
    /// The client that sends the requests.
    public let client: HTTPClient
    /// The largest response body accepted, in bytes.
    public let maximumResponseSize: Int

    /// The client transports share by default: AsyncHTTPClient's browser-like settings, except
    /// that a connection that cannot be made fails the request at once (as `URLSession` does)
    /// instead of being tried again until the request's deadline: the plugins retry on their own
    /// terms, and an unreachable backend must read as offline without a minute's wait.
    public static let sharedClient: HTTPClient = {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(10)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// A transport over `client`, by default ``sharedClient``.
    public init(client: HTTPClient = Self.sharedClient, maximumResponseSize: Int = 256 * 1024 * 1024) {
        self.client = client
        self.maximumResponseSize = maximumResponseSize
    }

    /// Sends `request`, waiting at most its `timeoutInterval` for the whole response.
    ///
    /// - Throws: `URLError` when no complete response arrives; `CancellationError` when the
    ///   task is cancelled.
    public func send(_ request: URLRequest) async throws -> APIResponse {
        guard let url = request.url else { throw URLError(.badURL) }
        if request.httpBodyStream != nil {
            throw Self.urlError(
                .unsupportedURL,
                "AsyncHTTPClientTransport sends httpBody, not httpBodyStream. Set the request's httpBody."
            )
        }
        var outgoing = HTTPClientRequest(url: url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.httpMethod ?? "GET")
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            outgoing.headers.add(name: name, value: value)
        }
        if let body = request.httpBody {
            outgoing.body = .bytes(ByteBuffer(bytes: body))
        }
        let timeout = request.timeoutInterval > 0 ? request.timeoutInterval : 60
        do {
            let response = try await client.execute(outgoing, timeout: .milliseconds(Int64(timeout * 1000)))
            let body = try await response.body.collect(upTo: maximumResponseSize)
            var headers: [String: String] = [:]
            for (name, value) in response.headers {
                if let existing = headers[name] {
                    headers[name] = existing + ", " + value
                } else {
                    headers[name] = value
                }
            }
            return APIResponse(
                statusCode: Int(response.status.code),
                headers: headers,
                body: Data(body.readableBytesView)
            )
        } catch {
            throw Self.translate(error, url: url)
        }
    }

    /// `error` as the `URLError` a `URLSession` would have thrown, or as is for a cancellation.
    static func translate(_ error: any Error, url: URL) -> any Error {
        if error is CancellationError || error is URLError { return error }
        let code: URLError.Code
        switch error {
        case let error as HTTPClientError:
            switch error {
            case .connectTimeout, .deadlineExceeded, .readTimeout, .writeTimeout, .tlsHandshakeTimeout,
                .getConnectionFromPoolTimeout:
                code = .timedOut
            case .remoteConnectionClosed, .uncleanShutdown:
                code = .networkConnectionLost
            case .cancelled, .requestStreamCancelled:
                return CancellationError()
            case .invalidURL, .emptyHost, .emptyScheme:
                code = .badURL
            default:
                code = .unknown
            }
        case is NIOTooManyBytesError:
            code = .dataLengthExceedsMaximum
        case is NIOConnectionError, is ChannelError, is IOError:
            code = .cannotConnectToHost
        default:
            code = .unknown
        }
        return urlError(code, "\(url.absoluteString): \(error)")
    }

    private static func urlError(_ code: URLError.Code, _ description: String) -> URLError {
        URLError(code, userInfo: [NSLocalizedDescriptionKey: description])
    }
}

/// The transport the plugins and clients use when none is given: ``AsyncHTTPClientTransport``
/// on Linux, ``URLSessionTransport`` (the system's networking, proxies and trust settings) on
/// Apple platforms.
public func defaultHTTPTransport() -> any HTTPTransport {
    #if os(Linux)
        AsyncHTTPClientTransport()
    #else
        URLSessionTransport()
    #endif
}
