/// An Auth failure: what happened, what to do, and the error underneath.
///
/// The service's own error travels as the underlying error: with the Cognito plugin it keeps
/// Cognito's exception name (`NotAuthorizedException`, `UserNotConfirmedException`, …).
///
/// ```swift
/// do {
///     _ = try await Amplify.Auth.signIn(username: "alice", password: "wrong")
/// } catch let error as AuthError {
///     print(error.errorDescription, error.recoverySuggestion)
/// }
/// ```
public enum AuthError: Error, Sendable, CustomStringConvertible {
    /// The plugin's configuration lacks something or is invalid.
    case configuration(String, String, (any Error & Sendable)? = nil)
    /// The service refused the request or failed.
    case service(String, String, (any Error & Sendable)? = nil)
    /// An unexpected failure.
    case unknown(String, (any Error & Sendable)? = nil)
    /// An input was invalid: the field, what is wrong, and what to do.
    case validation(String, String, String, (any Error & Sendable)? = nil)
    /// The credentials were refused: a wrong password, a revoked or expired token.
    case notAuthorized(String, String, (any Error & Sendable)? = nil)
    /// The call does not fit the current state, such as `confirmSignIn` with no sign-in under way.
    case invalidState(String, String, (any Error & Sendable)? = nil)
    /// The call needs a signed-in user and there is none.
    case signedOut(String, String, (any Error & Sendable)? = nil)
    /// The session expired and could not be refreshed: the user must sign in again.
    case sessionExpired(String, String, (any Error & Sendable)? = nil)

    /// What went wrong.
    public var errorDescription: String {
        switch self {
        case .configuration(let description, _, _), .service(let description, _, _),
            .unknown(let description, _), .validation(_, let description, _, _),
            .notAuthorized(let description, _, _), .invalidState(let description, _, _),
            .signedOut(let description, _, _), .sessionExpired(let description, _, _):
            return description
        }
    }

    /// What to do about it.
    public var recoverySuggestion: String {
        switch self {
        case .configuration(_, let suggestion, _), .service(_, let suggestion, _),
            .validation(_, _, let suggestion, _), .notAuthorized(_, let suggestion, _),
            .invalidState(_, let suggestion, _), .signedOut(_, let suggestion, _),
            .sessionExpired(_, let suggestion, _):
            return suggestion
        case .unknown:
            return "This should not happen. Report it with the error's description."
        }
    }

    /// The error underneath, such as the service's own error.
    public var underlyingError: (any Error & Sendable)? {
        switch self {
        case .configuration(_, _, let error), .service(_, _, let error), .unknown(_, let error),
            .validation(_, _, _, let error), .notAuthorized(_, _, let error), .invalidState(_, _, let error),
            .signedOut(_, _, let error), .sessionExpired(_, _, let error):
            return error
        }
    }

    public var description: String {
        "\(errorDescription) \(recoverySuggestion)"
    }
}
