import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// Who may use the console: a request of the console's own origin carrying the admin secret,
/// as `Authorization: Bearer <secret>` or as the session cookie that visiting
/// `/console?secret=<secret>` sets.
///
/// A page of another site could otherwise drive the admin API with the browser's cookie, so a
/// request whose `Origin` is not the server's own, or whose `Sec-Fetch-Site` says another site
/// (`cross-site`, or `same-site`: another port of the same host) made it, is refused first.
public struct ConsoleAccess: Sendable {
    /// The admin secret.
    public let secret: String

    public init(secret: String) {
        self.secret = secret
    }

    /// A new secret: 32 random bytes in lowercase hexadecimal.
    public static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// Why a request may not use the console, or `nil` when it may.
    enum Refusal: Equatable {
        /// Made by a page of another origin: 403.
        case crossSite(String)
        /// Without the secret: 401.
        case noSecret
    }

    /// The session cookie's name for a server on `port`: browsers send cookies to every port of a
    /// host, so each server's console has its own.
    static func cookieName(port: Int) -> String { "stratus_console_\(port)" }

    /// The session cookie's value: derived from the secret, so that it stays valid across
    /// restarts with the same secret and says nothing of the secret itself.
    public var sessionToken: String {
        let code = HMAC<SHA256>.authenticationCode(
            for: Data("stratus console session".utf8),
            using: SymmetricKey(data: Data(secret.utf8))
        )
        return code.map { String(format: "%02x", $0) }.joined()
    }

    /// The `Set-Cookie` header that opens a session on the server at `port`.
    func sessionCookie(port: Int) -> String {
        "\(Self.cookieName(port: port))=\(sessionToken); Path=/console; HttpOnly; SameSite=Strict"
    }

    /// Whether `request` comes from a page of another origin than `host`'s (its `Host` header).
    func crossSiteProblem(_ request: Request) -> String? {
        if let site = request.headers[Self.secFetchSite], site != "same-origin", site != "none" {
            return "Sec-Fetch-Site: \(site)"
        }
        if let origin = request.headers[.origin] {
            let own = request.head.authority.map { "http://\($0)" }
            if origin != own { return "Origin: \(origin)" }
        }
        return nil
    }

    /// Whether `request` carries the secret: as a bearer token, or as the session cookie of the
    /// server on `port`.
    func carriesSecret(_ request: Request, port: Int) -> Bool {
        if let header = request.headers[.authorization], header.hasPrefix("Bearer ") {
            return Self.same(String(header.dropFirst("Bearer ".count)), secret)
        }
        let name = Self.cookieName(port: port)
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0] == name, Self.same(String(parts[1]), sessionToken) { return true }
            }
        }
        return false
    }

    /// The refusal of `request` to a server on `port`, or `nil` when it may use the console.
    func refusal(of request: Request, port: Int) -> Refusal? {
        if let problem = crossSiteProblem(request) { return .crossSite(problem) }
        return carriesSecret(request, port: port) ? nil : .noSecret
    }

    /// Whether `given` is `expected`, in a time that does not depend on where they differ.
    static func same(_ given: String, _ expected: String) -> Bool {
        SHA256.hash(data: Data(given.utf8)) == SHA256.hash(data: Data(expected.utf8))
    }

    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
}
