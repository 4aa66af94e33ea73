import Amplify

/// An error answered by a Cognito service, with the service's exception name kept.
///
/// It is the underlying error of the ``Amplify/AuthError`` the plugin throws:
///
/// ```swift
/// do {
///     _ = try await Amplify.Auth.signIn(username: "alice", password: "wrong")
/// } catch let error as AuthError {
///     print(error.cognitoExceptionName ?? "")   // NotAuthorizedException
/// }
/// ```
public struct AWSCognitoServiceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The exception's name, such as `NotAuthorizedException` or `UserNotConfirmedException`.
    public let exceptionName: String
    /// The service's message, such as `Incorrect username or password.`
    public let message: String
    /// The HTTP status of the answer.
    public let statusCode: Int

    /// An error from its parts.
    public init(exceptionName: String, message: String, statusCode: Int) {
        self.exceptionName = exceptionName
        self.message = message
        self.statusCode = statusCode
    }

    public var description: String { "\(exceptionName): \(message)" }

    /// The error as ``Amplify/AuthError``: `notAuthorized` for `NotAuthorizedException`,
    /// `service` for the rest, with what to do about each.
    var authError: AuthError {
        let description = message.isEmpty ? "\(exceptionName)." : "\(exceptionName): \(message)"
        let suggestion = Self.suggestions[exceptionName] ?? "See the exception's description and try again."
        switch exceptionName {
        case "NotAuthorizedException":
            return .notAuthorized(description, suggestion, self)
        case "InvalidParameterException", "InvalidPasswordException":
            return .validation(exceptionName, description, suggestion, self)
        default:
            return .service(description, suggestion, self)
        }
    }

    static let suggestions: [String: String] = [
        "NotAuthorizedException":
            "Check the username and password; when a token was refused, sign in again.",
        "UserNotFoundException": "Check the username, or sign up first.",
        "UserNotConfirmedException":
            "Confirm the account with confirmSignUp(for:confirmationCode:) and the code sent at sign-up.",
        "UsernameExistsException": "Choose another username, or sign in with this one.",
        "CodeMismatchException": "Enter the code exactly as it was sent, or request a new one.",
        "ExpiredCodeException": "Request a new code and enter it before it expires.",
        "InvalidPasswordException": "Choose a password that meets the user pool's password policy.",
        "InvalidParameterException": "Fix the parameter the message names.",
        "LimitExceededException": "Wait a while before trying again.",
        "TooManyRequestsException": "Slow down and retry after a short wait.",
        "TooManyFailedAttemptsException": "Wait a while before trying again.",
        "PasswordResetRequiredException": "Reset the password with resetPassword(for:).",
        "ResourceNotFoundException": "Check the user pool, app client and identity pool ids in the configuration.",
        "AliasExistsException": "Use another email address or phone number.",
        "CodeDeliveryFailureException": "Check the email address or phone number and request a new code.",
        "InvalidUserPoolConfigurationException": "Fix the user pool's configuration in Cognito.",
        "UnknownOperationException":
            "The endpoint does not implement this operation; use Cognito or a server that does.",
    ]
}

extension AuthError {
    /// The Cognito exception name behind this error (`NotAuthorizedException`, …), if any.
    public var cognitoExceptionName: String? {
        (underlyingError as? AWSCognitoServiceError)?.exceptionName
    }
}
