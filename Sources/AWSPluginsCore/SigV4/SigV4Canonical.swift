import Crypto
import Foundation

/// The canonical forms of SigV4, shared by the signer and the verifier.
///
/// Every rule follows botocore's `SigV4Auth`, the reference signer the tests compare with.
enum SigV4Canonical {
    static let algorithm = "AWS4-HMAC-SHA256"
    static let terminator = "aws4_request"

    /// Header names botocore never signs: hop-by-hop headers and ones proxies rewrite.
    static let unsignedHeaderNames: Set<String> = [
        "connection", "expect", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "transfer-encoding", "upgrade", "user-agent", "x-amzn-trace-id",
    ]

    // MARK: - The canonical request

    /// The canonical request: method, URI, query, headers, signed header names and payload hash,
    /// one per line.
    ///
    /// `headers` are the signed headers by lowercased name, in the order of `signedHeaders`.
    static func request(
        method: String,
        path: String,
        query: String?,
        headers: [(name: String, values: [String])],
        signedHeaders: String,
        payloadHash: String
    ) -> String {
        var lines = [method.uppercased(), uri(path: path), self.query(query)]
        let headerLines = headers.map { name, values in
            "\(name):\(values.map(trimAll).joined(separator: ","))"
        }
        lines.append(headerLines.joined(separator: "\n") + "\n")
        lines.append(signedHeaders)
        lines.append(payloadHash)
        return lines.joined(separator: "\n")
    }

    /// The canonical URI of a raw (percent-encoded) path.
    ///
    /// Dot segments and empty segments are removed, then every byte outside the unreserved set
    /// and `/` is percent-encoded, the `%` of existing escapes included: the path is encoded
    /// twice, as AWS expects for every service but S3.
    static func uri(path: String) -> String {
        percentEncode(removeDotSegments(path).utf8, keepingSlash: true)
    }

    /// RFC 3986 dot-segment removal, also dropping empty segments, with botocore's edge cases:
    /// an empty path is `/`, and a trailing slash stays only when a segment remains.
    static func removeDotSegments(_ path: String) -> String {
        guard !path.isEmpty else { return "/" }
        var output: [Substring] = []
        for segment in path.split(separator: "/", omittingEmptySubsequences: true) where segment != "." {
            if segment == ".." {
                _ = output.popLast()
            } else {
                output.append(segment)
            }
        }
        let first = path.hasPrefix("/") ? "/" : ""
        let last = path.hasSuffix("/") && !output.isEmpty ? "/" : ""
        return first + output.joined(separator: "/") + last
    }

    /// The canonical query string of a raw query.
    ///
    /// Each `&`-separated pair is split at its first `=` (a pair without one has an empty
    /// value), its name and value are percent-decoded and encoded again with only the
    /// unreserved characters left as they are, and the pairs are sorted by encoded name, then
    /// value. Repeated names and empty pairs are kept.
    static func query(_ query: String?) -> String {
        guard let query, !query.isEmpty else { return "" }
        let pairs = query.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            let name: Substring
            let value: Substring
            if let equals = pair.firstIndex(of: "=") {
                name = pair[..<equals]
                value = pair[pair.index(after: equals)...]
            } else {
                name = pair
                value = ""
            }
            return (
                name: percentEncode(percentDecode(name), keepingSlash: false),
                value: percentEncode(percentDecode(value), keepingSlash: false)
            )
        }
        return
            pairs
            .sorted { a, b in
                a.name == b.name ? precedes(a.value, b.value) : precedes(a.name, b.name)
            }
            .map { "\($0.name)=\($0.value)" }
            .joined(separator: "&")
    }

    /// A header value with its whitespace trimmed and every run of whitespace made one space.
    ///
    /// Whitespace is what Python's `str.split()` splits on, since botocore trims that way:
    /// ASCII space and tab, CR and LF (so folded lines unfold), vertical tab, form feed, the
    /// information separators U+001C to U+001F, and Unicode spaces such as U+00A0 and U+3000.
    static func trimAll(_ value: String) -> String {
        var result = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in value.unicodeScalars {
            if isWhitespace(scalar) {
                pendingSpace = !result.isEmpty
            } else {
                if pendingSpace {
                    result.append(" ")
                    pendingSpace = false
                }
                result.append(scalar)
            }
        }
        return String(result)
    }

    private static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x1C...0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
            return true
        default:
            return false
        }
    }

    // MARK: - Strings, hashes and keys

    /// The credential scope: `date/region/service/aws4_request`.
    static func scope(dateStamp: some StringProtocol, region: String, service: String) -> String {
        "\(dateStamp)/\(region)/\(service)/\(terminator)"
    }

    /// The string to sign: algorithm, timestamp, credential scope and the hash of the canonical
    /// request, one per line.
    static func stringToSign(canonicalRequest: String, timestamp: String, scope: String) -> String {
        [algorithm, timestamp, scope, sha256Hex(Data(canonicalRequest.utf8))].joined(separator: "\n")
    }

    /// The hex signature of `stringToSign`, with the key derived from the secret through the
    /// date, the region, the service and the terminator.
    static func signature(
        stringToSign: String,
        secretAccessKey: String,
        dateStamp: some StringProtocol,
        region: String,
        service: String
    ) -> String {
        var key = SymmetricKey(data: Data("AWS4\(secretAccessKey)".utf8))
        for part in [String(dateStamp), region, service, terminator] {
            key = SymmetricKey(data: hmac(part, key: key))
        }
        return hex(hmac(stringToSign, key: key))
    }

    static func sha256Hex(_ data: Data) -> String {
        hex(SHA256.hash(data: data))
    }

    private static func hmac(_ message: String, key: SymmetricKey) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Data(message.utf8), using: key))
    }

    /// Lower-case hex, as hashes and signatures are written.
    private static func hex(_ bytes: some Sequence<UInt8>) -> String {
        Hex.lowercase(bytes)
    }

    /// Whether two byte strings are equal, in a time that does not depend on where they differ.
    static func constantTimeEquals(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
        let a = Array(a.utf8)
        let b = Array(b.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices {
            difference |= a[index] ^ b[index]
        }
        return difference == 0
    }

    // MARK: - Percent-encoding

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// `bytes` with everything but the RFC 3986 unreserved characters (and `/` when asked)
    /// percent-encoded with upper-case hex digits.
    static func percentEncode(_ bytes: some Sequence<UInt8>, keepingSlash: Bool) -> String {
        var encoded: [UInt8] = []
        for byte in bytes {
            if isUnreserved(byte) || (keepingSlash && byte == UInt8(ascii: "/")) {
                encoded.append(byte)
            } else {
                encoded.append(UInt8(ascii: "%"))
                encoded.append(hexDigits[Int(byte >> 4)])
                encoded.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    /// The bytes of `text` with each `%XX` escape decoded; a `%` not followed by two hex digits
    /// stays as it is. `+` is not a space here.
    static func percentDecode(_ text: Substring) -> [UInt8] {
        let bytes = Array(text.utf8)
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return decoded
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }

    /// Byte-wise order of UTF-8 strings, which is code point order, as Python sorts.
    static func precedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}
