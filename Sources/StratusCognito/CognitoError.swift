import Foundation
import StratusServer

/// A refusal of the local Cognito services, as Cognito words it: HTTP 400 with
/// `{"__type": "NotAuthorizedException", "message": "Incorrect username or password."}`.
package struct CognitoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Cognito's exception name, such as `UserNotFoundException`.
    package var type: String
    /// The message Cognito gives for the same fault.
    package var message: String

    package init(_ type: String, _ message: String) {
        self.type = type
        self.message = message
    }

    package var description: String { "\(type): \(message)" }

    /// The response body: `{"__type": …, "message": …}`.
    var body: JSON { .object(["__type": .string(type), "message": .string(message)]) }

    static func invalidParameter(_ message: String) -> CognitoError {
        CognitoError("InvalidParameterException", message)
    }
    static func notAuthorized(_ message: String) -> CognitoError { CognitoError("NotAuthorizedException", message) }
    static let incorrectPassword = notAuthorized("Incorrect username or password.")
    static let userNotFound = CognitoError("UserNotFoundException", "User does not exist.")
    static let userNotConfirmed = CognitoError("UserNotConfirmedException", "User is not confirmed.")
    static let groupNotFound = CognitoError("ResourceNotFoundException", "Group not found.")
    static let usernameExists = CognitoError("UsernameExistsException", "User already exists")
    static let codeMismatch = CognitoError(
        "CodeMismatchException",
        "Invalid verification code provided, please try again."
    )
    static let expiredCode = CognitoError("ExpiredCodeException", "Invalid code provided, please request a code again.")
    static let invalidAccessToken = notAuthorized("Invalid Access Token")
    static let revokedAccessToken = notAuthorized("Access Token has been revoked")
    static let invalidRefreshToken = notAuthorized("Invalid Refresh Token")
    static let revokedRefreshToken = notAuthorized("Refresh Token has been revoked")
    static let invalidSession = notAuthorized("Invalid session for the user, session is expired.")
    static let attemptsExceeded = notAuthorized("Password attempts exceeded")
    /// Too many requests of a client, or too much password work waiting.
    static let tooManyRequests = CognitoError("TooManyRequestsException", "Rate exceeded")
    /// Too many wrong codes, or too many codes requested.
    static let attemptLimitExceeded = CognitoError(
        "LimitExceededException",
        "Attempt limit exceeded, please try after some time."
    )
    static let serialization = CognitoError("SerializationException", "The request body is not a JSON object.")

    static func missing(_ name: String) -> CognitoError {
        invalidParameter(
            "1 validation error detected: Value at '\(name)' failed to satisfy constraint: Member must not be null"
        )
    }
    static func unknownClient(_ id: String) -> CognitoError {
        CognitoError("ResourceNotFoundException", "User pool client \(id) does not exist.")
    }
    static func unknownOperation(_ target: String) -> CognitoError {
        CognitoError("UnknownOperationException", "The operation '\(target)' is not supported by the local Cognito.")
    }
}
