@_exported import AWSCore
import Amplify

/// The identity of the app's user in the Cognito identity pool, as the AWS Mobile SDK's
/// `AWSIdentityManager` gives it, read from the Auth category.
///
/// ```swift
/// AWSIdentityManager.default().getIdentityId().continueWith { task in
///     print(task.result ?? "no identity")
///     return nil
/// }
/// ```
public final class AWSIdentityManager: Sendable {
    private static let shared = AWSIdentityManager(auth: nil)
    private let provider: AWSCognitoCredentialsProvider?

    /// The identity manager over `Amplify.Auth`.
    public static func `default`() -> AWSIdentityManager { shared }

    /// An identity manager over `auth`, such as a configured `AWSCognitoAuthPlugin`.
    public init(auth: (any AuthCategory)?) {
        provider = auth.map { AWSCognitoCredentialsProvider(auth: $0) }
    }

    /// The credentials provider of the identity: guest credentials while signed out, the
    /// signed-in user's after.
    public var credentialsProvider: AWSCognitoCredentialsProvider {
        provider ?? AWSCognitoCredentialsProvider(auth: Amplify.Auth)
    }

    /// The identity id of the guest or the signed-in user, as a task.
    public func getIdentityId() -> AWSTask<String> {
        credentialsProvider.getIdentityId()
    }
}
