import AWSWire
import Crypto
import Foundation

/// Where the next page of a list, sync or relation query starts, as an opaque `nextToken`.
///
/// The token is the page state as JSON, sealed with ChaCha20-Poly1305 under a key derived from
/// the data directory's secret and base64url-encoded: a client can neither read it (it holds the
/// key of the last item scanned, which may be an item the caller may not read) nor alter it. It
/// names the query it belongs to (a digest of the field and its arguments), so that a token
/// replayed on another query is refused.
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
        // The nonce is a keyed digest of the payload: one page state always has one token (the
        // direct and the executed answer of a query agree), and two states never share a nonce.
        let digest = HMAC<SHA256>.authenticationCode(for: payload, using: Self.key(secret, use: "nonce"))
        do {
            let nonce = try ChaChaPoly.Nonce(data: Data(digest).prefix(12))
            return Base64URL.encode(try ChaChaPoly.seal(payload, using: Self.key(secret), nonce: nonce).combined)
        } catch {
            // Sealing fails only for a key or nonce of the wrong size, which are fixed here.
            preconditionFailure("A page token could not be sealed: \(error)")
        }
    }

    /// Reads a token, `nil` unless it is well formed, sealed under `secret`, and made for `query`.
    init?(decoding token: String, secret: [UInt8], query: String) {
        // Whatever fails here makes an invalid token, which the caller refuses as AppSync does.
        guard let sealed = Base64URL.decode(token),
            let box = try? ChaChaPoly.SealedBox(combined: sealed),
            let payload = try? ChaChaPoly.open(box, using: Self.key(secret)),
            case .object(let object) = try? JSON(parsing: payload),
            object["q"]?.stringValue == query
        else { return nil }
        self.query = query
        lastKey = object["k"]?.arrayValue
        lastPosition = object["p"]?.intValue
        startedAt = object["s"]?.intValue
    }

    /// A key from the data directory's secret through HKDF, for this use alone: sealing, or with
    /// `use`, another.
    private static func key(_ secret: [UInt8], use: String = "") -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: secret),
            info: Data(("stratus page token" + (use.isEmpty ? "" : " " + use)).utf8),
            outputByteCount: 32
        )
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
