import Foundation

/// The canonical forms of SigV4 as bytes, shared by the signer and the verifier.
///
/// Every rule follows botocore's `SigV4Auth`, the reference signer the tests compare with.
/// Everything here works on UTF-8 bytes with lookup tables: nothing goes through Foundation's
/// formatting, so that a signature costs little more than its SHA-256 and HMAC.
package enum SigV4Canonical {
    static let algorithm = "AWS4-HMAC-SHA256"
    static let terminator = "aws4_request"

    /// Header names botocore never signs: hop-by-hop headers and ones proxies rewrite.
    static let unsignedHeaderNames: [[UInt8]] = [
        "connection", "expect", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "transfer-encoding", "upgrade", "user-agent", "x-amzn-trace-id",
    ].map { Array($0.utf8) }

    /// Whether botocore leaves the header of this lowercased name unsigned.
    static func isUnsignedHeaderName(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        for unsigned in unsignedHeaderNames where unsigned.count == name.count {
            if unsigned.elementsEqual(name) { return true }
        }
        return false
    }

    // MARK: - The canonical URI

    /// Appends the canonical URI of a raw (percent-encoded) path.
    ///
    /// Dot segments and empty segments are removed, then every byte outside the unreserved set
    /// and `/` is percent-encoded, the `%` of existing escapes included: the path is encoded
    /// twice, as AWS expects for every service but S3. As botocore does, an empty path is `/`,
    /// and a trailing slash stays only when a segment remains.
    static func appendURI(path: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        let slash = UInt8(ascii: "/")
        guard !path.isEmpty else {
            out.append(slash)
            return
        }
        // Most paths need no normalization: no empty, `.` or `..` segment after the first `/`.
        var segments: [Range<Int>] = []
        var needsNormalization = false
        var start = 0
        for index in 0...path.count where index == path.count || path[index] == slash {
            let length = index - start
            let isDot = length == 1 && path[start] == UInt8(ascii: ".")
            let isDotDot = length == 2 && path[start] == UInt8(ascii: ".") && path[start + 1] == UInt8(ascii: ".")
            if isDot || isDotDot || (length == 0 && start != 0 && index != path.count) {
                needsNormalization = true
                break
            }
            start = index + 1
        }
        guard needsNormalization else {
            appendPercentEncoded(path, keepingSlash: true, to: &out)
            return
        }
        start = 0
        for index in 0...path.count where index == path.count || path[index] == slash {
            let segment = start..<index
            start = index + 1
            if segment.isEmpty || (segment.count == 1 && path[segment.lowerBound] == UInt8(ascii: ".")) {
                continue
            }
            if segment.count == 2 && path[segment.lowerBound] == UInt8(ascii: ".")
                && path[segment.lowerBound + 1] == UInt8(ascii: ".")
            {
                _ = segments.popLast()
            } else {
                segments.append(segment)
            }
        }
        if path[0] == slash { out.append(slash) }
        for (position, segment) in segments.enumerated() {
            if position > 0 { out.append(slash) }
            appendPercentEncoded(UnsafeBufferPointer(rebasing: path[segment]), keepingSlash: false, to: &out)
        }
        if path[path.count - 1] == slash && !segments.isEmpty { out.append(slash) }
    }

    // MARK: - The canonical query

    /// Appends the canonical query string of a raw query.
    ///
    /// Each `&`-separated pair is split at its first `=` (a pair without one has an empty
    /// value), its name and value are percent-decoded and encoded again with only the
    /// unreserved characters left as they are, and the pairs are sorted by encoded name, then
    /// value. Repeated names and empty pairs are kept.
    static func appendQuery(_ query: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        guard !query.isEmpty else { return }
        // Every name and value, encoded, one after the other; the pairs point into it.
        var encoded: [UInt8] = []
        encoded.reserveCapacity(query.count + query.count / 2)
        var pairs: [(name: Range<Int>, value: Range<Int>)] = []
        var start = 0
        for index in 0...query.count where index == query.count || query[index] == UInt8(ascii: "&") {
            let pair = UnsafeBufferPointer(rebasing: query[start..<index])
            start = index + 1
            let equals = pair.firstIndex(of: UInt8(ascii: "=")) ?? pair.endIndex
            let nameStart = encoded.count
            appendReencoded(UnsafeBufferPointer(rebasing: pair[pair.startIndex..<equals]), to: &encoded)
            let valueStart = encoded.count
            if equals < pair.endIndex {
                appendReencoded(UnsafeBufferPointer(rebasing: pair[(equals + 1)...]), to: &encoded)
            }
            pairs.append((nameStart..<valueStart, valueStart..<encoded.count))
        }
        encoded.withUnsafeBufferPointer { bytes in
            pairs.sort { a, b in
                let order = compare(bytes[a.name], bytes[b.name])
                return order == 0 ? compare(bytes[a.value], bytes[b.value]) < 0 : order < 0
            }
            for (position, pair) in pairs.enumerated() {
                if position > 0 { out.append(UInt8(ascii: "&")) }
                out.append(contentsOf: bytes[pair.name])
                out.append(UInt8(ascii: "="))
                out.append(contentsOf: bytes[pair.value])
            }
        }
    }

    /// Byte-wise order of UTF-8 strings, which is code point order, as Python sorts: negative,
    /// zero or positive.
    static func compare(_ a: Slice<UnsafeBufferPointer<UInt8>>, _ b: Slice<UnsafeBufferPointer<UInt8>>) -> Int {
        let common = min(a.count, b.count)
        if common > 0 {
            let order = memcmp(a.base.baseAddress! + a.startIndex, b.base.baseAddress! + b.startIndex, common)
            if order != 0 { return Int(order) }
        }
        return a.count - b.count
    }

    // MARK: - Header values

    /// Appends a header value with its whitespace trimmed and every run of whitespace made one
    /// space.
    ///
    /// Whitespace is what Python's `str.split()` splits on, since botocore trims that way:
    /// ASCII space and tab, CR and LF (so folded lines unfold), vertical tab, form feed, the
    /// information separators U+001C to U+001F, and Unicode spaces such as U+00A0 and U+3000.
    static func appendTrimmed(_ value: String, to out: inout [UInt8]) {
        let start = out.count
        let isASCII = withUTF8(value) { bytes in
            asciiWhitespace.withUnsafeBufferPointer { isWhitespace in
                var pendingSpace = false
                var wroteAny = false
                var index = 0
                while index < bytes.count {
                    let byte = bytes[index]
                    if byte >= 0x80 { return false }
                    if isWhitespace[Int(byte)] {
                        pendingSpace = wroteAny
                        index += 1
                        continue
                    }
                    // A run without whitespace is copied at once.
                    var end = nextSpecialByte(in: bytes, from: index + 1)
                    while end < bytes.count, bytes[end] < 0x80, !isWhitespace[Int(bytes[end])] {
                        end = nextSpecialByte(in: bytes, from: end + 1)
                    }
                    if pendingSpace {
                        out.append(UInt8(ascii: " "))
                        pendingSpace = false
                    }
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<end]))
                    wroteAny = true
                    index = end
                }
                return true
            }
        }
        if !isASCII {
            out.removeSubrange(start...)
            out.append(contentsOf: trimAll(value).utf8)
        }
    }

    /// The index of the first byte from `start` that is at most 0x20 or at least 0x80 (every
    /// whitespace byte and every byte of a non-ASCII character is one), or the end.
    ///
    /// Eight bytes are tested at once: a byte below 0x21 borrows into its high bit when 0x21 is
    /// subtracted from it, unless its high bit was set already, which the other test finds.
    static func nextSpecialByte(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        if let base = bytes.baseAddress {
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highBits: UInt64 = 0x8080_8080_8080_8080
            while index + 8 <= bytes.count {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                if (word | ((word &- ones &* 0x21) & ~word)) & highBits != 0 { break }
                index += 8
            }
        }
        while index < bytes.count, bytes[index] > 0x20, bytes[index] < 0x80 {
            index += 1
        }
        return index
    }

    /// `value` trimmed as ``appendTrimmed(_:to:)`` does, for values with non-ASCII characters.
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

    /// The ASCII bytes Python's `str.split()` treats as whitespace.
    private static let asciiWhitespace: [Bool] = (0..<128).map { byte -> Bool in
        (0x09...0x0D).contains(byte) || (0x1C...0x20).contains(byte)
    }

    /// Appends `text` in ASCII lower case, or through `String.lowercased()` when it is not
    /// ASCII, as header names are signed.
    static func appendLowercased(_ text: String, to out: inout [UInt8]) {
        let start = out.count
        let isASCII = withUTF8(text) { bytes in
            for byte in bytes {
                if byte >= 0x80 { return false }
                out.append(byte &+ (byte &- UInt8(ascii: "A") < 26 ? 0x20 : 0))
            }
            return true
        }
        if !isASCII {
            out.removeSubrange(start...)
            out.append(contentsOf: text.lowercased().utf8)
        }
    }

    /// Appends `text` in ASCII upper case, or through `String.uppercased()` when it is not
    /// ASCII, as the method is signed.
    static func appendUppercased(_ text: String, to out: inout [UInt8]) {
        let start = out.count
        let isASCII = withUTF8(text) { bytes in
            for byte in bytes {
                if byte >= 0x80 { return false }
                out.append(byte &- (byte &- UInt8(ascii: "a") < 26 ? 0x20 : 0))
            }
            return true
        }
        if !isASCII {
            out.removeSubrange(start...)
            out.append(contentsOf: text.uppercased().utf8)
        }
    }

    // MARK: - Hex and percent-encoding

    private static let lowercaseHexDigits = Array("0123456789abcdef".utf8)
    private static let uppercaseHexDigits = Array("0123456789ABCDEF".utf8)

    /// Appends `bytes` in lower-case hex, as hashes and signatures are written.
    static func appendHex(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        // Written into a buffer on the stack and appended at once, rather than byte by byte.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count * 2) { hex in
            lowercaseHexDigits.withUnsafeBufferPointer { digits in
                for (index, byte) in bytes.enumerated() {
                    hex[2 * index] = digits[Int(byte >> 4)]
                    hex[2 * index + 1] = digits[Int(byte & 0x0F)]
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(hex))
        }
    }

    /// For each byte: 1 for the RFC 3986 unreserved characters, 2 for `/`, 0 for the rest.
    private static let encodingClass: [UInt8] = (0..<256).map { byte -> UInt8 in
        switch UInt8(byte) {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            return 1
        case UInt8(ascii: "/"):
            return 2
        default:
            return 0
        }
    }

    /// Appends `bytes` with everything but the RFC 3986 unreserved characters (and `/` when
    /// asked) percent-encoded with upper-case hex digits.
    static func appendPercentEncoded(
        _ bytes: UnsafeBufferPointer<UInt8>,
        keepingSlash: Bool,
        to out: inout [UInt8]
    ) {
        let kept: UInt8 = keepingSlash ? 3 : 1
        encodingClass.withUnsafeBufferPointer { classes in
            uppercaseHexDigits.withUnsafeBufferPointer { digits in
                for byte in bytes {
                    if classes[Int(byte)] & kept != 0 {
                        out.append(byte)
                    } else {
                        out.append(UInt8(ascii: "%"))
                        out.append(digits[Int(byte >> 4)])
                        out.append(digits[Int(byte & 0x0F)])
                    }
                }
            }
        }
    }

    /// For each byte: its value as a hex digit, or 0xFF.
    private static let hexValues: [UInt8] = (0..<256).map { byte -> UInt8 in
        switch UInt8(byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt8(byte) - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt8(byte) - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt8(byte) - UInt8(ascii: "a") + 10
        default: return 0xFF
        }
    }

    /// Appends `text` with each `%XX` escape decoded, then percent-encoded as a query name or
    /// value is; a `%` not followed by two hex digits is a literal `%`, and `+` is not a space.
    static func appendReencoded(_ text: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        hexValues.withUnsafeBufferPointer { values in
            encodingClass.withUnsafeBufferPointer { classes in
                uppercaseHexDigits.withUnsafeBufferPointer { digits in
                    var index = 0
                    while index < text.count {
                        var byte = text[index]
                        index += 1
                        if byte == UInt8(ascii: "%"), index + 1 < text.count {
                            let high = values[Int(text[index])]
                            let low = values[Int(text[index + 1])]
                            if high != 0xFF && low != 0xFF {
                                byte = high << 4 | low
                                index += 2
                            }
                        }
                        if classes[Int(byte)] & 1 != 0 {
                            out.append(byte)
                        } else {
                            out.append(UInt8(ascii: "%"))
                            out.append(digits[Int(byte >> 4)])
                            out.append(digits[Int(byte & 0x0F)])
                        }
                    }
                }
            }
        }
    }

    // MARK: - Bytes

    /// Calls `body` with the UTF-8 bytes of `text`, without copying a native string.
    @inline(__always)
    package static func withUTF8<Result>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = text
        return copy.withUTF8(body)
    }

    /// Whether two byte strings are equal, in a time that does not depend on where they differ.
    static func constantTimeEquals(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
        constantTimeEquals(Array(a.utf8), Array(b.utf8))
    }

    /// Whether two byte strings are equal, in a time that does not depend on where they differ.
    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices {
            difference |= a[index] ^ b[index]
        }
        return difference == 0
    }
}
