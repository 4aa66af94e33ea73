import Foundation
import Hummingbird

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The names a request's `Host` header may give: the server's own.
///
/// A page on another site can make a browser send requests to the server under a name of the
/// page's own that resolves to the server's address (DNS rebinding), and read the answers as
/// the page's: the browser holds the name, not the address, as the origin. Such a request
/// carries that name in its `Host` header, so the server answers only requests that name it:
///
/// - an IP address (`127.0.0.1`, `[::1]`, `192.168.1.20`): a browser sends one only to that
///   address, which no rebinding can give another page;
/// - `localhost`, and the address the server listens on when it is a name;
/// - the machine's host name, when the server listens beyond the loopback interface;
/// - the names given with `--allowed-host` or `allowedHosts` in the `--config` file (the name
///   a load balancer or a DNS record gives the server); `*` allows any name.
///
/// The port of the header is not compared: the names are. A request without a `Host` header
/// (HTTP/1.0) comes from no browser and is answered.
public struct AllowedHosts: Sendable, Hashable {
    /// The names allowed besides IP addresses, lowercased, without a trailing dot.
    public private(set) var names: Set<String>
    /// Whether any name is allowed (`*`).
    public private(set) var allowsAnyName: Bool

    /// The names of a server listening on `host`, with `configured` ones; `machineName` is the
    /// host name the server adds when it listens beyond the loopback interface (the machine's
    /// by default).
    public init(listeningOn host: String, configured: [String] = [], machineName: String? = Self.machineName) {
        names = ["localhost"]
        allowsAnyName = false
        let listening = Self.normalized(host)
        if !Self.isIPAddress(listening) { names.insert(listening) }
        if !Self.isLoopback(listening), let machineName, !machineName.isEmpty {
            names.insert(Self.normalized(machineName))
        }
        for name in configured {
            if name == "*" {
                allowsAnyName = true
            } else {
                names.insert(Self.normalized(name))
            }
        }
    }

    /// Any host at all: for servers that are reached only through something that checks it.
    public static let any = AllowedHosts(allowingAny: ())

    private init(allowingAny: Void) {
        names = []
        allowsAnyName = true
    }

    /// Whether a request whose `Host` header is `authority` (`name[:port]`; `nil` for none)
    /// names this server.
    public func allows(_ authority: String?) -> Bool {
        guard let authority, !allowsAnyName else { return true }
        let host = Self.normalized(Self.hostPart(of: authority))
        return Self.isIPAddress(host) || names.contains(host)
    }

    /// Why a request naming `authority` is refused, and how to allow the name. It does not list
    /// the names allowed: the page that sent the request may read it.
    func refusal(of authority: String) -> String {
        let name = Self.hostPart(of: authority)
        return "The Host header '\(authority)' does not name this server: a page of another site may be reaching "
            + "it through a name of its own (DNS rebinding). If clients reach the server as '\(name)', start it "
            + "with --allowed-host \(name) (or list it in \"allowedHosts\" in the --config file)."
    }

    /// The host name of the machine, as `gethostname` gives it.
    public static var machineName: String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The name or address of an authority, without its port: `[::1]:80` is `::1`.
    static func hostPart(of authority: String) -> String {
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<end])
        }
        // More than one colon: an IPv6 address without brackets, which has no port.
        guard authority.count(where: { $0 == ":" }) == 1, let colon = authority.firstIndex(of: ":") else {
            return authority
        }
        return String(authority[..<colon])
    }

    private static func normalized(_ name: String) -> String {
        var name = name.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        while name.hasSuffix(".") { name.removeLast() }
        return name
    }

    static func isIPAddress(_ text: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, text, &buffer) == 1 || inet_pton(AF_INET6, text, &buffer) == 1
    }

    /// Whether a server listening on `host` is reached from the machine only: `host` is a
    /// loopback address or `localhost`.
    public static func isLoopback(host: String) -> Bool {
        isLoopback(normalized(host))
    }

    /// Whether `host` (normalized) is a loopback address or `localhost`: a server listening
    /// there is reached from the machine only.
    private static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || (isIPAddress(host) && host.hasPrefix("127."))
    }
}

/// Answers `421 Misdirected Request` to a request whose `Host` header names another server
/// (``AllowedHosts``), before any route sees it.
struct HostCheckMiddleware<Context: Hummingbird.RequestContext>: RouterMiddleware {
    let hosts: AllowedHosts

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        let authority = request.head.authority
        guard let authority, !hosts.allows(authority) else { return try await next(request, context) }
        return GraphQLEndpoint.response(
            status: 421,
            body: AppSyncError.body([AppSyncError(.badRequest, hosts.refusal(of: authority))])
        )
    }
}
