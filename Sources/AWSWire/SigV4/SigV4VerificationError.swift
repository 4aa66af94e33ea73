/// A request whose SigV4 signature was refused.
///
/// Thrown by ``SigV4Verifier``. The ``description`` is the message AWS gives for the same
/// fault, and ``errorType`` the exception name AWS reports with it, so a server can answer
/// as AWS would:
///
/// ```text
/// Signature expired: 20240102T030405Z is now earlier than 20240102T032000Z (20240102T033500Z - 15 min.)
/// ```
public struct SigV4VerificationError: Error, Hashable, CustomStringConvertible {
    private enum Reason: Hashable {
        case missingAuthorization
        case missingParts(parameters: [String], date: Bool, authorization: String)
        case missingEqualSign(pair: String, authorization: String)
        case malformedCredential
        case wrongTerminator(String)
        case wrongService(expected: String)
        case wrongRegion(String)
        case hostNotSigned
        case malformedAmzDate(String)
        case malformedHTTPDate(String)
        case scopeDateMismatch(scopeDate: String, timestamp: String)
        case expired(signed: String, earliest: String, now: String, skew: String)
        case notYetCurrent(signed: String, latest: String, now: String, skew: String)
        case unknownAccessKey
        case invalidSessionToken
        case signatureMismatch(canonicalRequest: String, stringToSign: String)
    }

    private let reason: Reason

    private init(_ reason: Reason) {
        self.reason = reason
    }

    static let missingAuthorization = SigV4VerificationError(.missingAuthorization)
    static let malformedCredential = SigV4VerificationError(.malformedCredential)
    static let hostNotSigned = SigV4VerificationError(.hostNotSigned)
    static let unknownAccessKey = SigV4VerificationError(.unknownAccessKey)
    static let invalidSessionToken = SigV4VerificationError(.invalidSessionToken)

    static func missingParts(_ parameters: [String], date: Bool, authorization: String) -> SigV4VerificationError {
        SigV4VerificationError(.missingParts(parameters: parameters, date: date, authorization: authorization))
    }

    static func missingEqualSign(_ pair: String, authorization: String) -> SigV4VerificationError {
        SigV4VerificationError(.missingEqualSign(pair: pair, authorization: authorization))
    }

    static func wrongTerminator(_ terminator: String) -> SigV4VerificationError {
        SigV4VerificationError(.wrongTerminator(terminator))
    }

    static func wrongService(expected: String) -> SigV4VerificationError {
        SigV4VerificationError(.wrongService(expected: expected))
    }

    static func wrongRegion(_ region: String) -> SigV4VerificationError {
        SigV4VerificationError(.wrongRegion(region))
    }

    static func malformedAmzDate(_ value: String) -> SigV4VerificationError {
        SigV4VerificationError(.malformedAmzDate(value))
    }

    static func malformedHTTPDate(_ value: String) -> SigV4VerificationError {
        SigV4VerificationError(.malformedHTTPDate(value))
    }

    static func scopeDateMismatch(scopeDate: String, timestamp: String) -> SigV4VerificationError {
        SigV4VerificationError(.scopeDateMismatch(scopeDate: scopeDate, timestamp: timestamp))
    }

    static func expired(signed: String, earliest: String, now: String, skew: String) -> SigV4VerificationError {
        SigV4VerificationError(.expired(signed: signed, earliest: earliest, now: now, skew: skew))
    }

    static func notYetCurrent(signed: String, latest: String, now: String, skew: String) -> SigV4VerificationError {
        SigV4VerificationError(.notYetCurrent(signed: signed, latest: latest, now: now, skew: skew))
    }

    static func signatureMismatch(canonicalRequest: String, stringToSign: String) -> SigV4VerificationError {
        SigV4VerificationError(.signatureMismatch(canonicalRequest: canonicalRequest, stringToSign: stringToSign))
    }

    /// The name AWS gives this kind of failure, such as `InvalidSignatureException`.
    ///
    /// `MissingAuthenticationTokenException` for a request without `Authorization`,
    /// `IncompleteSignatureException` for a header that cannot be parsed,
    /// `UnrecognizedClientException` for an unknown access key or a bad session token, and
    /// `InvalidSignatureException` for everything else.
    public var errorType: String {
        switch reason {
        case .missingAuthorization:
            return "MissingAuthenticationTokenException"
        case .missingParts, .missingEqualSign, .malformedCredential:
            return "IncompleteSignatureException"
        case .unknownAccessKey, .invalidSessionToken:
            return "UnrecognizedClientException"
        case .wrongTerminator, .wrongService, .wrongRegion, .hostNotSigned, .malformedAmzDate, .malformedHTTPDate,
            .scopeDateMismatch, .expired, .notYetCurrent, .signatureMismatch:
            return "InvalidSignatureException"
        }
    }

    /// The canonical request the server computed, when the signature did not match.
    ///
    /// Compare it with the client's to find the difference. It is not part of
    /// ``description``, which is safe to return to the caller.
    public var expectedCanonicalRequest: String? {
        if case .signatureMismatch(let canonicalRequest, _) = reason { return canonicalRequest }
        return nil
    }

    /// The string to sign the server computed, when the signature did not match.
    public var expectedStringToSign: String? {
        if case .signatureMismatch(_, let stringToSign) = reason { return stringToSign }
        return nil
    }

    public var description: String {
        switch reason {
        case .missingAuthorization:
            return "Missing Authentication Token"
        case .missingParts(let parameters, let date, let authorization):
            var sentences = parameters.map { "Authorization header requires '\($0)' parameter." }
            if date {
                sentences.append("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.")
            }
            sentences.append("Authorization=\(authorization)")
            return sentences.joined(separator: " ")
        case .missingEqualSign(let pair, let authorization):
            return "'\(pair)' not a valid key=value pair (missing equal-sign) in Authorization header: "
                + "'\(authorization)'."
        case .malformedCredential:
            return "The authorization header is malformed; the Credential is mal-formed; "
                + "expecting \"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request\"."
        case .wrongTerminator(let terminator):
            return "Credential should be scoped with a valid terminator: 'aws4_request', not '\(terminator)'."
        case .wrongService(let expected):
            return "Credential should be scoped to correct service: '\(expected)'."
        case .wrongRegion(let region):
            return "Credential should be scoped to a valid region, not '\(region)'."
        case .hostNotSigned:
            return "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization."
        case .malformedAmzDate(let value):
            return "Date must be in ISO-8601 'basic format'. Got '\(value)'. See http://en.wikipedia.org/wiki/ISO_8601"
        case .malformedHTTPDate(let value):
            return "Date must be an HTTP date such as 'Tue, 02 Jan 2024 03:04:05 GMT'. Got '\(value)'."
        case .scopeDateMismatch(let scopeDate, let timestamp):
            return "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: "
                + "'\(scopeDate)' != '\(timestamp.prefix(8))', from '\(timestamp)'."
        case .expired(let signed, let earliest, let now, let skew):
            return "Signature expired: \(signed) is now earlier than \(earliest) (\(now) - \(skew).)"
        case .notYetCurrent(let signed, let latest, let now, let skew):
            return "Signature not yet current: \(signed) is still later than \(latest) (\(now) + \(skew).)"
        case .unknownAccessKey, .invalidSessionToken:
            return "The security token included in the request is invalid."
        case .signatureMismatch:
            return "The request signature we calculated does not match the signature you provided. "
                + "Check your AWS Secret Access Key and signing method."
        }
    }
}
