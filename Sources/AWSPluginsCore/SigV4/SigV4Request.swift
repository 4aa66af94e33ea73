import Foundation

/// An HTTP request as SigV4 sees it: a method, a URL, header fields and a body.
///
/// ``SigV4Signer`` signs it and ``SigV4Verifier`` checks it. Header fields keep their order
/// and repeated names, as on the wire, because both take part in the signature.
///
/// ```swift
/// let request = SigV4Request(
///     method: "POST",
///     url: URL(string: "https://example.appsync-api.us-east-1.amazonaws.com/graphql")!,
///     headers: ["content-type": "application/json"],
///     body: Data(#"{"query":"{ hello }"}"#.utf8)
/// )
/// ```
public struct SigV4Request: Sendable, Hashable {
    /// The HTTP method, such as `POST`; it is signed in upper case.
    public var method: String

    /// The URL as it is sent: its path and query stay percent-encoded as they are.
    public var url: URL

    /// The header fields, in order, repeated names included.
    public var headers: Headers

    /// The body; empty for requests without one.
    public var body: Data

    /// Creates a request from its parts.
    public init(method: String, url: URL, headers: Headers = [:], body: Data = Data()) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

extension SigV4Request {
    /// The parts of ``url`` that are signed, as they appear in the URL.
    var urlParts: (host: String, path: String, query: String?) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return (host: "", path: url.path(percentEncoded: true), query: url.query(percentEncoded: true))
        }
        return (
            host: Self.hostHeaderValue(components),
            path: components.percentEncodedPath,
            query: components.percentEncodedQuery
        )
    }

    /// The `Host` value a client sends for `url`, as SigV4 signs it: lowercased, without user
    /// info, and with the port only when it is not the scheme's default.
    public static func hostHeaderValue(for url: URL) -> String {
        URLComponents(url: url, resolvingAgainstBaseURL: false).map(hostHeaderValue) ?? ""
    }

    private static func hostHeaderValue(_ components: URLComponents) -> String {
        var host = (components.percentEncodedHost ?? "").lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        }
        if host.contains(":") {
            host = "[\(host)]"
        }
        if let port = components.port {
            let defaultPort: Int? =
                switch components.scheme?.lowercased() {
                case "http": 80
                case "https": 443
                default: nil
                }
            if port != defaultPort {
                host += ":\(port)"
            }
        }
        return host
    }
}
