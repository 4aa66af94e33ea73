import AWSWire
import Foundation

/// What the plugin keeps of a session, and stores between runs.
struct CognitoSessionData: Codable, Sendable, Equatable {
    /// A user pool user who signed in.
    struct SignedInUser: Codable, Sendable, Equatable {
        var username: String
        var userId: String
        var tokens: AWSCognitoUserPoolTokens
    }

    /// Identity pool credentials.
    struct Credentials: Codable, Sendable, Equatable {
        var accessKeyId: String
        var secretAccessKey: String
        var sessionToken: String?
        var expiration: Date?
        /// Whether they are the authenticated role's (got with the user's ID token).
        var isAuthenticated: Bool

        var awsCredentials: AWSCredentials {
            AWSCredentials(
                accessKeyId: accessKeyId,
                secretAccessKey: secretAccessKey,
                sessionToken: sessionToken,
                expiration: expiration
            )
        }
    }

    /// The format of the stored file; a newer one is refused rather than misread.
    var version = 1
    var user: SignedInUser?
    var identityId: String?
    /// Whether ``identityId`` was got with the user's login.
    var identityIsAuthenticated = false
    var credentials: Credentials?
}
