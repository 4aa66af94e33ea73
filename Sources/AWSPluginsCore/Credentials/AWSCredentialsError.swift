/// Credentials that a provider could not produce.
///
/// Thrown by ``EnvironmentCredentialsProvider/fetchCredentials()``. The ``description`` names
/// what is missing and says how to provide it:
///
/// ```text
/// The environment variable AWS_SECRET_ACCESS_KEY is not set. Export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary credentials), or use another credentials provider.
/// ```
public struct AWSCredentialsError: Error, Hashable, CustomStringConvertible {
    private enum Reason: Hashable {
        case missingEnvironmentVariable(String)
    }

    private let reason: Reason

    private init(_ reason: Reason) {
        self.reason = reason
    }

    static func missingEnvironmentVariable(_ name: String) -> AWSCredentialsError {
        AWSCredentialsError(.missingEnvironmentVariable(name))
    }

    /// The environment variable that was missing or empty, if that is the reason.
    public var missingVariable: String? {
        switch reason {
        case .missingEnvironmentVariable(let name): return name
        }
    }

    public var description: String {
        switch reason {
        case .missingEnvironmentVariable(let name):
            return "The environment variable \(name) is not set. "
                + "Export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary "
                + "credentials), or use another credentials provider."
        }
    }
}
