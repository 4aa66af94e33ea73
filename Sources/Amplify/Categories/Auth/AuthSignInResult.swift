/// What a sign-in step gave: signed in, or the next step.
///
/// ```swift
/// let result = try await Amplify.Auth.signIn(username: "alice", password: password)
/// if case .confirmSignInWithNewPassword = result.nextStep {
///     _ = try await Amplify.Auth.confirmSignIn(challengeResponse: newPassword)
/// }
/// ```
public struct AuthSignInResult: Sendable, Hashable {
    /// The step after a sign-in call.
    public enum Step: Sendable, Hashable {
        /// The user must choose a new password (the account was created by an administrator):
        /// pass it to `confirmSignIn(challengeResponse:)`. The info lists the required attributes.
        case confirmSignInWithNewPassword([String: String]?)
        /// Enter the code sent by SMS with `confirmSignIn(challengeResponse:)`.
        case confirmSignInWithSMSMFACode(AuthCodeDeliveryDetails, [String: String]?)
        /// Answer the custom challenge with `confirmSignIn(challengeResponse:)`.
        case confirmSignInWithCustomChallenge([String: String]?)
        /// The password must be reset first: `resetPassword(for:)`.
        case resetPassword([String: String]?)
        /// The account is not confirmed: `confirmSignUp(for:confirmationCode:)`.
        case confirmSignUp([String: String]?)
        /// Signed in.
        case done
    }

    /// The next step.
    public let nextStep: Step

    /// Whether the user is signed in.
    public var isSignedIn: Bool { nextStep == .done }

    public init(nextStep: Step) {
        self.nextStep = nextStep
    }
}

/// What `resetPassword(for:)` gave.
public struct AuthResetPasswordResult: Sendable, Hashable {
    /// The step after `resetPassword(for:)`.
    public enum Step: Sendable, Hashable {
        /// Enter the code sent to the destination with `confirmResetPassword`.
        case confirmResetPasswordWithCode(AuthCodeDeliveryDetails, [String: String]?)
        /// The password was reset.
        case done
    }

    /// Whether the password is reset.
    public let isPasswordReset: Bool
    /// The next step.
    public let nextStep: Step

    public init(isPasswordReset: Bool, nextStep: Step) {
        self.isPasswordReset = isPasswordReset
        self.nextStep = nextStep
    }
}

/// What updating a user attribute gave.
public struct AuthUpdateAttributeResult: Sendable, Hashable {
    /// The step after an attribute update.
    public enum Step: Sendable, Hashable {
        /// Confirm the new value with the code sent to it.
        case confirmAttributeWithCode(AuthCodeDeliveryDetails, [String: String]?)
        /// Updated.
        case done
    }

    /// Whether the attribute is updated.
    public let isUpdated: Bool
    /// The next step.
    public let nextStep: Step

    public init(isUpdated: Bool, nextStep: Step) {
        self.isUpdated = isUpdated
        self.nextStep = nextStep
    }
}
