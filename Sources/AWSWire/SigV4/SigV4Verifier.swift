import Foundation

/// Checks SigV4 signatures on incoming requests, for servers that accept AWS_IAM callers.
///
/// The verifier parses `Authorization`, checks that the credential is scoped to the
/// expected service and region, that the request time (`X-Amz-Date`, or `Date`) is within
/// ``clockSkew`` of now, that the access key is known and the session token is the one issued
/// with it, then recomputes the signature over the headers named in `SignedHeaders` and
/// compares it in constant time. `host` must be among the signed headers.
///
/// ```swift
/// let verifier = SigV4Verifier(service: "appsync", region: "us-east-1") { accessKeyId in
///     accessKeyId == "AKIDEXAMPLE" ? (secretAccessKey: secret, sessionToken: nil) : nil
/// }
/// let caller = try verifier.verify(
///     method: "POST", path: "/graphql", query: nil, headers: headers, body: body
/// )
/// print(caller.accessKeyId)
/// ```
public struct SigV4Verifier: Sendable {
    /// Looks up the secret of an access key id, and the session token issued with it if the
    /// credentials are temporary; `nil` for an unknown key.
    public typealias CredentialLookup =
        @Sendable (_ accessKeyId: String) -> (secretAccessKey: String, sessionToken: String?)?

    /// The caller a valid signature identifies.
    public struct Signer: Sendable, Hashable {
        /// The access key id that signed the request.
        public var accessKeyId: String

        /// When the request was signed, in whole seconds.
        public var signingDate: Date

        /// Creates an identity.
        public init(accessKeyId: String, signingDate: Date) {
            self.accessKeyId = accessKeyId
            self.signingDate = signingDate
        }
    }

    /// The signing name requests must be scoped to, such as `appsync`.
    public var service: String

    /// The region requests must be scoped to, such as `us-east-1`.
    public var region: String

    /// How far the request time may be from now, either way: 15 minutes by default, as AWS allows.
    public var clockSkew: TimeInterval

    private let lookup: CredentialLookup

    /// Creates a verifier for a service in a region.
    ///
    /// - Parameters:
    ///   - service: The signing name requests must be scoped to, such as `appsync`.
    ///   - region: The region requests must be scoped to, such as `us-east-1`.
    ///   - clockSkew: How far the request time may be from now, either way.
    ///   - credentials: Looks up the secret and the session token of an access key id.
    public init(
        service: String,
        region: String,
        clockSkew: TimeInterval = 15 * 60,
        credentials: @escaping CredentialLookup
    ) {
        self.service = service
        self.region = region
        self.clockSkew = clockSkew
        self.lookup = credentials
    }

