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
        var signed = signing(request, credentials: credentials, date: date)
        signed.request.headers.add(name: "Authorization", value: signed.authorization)
        return signed.request
    }

    /// The canonical request that ``sign(_:credentials:date:)`` signs, for debugging a mismatch.
    ///
    /// It is computed from `request` with the date and token headers the signer adds.
    public func canonicalRequest(for request: SigV4Request, credentials: AWSCredentials, date: Date) -> String {
        signing(request, credentials: credentials, date: date).canonicalRequest
    }

    /// The string to sign that ``sign(_:credentials:date:)`` computes, for debugging a mismatch.
    public func stringToSign(for request: SigV4Request, credentials: AWSCredentials, date: Date) -> String {
        signing(request, credentials: credentials, date: date).stringToSign
    }

    /// Every step of a signature.
    private struct Signing {
        /// The request with its date and token headers, not yet its `Authorization`.
        var request: SigV4Request
        var canonicalRequest: String
        var stringToSign: String
        var authorization: String
    }

    private func signing(_ request: SigV4Request, credentials: AWSCredentials, date: Date) -> Signing {
        let timestamp = SigV4Timestamp(date)
        var request = request
        request.headers.remove(name: "Authorization")
        if request.headers.contains(name: "Date") {
            request.headers["Date"] = timestamp.httpDate
            request.headers.remove(name: "X-Amz-Date")
        } else {
            request.headers["X-Amz-Date"] = timestamp.basic
        }
        if let token = credentials.sessionToken, !token.isEmpty {
            request.headers["X-Amz-Security-Token"] = token
        }

        let parts = request.urlParts
        let headers = headersToSign(request.headers, host: parts.host)
        let signedHeaders = headers.map(\.name).joined(separator: ";")
        let payloadHash = request.headers["X-Amz-Content-SHA256"] ?? SigV4Canonical.sha256Hex(request.body)
        let canonicalRequest = SigV4Canonical.request(
            method: request.method,
            path: parts.path,
            query: parts.query,
            headers: headers,
            signedHeaders: signedHeaders,
            payloadHash: payloadHash
        )
        let scope = SigV4Canonical.scope(dateStamp: timestamp.dateStamp, region: region, service: service)
        let stringToSign = SigV4Canonical.stringToSign(
            canonicalRequest: canonicalRequest,
            timestamp: timestamp.basic,
            scope: scope
        )
        let signature = SigV4Canonical.signature(
            stringToSign: stringToSign,
            secretAccessKey: credentials.secretAccessKey,
            dateStamp: timestamp.dateStamp,
            region: region,
            service: service
        )
        let authorization =
            "\(SigV4Canonical.algorithm) Credential=\(credentials.accessKeyId)/\(scope), "
            + "SignedHeaders=\(signedHeaders), Signature=\(signature)"
        return Signing(
            request: request,
            canonicalRequest: canonicalRequest,
            stringToSign: stringToSign,
            authorization: authorization
        )
    }

    /// The headers to sign by lowercased name, sorted, each with its values in order; `host`
    /// comes from the URL when the request has no `Host` header.
    private func headersToSign(
        _ headers: SigV4Request.Headers,
        host: String
    ) -> [(name: String, values: [String])] {
        var values: [String: [String]] = [:]
        for field in headers {
            let name = field.name.lowercased()
            if !SigV4Canonical.unsignedHeaderNames.contains(name) {
                values[name, default: []].append(field.value)
            }
        }
        if values["host"] == nil {
            values["host"] = [host]
        }
        return values.keys
            .sorted(by: SigV4Canonical.precedes)
            .map { (name: $0, values: values[$0]!) }
    }
}
