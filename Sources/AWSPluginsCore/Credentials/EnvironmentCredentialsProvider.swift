import AWSWire
import Foundation

/// A provider that reads credentials from the standard AWS environment variables.
///
/// `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` are required; `AWS_SESSION_TOKEN` is read
/// when present. The variables are read on every fetch, so a process that exports new
/// credentials is picked up without restarting. An empty variable counts as missing.
///
/// ```swift
/// let provider = EnvironmentCredentialsProvider()
/// let credentials = try await provider.fetchCredentials()
/// ```
public struct EnvironmentCredentialsProvider: AWSCredentialsProvider {
    /// The variable that holds the access key id.
    public static let accessKeyIdVariable = "AWS_ACCESS_KEY_ID"

    /// The variable that holds the secret access key.
    public static let secretAccessKeyVariable = "AWS_SECRET_ACCESS_KEY"

    /// The variable that holds the session token of temporary credentials.
    public static let sessionTokenVariable = "AWS_SESSION_TOKEN"

    private let environment: @Sendable () -> [String: String]

    /// Creates a provider that reads the environment of this process.
    public init() {
        self.environment = { ProcessInfo.processInfo.environment }
    }

    /// Creates a provider that reads `environment` instead of the process environment.
    public init(environment: [String: String]) {
        self.environment = { environment }
    }

    /// Returns the credentials the environment holds now.
    ///
    /// - Throws: ``AWSCredentialsError`` naming the first required variable that is missing
    ///   or empty.
    public func fetchCredentials() async throws -> AWSCredentials {
        let environment = environment()
        func value(_ name: String) -> String? {
            guard let value = environment[name], !value.isEmpty else { return nil }
            return value
        }
        guard let accessKeyId = value(Self.accessKeyIdVariable) else {
            throw AWSCredentialsError.missingEnvironmentVariable(Self.accessKeyIdVariable)
        }
        guard let secretAccessKey = value(Self.secretAccessKeyVariable) else {
            throw AWSCredentialsError.missingEnvironmentVariable(Self.secretAccessKeyVariable)
        }
        return AWSCredentials(
            accessKeyId: accessKeyId,
            secretAccessKey: secretAccessKey,
            sessionToken: value(Self.sessionTokenVariable)
        )
    }
}
