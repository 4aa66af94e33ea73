import Foundation
import StratusServer

extension CognitoUserPool {
    /// The ID and access tokens of one sign-in, signed by the pool.
    public struct IssuedTokens: Sendable, Hashable {
        /// The ID token: the user's attributes, groups and `cognito:username`.
        public var idToken: String
        /// The access token: the user's `username`, groups and scope.
        public var accessToken: String
    }

    /// Tokens for `username` as a sign-in through the pool's first app client would give them,
    /// without the password: for an administrator acting as the user (the console's "run as").
    ///
    /// The tokens are the pool's own, signed with its key, with the user's groups and attributes;
    /// they are refused like any other once the user is deleted, disabled or signed out.
    ///
    /// - Throws: ``ServerError`` when there is no such user, the user is disabled or not
    ///   confirmed, or the pool has no app client.
    public func issueTokens(for username: String) async throws(ServerError) -> IssuedTokens {
        do {
            return try await serially {
                guard let client = self.configuration.clients.first else {
                    throw CognitoError.invalidParameter("The user pool has no app client to issue tokens for.")
                }
                let user = try await self.user(username)
                guard user.enabled else { throw CognitoError.notAuthorized("User is disabled.") }
                guard user.status == .confirmed else {
                    throw CognitoError.invalidParameter(
                        "User '\(username)' is \(user.status.rawValue), not CONFIRMED: confirm it first "
                            + "(stratus users confirm \(username))."
                    )
                }
                let tokens = try self.tokens(
                    for: user,
                    clientId: client.clientId,
                    originJti: UUID().uuidString.lowercased(),
                    authTime: self.clock()
                )
                guard let idToken = tokens["IdToken"]?.stringValue, let accessToken = tokens["AccessToken"]?.stringValue
                else { throw CognitoError.invalidParameter("The pool signed no tokens for '\(username)'.") }
                return IssuedTokens(idToken: idToken, accessToken: accessToken)
            }
        } catch let error as CognitoError {
            throw ServerError.cognito(error.description)
        } catch {
            throw ServerError.cognito("The user pool's state cannot be read: \(error)")
        }
    }
}
