import AWSWire

/// A provider that always returns the same credentials.
///
/// For tests, scripts and the local backend, where the keys are known up front.
///
/// ```swift
/// let provider = StaticCredentialsProvider(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret")
/// ```
public struct StaticCredentialsProvider: AWSCredentialsProvider {
    /// The credentials every fetch returns.
    public var credentials: AWSCredentials

    /// Creates a provider that returns `credentials`.
    public init(_ credentials: AWSCredentials) {
        self.credentials = credentials
    }

    /// Creates a provider that returns the given keys and optional session token.
    public init(accessKeyId: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.init(
            AWSCredentials(accessKeyId: accessKeyId, secretAccessKey: secretAccessKey, sessionToken: sessionToken)
        )
    }

    /// Returns ``credentials``.
    public func fetchCredentials() async throws -> AWSCredentials {
        credentials
    }
}