    /// Verifies a request as it arrived and returns who signed it.
    ///
    /// - Parameters:
    ///   - method: The request method.
    ///   - path: The path as sent, still percent-encoded, without the query.
    ///   - query: The query as sent, without `?`, or `nil` when there is none.
    ///   - headers: The header fields as received, `Host` included.
    ///   - body: The body as received.
    ///   - now: The server's current time.
    /// - Throws: ``SigV4VerificationError`` with the message AWS gives for the same fault.
    public func verify(
        method: String,
        path: String,
        query: String?,
        headers: SigV4Request.Headers,
        body: Data,
        now: Date = Date()
    ) throws -> Signer {
        guard let header = headers["Authorization"] else {
            throw SigV4VerificationError.missingAuthorization
        }
        let amzDate = headers["X-Amz-Date"]
        let httpDate = headers["Date"]
        let authorization = try SigV4Authorization(parsing: header, hasDate: amzDate != nil || httpDate != nil)

        guard authorization.terminator == SigV4Canonical.terminator else {
            throw SigV4VerificationError.wrongTerminator(authorization.terminator)
        }
        guard authorization.service == service else {
            throw SigV4VerificationError.wrongService(expected: service)
        }
        guard authorization.region == region else {
            throw SigV4VerificationError.wrongRegion(authorization.region)
        }
        let signedNames = authorization.signedHeaderNames
        guard signedNames.contains("host") || signedNames.contains(":authority") else {
            throw SigV4VerificationError.hostNotSigned
        }

        let timestamp = try requestTime(amzDate: amzDate, httpDate: httpDate)
        let basic = timestamp.basic
        guard authorization.scopeDate == timestamp.dateStamp else {
            throw SigV4VerificationError.scopeDateMismatch(scopeDate: authorization.scopeDate, timestamp: basic)
        }
        try checkClock(timestamp, now: SigV4Timestamp(now))

        guard let secret = lookup(authorization.accessKeyId) else {
            throw SigV4VerificationError.unknownAccessKey
        }
        let sentToken = headers["X-Amz-Security-Token"].flatMap { $0.isEmpty ? nil : $0 }
        switch (secret.sessionToken.flatMap { $0.isEmpty ? nil : $0 }, sentToken) {
        case (nil, nil):
            break
        case (let expected?, let sent?) where SigV4Canonical.constantTimeEquals(expected, sent):
            break
        default:
            throw SigV4VerificationError.invalidSessionToken
        }

        var capacity = path.utf8.count + (query?.utf8.count ?? 0) * 2 + 64
        for field in headers {
            capacity += field.name.utf8.count + field.value.utf8.count + 2
        }
        var canonical = SigV4CanonicalRequest(method: method, path: path, query: query, capacity: capacity)
        for name in signedNames {
            canonical.appendHeader(name: name)
            for value in headers.values(for: name) {
                canonical.appendHeaderValue(value)
            }
        }
        canonical.finish(body: body)
        let context = SigV4SigningKeyCache.shared.signingContext(
            secretAccessKey: secret.secretAccessKey,
            dateStamp: authorization.scopeDate,
            region: region,
            service: service
        )
        canonical.sign(amzDate: basic, scope: context.scope, keyedHMAC: context.keyedHMAC)
        guard
            SigV4Canonical.constantTimeEquals(
                Array(canonical.bytes[canonical.signatureRange]),
                Array(authorization.signature.utf8)
            )
        else {
            throw SigV4VerificationError.signatureMismatch(
                canonicalRequest: canonical.canonicalRequest,
                stringToSign: canonical.stringToSign
            )
        }
        return Signer(accessKeyId: authorization.accessKeyId, signingDate: timestamp.date)
    }

    /// Verifies a request given as a ``SigV4Request``, taking the path and query from its URL.
    ///
    /// - Throws: ``SigV4VerificationError`` with the message AWS gives for the same fault.
    public func verify(_ request: SigV4Request, now: Date = Date()) throws -> Signer {
        let parts = request.urlParts
        return try verify(
            method: request.method,
            path: parts.path,
            query: parts.query,
            headers: request.headers,
            body: request.body,
            now: now
        )
    }

    private func requestTime(amzDate: String?, httpDate: String?) throws -> SigV4Timestamp {
        if let amzDate {
            guard let timestamp = SigV4Timestamp(basic: amzDate) else {
                throw SigV4VerificationError.malformedAmzDate(amzDate)
            }
            return timestamp
        }
        let httpDate = httpDate ?? ""
        guard let timestamp = SigV4Timestamp(httpDate: httpDate) else {
            throw SigV4VerificationError.malformedHTTPDate(httpDate)
        }
        return timestamp
    }

    private func checkClock(_ timestamp: SigV4Timestamp, now: SigV4Timestamp) throws {
        let skew = Int64(clockSkew.rounded(.down))
        let skewText = skew % 60 == 0 ? "\(skew / 60) min" : "\(skew) sec"
        let earliest = now.adding(seconds: -skew)
        let latest = now.adding(seconds: skew)
        if timestamp < earliest {
            throw SigV4VerificationError.expired(
                signed: timestamp.basic,
                earliest: earliest.basic,
                now: now.basic,
                skew: skewText
            )
        }
        if latest < timestamp {
            throw SigV4VerificationError.notYetCurrent(
                signed: timestamp.basic,
                latest: latest.basic,
                now: now.basic,
                skew: skewText
            )
        }
    }
}
