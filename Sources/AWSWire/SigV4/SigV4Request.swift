import Foundation
import Synchronization

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
        Self.signedParts(of: url)
    }

    /// The `Host` value a client sends for `url`, as SigV4 signs it: lowercased, without user
    /// info, and with the port only when it is not the scheme's default.
    public static func hostHeaderValue(for url: URL) -> String {
        signedParts(of: url).host
    }

    /// The host, path and query of `url` as they appear in it.
    ///
    /// An absolute URL of the usual shape (`scheme://authority/path?query#fragment`) is read
    /// from its text directly; any other goes through `URLComponents`, which gives the same
    /// answer more slowly.
    static func signedParts(of url: URL) -> (host: String, path: String, query: String?) {
        if url.baseURL == nil {
            let text = url.absoluteString
            if let last = lastSignedParts.withLock({ $0 }), last.text == text {
                return last.parts
            }
            if let parts = URLText(text)?.signedParts {
                lastSignedParts.withLock { $0 = (text, parts) }
                return parts
            }
        }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return (host: "", path: url.path(percentEncoded: true), query: url.query(percentEncoded: true))
        }
        return (
            host: Self.hostHeaderValue(components),
            path: components.percentEncodedPath,
            query: components.percentEncodedQuery
        )
    }

    /// The URL split last and its parts: a client signs request after request to one endpoint.
    private static let lastSignedParts = Mutex<(text: String, parts: (host: String, path: String, query: String?))?>(
        nil
    )

    private static func hostHeaderValue(_ components: URLComponents) -> String {
        hostHeaderValue(host: components.percentEncodedHost ?? "", port: components.port, scheme: components.scheme)
    }

    /// `host` lowercased, in brackets when it is an IPv6 address, with `port` when it is not the
    /// default port of `scheme`.
    fileprivate static func hostHeaderValue(
        host: some StringProtocol,
        port: Int?,
        scheme: (some StringProtocol)?
    )
        -> String
    {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        }
        if host.utf8.contains(UInt8(ascii: ":")) {
            host = "[\(host)]"
        }
        if let port {
            let defaultPort: Int? =
                switch scheme?.lowercased() {
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

/// The parts of an absolute URL's text, split as RFC 3986 does, without decoding anything.
struct URLText {
    var scheme: String
    var host: String
    var port: Int?
    var path: String
    var query: String?

    /// Splits `text`, or returns `nil` when it is not `scheme://authority…` with a host of
    /// ASCII characters and a numeric port.
    init?(_ text: String) {
        guard let parts = SigV4Canonical.withUTF8(text, Self.split) else { return nil }
        self = parts
    }

    private init(scheme: String, host: String, port: Int?, path: String, query: String?) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = path
        self.query = query
    }

    private static func split(_ bytes: UnsafeBufferPointer<UInt8>) -> URLText? {
        func string(_ range: Range<Int>) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }
        func firstIndex(in range: Range<Int>, where predicate: (UInt8) -> Bool) -> Int? {
            range.first { predicate(bytes[$0]) }
        }
        guard let colon = firstIndex(in: 0..<bytes.count, where: { $0 == UInt8(ascii: ":") }), colon > 0,
            bytes[..<colon].allSatisfy(isSchemeByte), colon + 2 < bytes.count,
            bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
        else { return nil }
        let authorityStart = colon + 3
        let authorityEnd =
            firstIndex(in: authorityStart..<bytes.count) {
                $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
            } ?? bytes.count
        let pathEnd =
            firstIndex(in: authorityEnd..<bytes.count) { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? bytes.count
        var query: String?
        if pathEnd < bytes.count, bytes[pathEnd] == UInt8(ascii: "?") {
            let queryEnd = firstIndex(in: (pathEnd + 1)..<bytes.count) { $0 == UInt8(ascii: "#") } ?? bytes.count
            query = string((pathEnd + 1)..<queryEnd)
        }

        let hostStart =
            (authorityStart..<authorityEnd).last { bytes[$0] == UInt8(ascii: "@") }.map { $0 + 1 } ?? authorityStart
        let hostEnd: Int
        if hostStart < authorityEnd, bytes[hostStart] == UInt8(ascii: "[") {
            guard let close = firstIndex(in: hostStart..<authorityEnd, where: { $0 == UInt8(ascii: "]") }) else {
                return nil
            }
            hostEnd = close + 1
        } else {
            hostEnd = firstIndex(in: hostStart..<authorityEnd) { $0 == UInt8(ascii: ":") } ?? authorityEnd
        }
        guard bytes[hostStart..<hostEnd].allSatisfy({ $0 < 0x80 }) else { return nil }
        var port: Int?
        if hostEnd < authorityEnd {
            guard bytes[hostEnd] == UInt8(ascii: ":") else { return nil }
            let digits = bytes[(hostEnd + 1)..<authorityEnd]
            guard digits.count <= 5, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
            else { return nil }
            port = digits.isEmpty ? nil : digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        }
        return URLText(
            scheme: string(0..<colon),
            host: string(hostStart..<hostEnd),
            port: port,
            path: string(authorityEnd..<pathEnd),
            query: query
        )
    }

    /// The `Host` value SigV4 signs, the path and the query.
    var signedParts: (host: String, path: String, query: String?) {
        (SigV4Request.hostHeaderValue(host: host, port: port, scheme: scheme), path, query)
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }
}
