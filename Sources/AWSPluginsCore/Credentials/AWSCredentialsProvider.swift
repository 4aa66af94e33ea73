import AWSWire

/// A source of AWS credentials for signing requests.
///
/// The signer asks for credentials before each request, so a provider decides how long to
/// keep them: ``StaticCredentialsProvider`` always returns the same keys,
/// ``EnvironmentCredentialsProvider`` reads the standard environment variables and
/// ``RefreshingCredentialsProvider`` caches temporary credentials until shortly before they
/// expire.
///
/// ```swift
/// struct VaultCredentialsProvider: AWSCredentialsProvider {
///     func fetchCredentials() async throws -> AWSCredentials {
///         try await vault.read("aws")
///     }
/// }
/// ```
public protocol AWSCredentialsProvider: Sendable {
    /// Returns credentials that are valid now.
    ///
    /// - Throws: An error that says why no credentials are available, such as
    ///   ``AWSCredentialsError`` for a missing environment variable.
    func fetchCredentials() async throws -> AWSCredentials
}
