import Foundation

/// Signs HTTP requests with AWS Signature Version 4, as botocore's `SigV4Auth` does.
///
/// The signer adds `X-Amz-Date` (or rewrites `Date` when the request has one),
/// `X-Amz-Security-Token` for temporary credentials, and `Authorization`. It signs every header
/// the request carries except hop-by-hop ones (`connection`, `expect`, `keep-alive`,
/// `proxy-authenticate`, `proxy-authorization`, `te`, `trailer`, `transfer-encoding`,
/// `upgrade`) and `user-agent` and `x-amzn-trace-id`, plus `host`, taken from the URL when the
/// request has no `Host` header. The path is normalized and encoded twice, as every service
/// but S3 expects; the payload hash is the SHA-256 of the body, or the value of an
/// `X-Amz-Content-SHA256` header when the request has one. It adds no
/// `X-Amz-Content-SHA256` header.
///
/// The query string is canonicalized from the URL: each name and value is percent-decoded
/// and encoded again. botocore uses the URL's query as it is, so the two agree whenever the
/// query is already encoded the way AWS clients encode it (only unreserved characters left
/// unencoded, upper-case hex digits), which is the case for every URL they build.
///
/// `SigV4Request` and `URLRequest` are signed by the same code, which ``SigV4Verifier`` shares:
/// the canonical request is written as bytes into one buffer, and the signing key of each
/// secret, date, region and service is derived once and kept in a small cache shared by the
/// process, so a signature costs about two SHA-256 passes over the request.
///
/// ```swift
/// let signer = SigV4Signer(service: "appsync", region: "us-east-1")
/// let signed = signer.sign(request, credentials: try await provider.fetchCredentials())
/// ```
public struct SigV4Signer: Sendable, Hashable {
    /// The signing name of the service: `appsync` for GraphQL, `execute-api` for API Gateway.
    public var service: String

    /// The region of the endpoint, such as `us-east-1`.
    public var region: String

    /// Creates a signer for a service in a region.
    public init(service: String, region: String) {
        self.service = service
        self.region = region
    }

    /// Returns `request` with its signature headers.
    ///
    /// Any `Authorization` header is replaced, so signing a request again (for a retry) is
    /// safe. The date is truncated to whole seconds.
    public func sign(_ request: SigV4Request, credentials: AWSCredentials, date: Date = Date()) -> SigV4Request {
        let signature = signature(of: request, credentials: credentials, date: date)
        var signed = request
        signature.addHeaders(to: &signed.headers)
        return signed
    }

    /// The canonical request that ``sign(_:credentials:date:)->SigV4Request`` signs, for debugging a mismatch.
    ///
    /// It is computed from `request` with the date and token headers the signer adds.
    public func canonicalRequest(for request: SigV4Request, credentials: AWSCredentials, date: Date) -> String {
        signature(of: request, credentials: credentials, date: date).canonical.canonicalRequest
    }

    /// The string to sign that ``sign(_:credentials:date:)->SigV4Request`` computes, for debugging a mismatch.
    public func stringToSign(for request: SigV4Request, credentials: AWSCredentials, date: Date) -> String {
        signature(of: request, credentials: credentials, date: date).canonical.stringToSign
    }

    private func signature(of request: SigV4Request, credentials: AWSCredentials, date: Date) -> SigV4Signature {
        signature(
            method: request.method,
            url: request.url,
            headers: request.headers,
            body: request.body,
            credentials: credentials,
            date: date
        )
    }

