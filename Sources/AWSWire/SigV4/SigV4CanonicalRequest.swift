import Crypto
import Foundation

/// A canonical request written into one byte buffer, then the string to sign and the
/// signature after it in the same buffer: the one code path of the signer and the verifier.
///
/// The canonical request is the method, URI, query, header lines, signed header names and
/// payload hash, one per line. Write it in order: ``init(method:path:query:capacity:)``, one
/// ``appendHeader(name:)`` and its ``appendHeaderValue(_:)`` calls per signed header (by
/// lowercased name, in byte order), then ``finish(payloadHash:)``; ``sign(amzDate:scope:keyedHMAC:)``
/// then appends the string to sign and the signature.
struct SigV4CanonicalRequest {
    /// The canonical request, then, once signed, the string to sign and the hex signature.
    private(set) var bytes: [UInt8]

    /// The signed header names joined by `;`, as `SignedHeaders` lists them.
    private(set) var signedHeaders: [UInt8] = []

    /// Where the canonical request ends in ``bytes``, once finished.
    private(set) var canonicalRequestEnd = 0

    /// Where the string to sign lies in ``bytes``, once signed.
    private(set) var stringToSignRange = 0..<0

    /// Where the hex signature lies in ``bytes``, once signed.
    private(set) var signatureRange = 0..<0

    private var headerCount = 0
    private var valuesInHeader = 0

    /// Starts a canonical request with its method (signed in upper case), the canonical URI of
    /// a raw path and the canonical form of a raw query (`nil` when there is none).
    ///
    /// `capacity` is a guess of the bytes the whole request will take, so that the buffer grows
    /// once.
    init(method: String, path: String, query: String?, capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity + 256)
        signedHeaders.reserveCapacity(64)
        SigV4Canonical.appendUppercased(method, to: &bytes)
        bytes.append(UInt8(ascii: "\n"))
        SigV4Canonical.withUTF8(path) { SigV4Canonical.appendURI(path: $0, to: &bytes) }
        bytes.append(UInt8(ascii: "\n"))
        if let query {
            SigV4Canonical.withUTF8(query) { SigV4Canonical.appendQuery($0, to: &bytes) }
        }
        bytes.append(UInt8(ascii: "\n"))
    }

    /// Starts the line of a signed header; `name` is lowercased UTF-8.
    mutating func appendHeader(name: UnsafeBufferPointer<UInt8>) {
        if headerCount > 0 {
            bytes.append(UInt8(ascii: "\n"))
            signedHeaders.append(UInt8(ascii: ";"))
        }
        headerCount += 1
        signedHeaders.append(contentsOf: name)
        bytes.append(contentsOf: name)
        bytes.append(UInt8(ascii: ":"))
        valuesInHeader = 0
    }

    /// Starts the line of a signed header; `name` is lowercased.
    mutating func appendHeader(name: String) {
        SigV4Canonical.withUTF8(name) { appendHeader(name: $0) }
    }

    /// Adds a value to the current header line, trimmed, after a comma when it is not the first.
    mutating func appendHeaderValue(_ value: String) {
        if valuesInHeader > 0 {
            bytes.append(UInt8(ascii: ","))
        }
        SigV4Canonical.appendTrimmed(value, to: &bytes)
        valuesInHeader += 1
    }

    /// Ends the header lines and writes the signed header names and the payload hash.
    mutating func finish(payloadHash: String) {
        SigV4Canonical.withUTF8(payloadHash) { finish(payloadHash: $0) }
    }

    /// Ends the header lines and writes the signed header names and `payloadHash`.
    mutating func finish(payloadHash: UnsafeBufferPointer<UInt8>) {
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: signedHeaders)
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: payloadHash)
        canonicalRequestEnd = bytes.count
    }

    /// Ends the header lines and writes the signed header names and the SHA-256 of `body`.
    mutating func finish(body: Data) {
        var hasher = SHA256()
        body.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        hasher.finalize().withUnsafeBytes { SigV4Canonical.appendHex($0, to: &hex) }
        hex.withUnsafeBufferPointer { finish(payloadHash: $0) }
    }

    /// Appends the string to sign (algorithm, the timestamp in `X-Amz-Date` form, credential
    /// scope and the hash of the canonical request, one per line) and its hex signature with
    /// `keyedHMAC`, an HMAC keyed with the signing key.
    mutating func sign(amzDate: String, scope: [UInt8], keyedHMAC: HMAC<SHA256>) {
        var hasher = SHA256()
        bytes.withUnsafeBytes {
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[..<canonicalRequestEnd]))
        }
        let hash = hasher.finalize()
        let start = bytes.count
        bytes.append(contentsOf: SigV4Canonical.algorithm.utf8)
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: amzDate.utf8)
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: scope)
        bytes.append(UInt8(ascii: "\n"))
        hash.withUnsafeBytes { SigV4Canonical.appendHex($0, to: &bytes) }
        stringToSignRange = start..<bytes.count

        var hmac = keyedHMAC
        bytes.withUnsafeBytes { hmac.update(data: UnsafeRawBufferPointer(rebasing: $0[stringToSignRange])) }
        let signatureStart = bytes.count
        hmac.finalize().withUnsafeBytes { SigV4Canonical.appendHex($0, to: &bytes) }
        signatureRange = signatureStart..<bytes.count
    }

    /// The canonical request as text, for messages and debugging.
    var canonicalRequest: String {
        String(decoding: bytes[..<canonicalRequestEnd], as: UTF8.self)
    }

    /// The string to sign as text, for messages and debugging.
    var stringToSign: String {
        String(decoding: bytes[stringToSignRange], as: UTF8.self)
    }

    /// The credential scope: `date/region/service/aws4_request`.
    static func scope(dateStamp: some StringProtocol, region: String, service: String) -> [UInt8] {
        var scope: [UInt8] = []
        scope.reserveCapacity(dateStamp.utf8.count + region.utf8.count + service.utf8.count + 15)
        scope.append(contentsOf: dateStamp.utf8)
        scope.append(UInt8(ascii: "/"))
        scope.append(contentsOf: region.utf8)
        scope.append(UInt8(ascii: "/"))
        scope.append(contentsOf: service.utf8)
        scope.append(UInt8(ascii: "/"))
        scope.append(contentsOf: SigV4Canonical.terminator.utf8)
        return scope
    }
}
