import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request that got no response at all: the server could not be reached, the connection
/// dropped, or the call was cancelled. Each client reports it in its own error
/// (`APIError.networkError`, `AWSAppSyncClientError` with code `requestFailed`).
///
/// Its description says why in a sentence:
///
/// ```
/// The request to http://localhost:20002/graphql could not connect to the server; check that it is running.
/// ```
public struct AppSyncTransportError: Error, Sendable, CustomStringConvertible {
    /// Where the request went.
    public let url: URL?
    /// What the transport threw.
    public let underlying: any Error

    public init(url: URL?, underlying: any Error) {
        self.url = url
        self.underlying = underlying
    }

    /// Whether the call was cancelled rather than failed.
    public var isCancellation: Bool {
        underlying is CancellationError || (underlying as? URLError)?.code == .cancelled
    }

    public var description: String {
        let target = url.map { "The request to \($0.absoluteString)" } ?? "The request"
        if isCancellation {
            return "\(target) was cancelled."
        }
        if let error = underlying as? URLError {
            let reason: String
            switch error.code {
            case .cannotConnectToHost: reason = "could not connect to the server; check that it is running"
            case .cannotFindHost, .dnsLookupFailed: reason = "could not resolve the host name"
            case .timedOut: reason = "timed out"
            case .notConnectedToInternet: reason = "found no network connection"
            case .networkConnectionLost: reason = "lost its connection"
            case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate:
                reason = "failed to establish a secure connection"
            default: reason = "failed with URLError \(error.code.rawValue)"
            }
            return "\(target) \(reason)."
        }
        let text = "\(underlying)"
        return "\(target) failed: " + (text.hasSuffix(".") ? text : text + ".")
    }
}
