import Foundation

/// An AWS access key pair, with the session token of temporary credentials.
///
/// Long-term IAM user keys have no session token and no expiration. Temporary credentials,
/// from STS or a Cognito identity pool, carry both: the token travels with each signed request
/// in `X-Amz-Security-Token`, and the expiration tells a `RefreshingCredentialsProvider` (of
/// `AWSPluginsCore`) when to fetch new ones. The local server checks signatures against the same
/// type, and does not read the expiration.
///
/// ```swift
/// let credentials = AWSCredentials(
///     accessKeyId: "AKIDEXAMPLE",
///     secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
/// )
/// ```
public struct AWSCredentials: Sendable, Hashable {
    /// The access key id, such as `AKIDEXAMPLE`; it is sent in the clear in the credential scope.
    public var accessKeyId: String

    /// The secret access key; it only ever feeds the signing key and is never sent.
    public var secretAccessKey: String

    /// The session token of temporary credentials, or `nil` for long-term keys.
    public var sessionToken: String?

    /// When temporary credentials stop working, or `nil` when they do not expire.
    public var expiration: Date?

    /// Creates credentials from their parts.
    public init(accessKeyId: String, secretAccessKey: String, sessionToken: String? = nil, expiration: Date? = nil) {
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.expiration = expiration
    }
}

extension AWSCredentials: CustomStringConvertible {
    /// The access key id and expiration, with the secret and the token redacted, for logs.
    public var description: String {
        var parts = ["accessKeyId: \(accessKeyId)", "secretAccessKey: <redacted>"]
        if sessionToken != nil {
            parts.append("sessionToken: <redacted>")
        }
        if let expiration {
            parts.append("expiration: \(expiration.formatted(.iso8601))")
        }
        return "AWSCredentials(\(parts.joined(separator: ", ")))"
    }
}
