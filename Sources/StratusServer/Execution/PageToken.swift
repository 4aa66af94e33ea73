import AWSWire
import Crypto
import Foundation

/// Where the next page of a list, sync or relation query starts, as an opaque `nextToken`.
///
/// The token is the page state as JSON, then a dot, then an HMAC-SHA256 of it under the data
/// directory's secret, both base64url-encoded. It names the query it belongs to (a digest of the
/// field and its arguments), so that a token altered, forged, or replayed on another query is
/// refused.
struct PageToken: Sendable, Hashable {
    /// A digest of the query: the field and every argument but `limit` and `nextToken`.
    var query: String
    /// The key of the last item read, for a page of a table.
    var lastKey: [JSON]?
    /// The journal position of the last change read, for a page of the delta journal.
    var lastPosition: Int?
    /// The `startedAt` of the sync this page belongs to.
    var startedAt: Int?

    /// The token as a client sees it.
    func encoded(secret: [UInt8]) -> String {
        var object: JSONObject = ["q": .string(query)]
        object["k"] = lastKey.map(JSON.array)
        object["p"] = lastPosition.map(JSON.int)
        object["s"] = startedAt.map(JSON.int)
        let payload = Data(JSON.object(object).text.utf8)
        let signature = HMAC<SHA256>.authenticationCode(for: payload, using: SymmetricKey(data: secret))
        return Base64URL.encode(payload) + "." + Base64URL.encode(Data(signature))
    }

    /// Reads a token, `nil` unless it is well formed, signed with `secret`, and made for `query`.
    init?(decoding token: String, secret: [UInt8], query: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let payload = Base64URL.decode(parts[0]),
            let signature = Base64URL.decode(parts[1]),
            HMAC<SHA256>.isValidAuthenticationCode(
                signature,
                authenticating: payload,
                using: SymmetricKey(data: secret)
            ),
            case .object(let object) = try? JSON(parsing: payload),
            object["q"]?.stringValue == query
        else { return nil }
        self.query = query
        lastKey = object["k"]?.arrayValue
        lastPosition = object["p"]?.intValue
        startedAt = object["s"]?.intValue
    }

    init(query: String, lastKey: [JSON]? = nil, lastPosition: Int? = nil, startedAt: Int? = nil) {
        self.query = query
        self.lastKey = lastKey
        self.lastPosition = lastPosition
        self.startedAt = startedAt
    }

    /// The digest that names a query: SHA-256 of the field name and its arguments as JSON.
    static func digest(field: String, arguments: JSON) -> String {
        let text = field + "\n" + arguments.text
        return Hex.lowercase(SHA256.hash(data: Data(text.utf8)))
    }
}