    /// Signs a request given by its parts: the one code path of every request type.
    ///
    /// `headers` are the request's own, before signing; the result says which headers to add.
    /// `AWSPluginsCore` signs a `URLRequest` with it.
    package func signature(
        method: String,
        url: URL,
        headers: some RandomAccessCollection<SigV4Request.Headers.Field>,
        body: Data,
        credentials: AWSCredentials,
        date: Date
    ) -> SigV4Signature {
        let timestamp = SigV4Timestamp(date)
        let token = credentials.sessionToken.flatMap { $0.isEmpty ? nil : $0 }
        let parts = SigV4Request.signedParts(of: url)

        // The signed headers: every field but the unsigned ones and those the signer replaces,
        // by lowercased name (kept one after the other in `names`), then the signer's own.
        var names: [UInt8] = []
        names.reserveCapacity(headers.count * 16 + 64)
        var fields: [SignedField] = []
        fields.reserveCapacity(headers.count + 3)
        var hasDate = false
        var hasHost = false
        var payloadHash: String?
        var capacity = parts.path.utf8.count + (parts.query?.utf8.count ?? 0) * 2 + 64
        for field in headers {
            let start = names.count
            SigV4Canonical.appendLowercased(field.name, to: &names)
            let name = start..<names.count
            switch Self.role(of: names, name) {
            case .authorization, .amzDate:
                names.removeSubrange(name)
                continue
            case .date:
                hasDate = true
                names.removeSubrange(name)
                continue
            case .securityToken where token != nil:
                names.removeSubrange(name)
                continue
            case .unsigned:
                names.removeSubrange(name)
                continue
            case .contentSHA256:
                payloadHash = payloadHash ?? field.value
            case .host:
                hasHost = true
            case .securityToken, .other:
                break
            }
            fields.append(SignedField(name: name, order: fields.count, value: field.value))
            capacity += name.count + field.value.utf8.count + 2
        }
        let (amzDate, dateStamp) = timestamp.basicAndDateStamp
        let dateField = hasDate ? (name: "date", value: timestamp.httpDate) : (name: "x-amz-date", value: amzDate)
        var added = [dateField]
        if let token {
            added.append((name: "x-amz-security-token", value: token))
        }
        if !hasHost {
            added.append((name: "host", value: parts.host))
        }
        for field in added {
            let start = names.count
            names.append(contentsOf: field.name.utf8)
            fields.append(SignedField(name: start..<names.count, order: fields.count, value: field.value))
            capacity += field.name.utf8.count + field.value.utf8.count + 2
        }

        var canonical = SigV4CanonicalRequest(method: method, path: parts.path, query: parts.query, capacity: capacity)
        names.withUnsafeBufferPointer { names in
            fields.sort { a, b in
                let order = SigV4Canonical.compare(names[a.name], names[b.name])
                return order == 0 ? a.order < b.order : order < 0
            }
            var previous: Range<Int>?
            for field in fields {
                if previous.map({ SigV4Canonical.compare(names[$0], names[field.name]) != 0 }) ?? true {
                    canonical.appendHeader(name: UnsafeBufferPointer(rebasing: names[field.name]))
                    previous = field.name
                }
                canonical.appendHeaderValue(field.value)
            }
        }
        if let payloadHash {
            canonical.finish(payloadHash: payloadHash)
        } else {
            canonical.finish(body: body)
        }

        let (keyedHMAC, scope) = SigV4SigningKeyCache.shared.signingContext(
            secretAccessKey: credentials.secretAccessKey,
            dateStamp: dateStamp,
            region: region,
            service: service
        )
        canonical.sign(amzDate: amzDate, scope: scope, keyedHMAC: keyedHMAC)

        var authorization: [UInt8] = []
        authorization.reserveCapacity(
            80 + credentials.accessKeyId.utf8.count + scope.count + canonical.signedHeaders.count
        )
        authorization.append(contentsOf: SigV4Canonical.algorithm.utf8)
        authorization.append(contentsOf: " Credential=".utf8)
        authorization.append(contentsOf: credentials.accessKeyId.utf8)
        authorization.append(UInt8(ascii: "/"))
        authorization.append(contentsOf: scope)
        authorization.append(contentsOf: ", SignedHeaders=".utf8)
        authorization.append(contentsOf: canonical.signedHeaders)
        authorization.append(contentsOf: ", Signature=".utf8)
        authorization.append(contentsOf: canonical.bytes[canonical.signatureRange])
        return SigV4Signature(
            dateHeader: hasDate ? (name: "Date", value: dateField.value) : (name: "X-Amz-Date", value: dateField.value),
            securityToken: token,
            authorization: String(decoding: authorization, as: UTF8.self),
            canonical: canonical
        )
    }

    /// A header field to sign: its lowercased name in the names buffer, its place among the
    /// fields, and its value.
    private struct SignedField {
        var name: Range<Int>
        var order: Int
        var value: String
    }

    /// What a header means to the signer.
    private enum HeaderRole {
        case authorization, amzDate, date, securityToken, contentSHA256, host, unsigned, other
    }

    private static let roles: [(name: [UInt8], role: HeaderRole)] = {
        let roles: [(String, HeaderRole)] = [
            ("authorization", .authorization), ("x-amz-date", .amzDate), ("date", .date),
            ("x-amz-security-token", .securityToken), ("x-amz-content-sha256", .contentSHA256), ("host", .host),
        ]
        return roles.map { (name: Array($0.0.utf8), role: $0.1) }
    }()

    private static func role(of names: [UInt8], _ range: Range<Int>) -> HeaderRole {
        names.withUnsafeBufferPointer { names in
            let name = UnsafeBufferPointer(rebasing: names[range])
            for (known, role) in roles where known.count == name.count && known.elementsEqual(name) {
                return role
            }
            return SigV4Canonical.isUnsignedHeaderName(name) ? .unsigned : .other
        }
    }
}

/// What signing a request gives: the headers to add and every step, for debugging.
package struct SigV4Signature {
    /// `X-Amz-Date` with the signing time, or `Date` when the request has a `Date` header.
    package var dateHeader: (name: String, value: String)
    /// The session token of temporary credentials, sent as `X-Amz-Security-Token`.
    package var securityToken: String?
    /// The `Authorization` value.
    package var authorization: String
    /// The canonical request, string to sign and signature.
    var canonical: SigV4CanonicalRequest

    /// Whether the header named `name` is one the signature replaces: `Authorization`,
    /// `X-Amz-Date`, `Date` when the signature uses it, and the session token when it has one.
    package func replaces(_ name: String) -> Bool {
        SigV4Request.Headers.namesMatch(name, "Authorization")
            || SigV4Request.Headers.namesMatch(name, "X-Amz-Date")
            || (dateHeader.name == "Date" && SigV4Request.Headers.namesMatch(name, "Date"))
            || (securityToken != nil && SigV4Request.Headers.namesMatch(name, "X-Amz-Security-Token"))
    }

    /// Adds the signature to `headers` as botocore does: `Authorization` replaced, the date set
    /// (`X-Amz-Date` dropped when `Date` is used), then the session token.
    ///
    /// The fields replaced are removed in one pass over the headers.
    func addHeaders(to headers: inout SigV4Request.Headers) {
        headers.removeAll(where: replaces)
        headers.add(name: dateHeader.name, value: dateHeader.value)
        if let securityToken {
            headers.add(name: "X-Amz-Security-Token", value: securityToken)
        }
        headers.add(name: "Authorization", value: authorization)
    }
}
