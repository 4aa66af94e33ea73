/// Where a code was sent, so the user knows where to look.
public struct AuthCodeDeliveryDetails: Sendable, Hashable {
    /// Where the code went.
    public enum Destination: Sendable, Hashable {
        case email(String?)
        case phone(String?)
        case sms(String?)
        case unknown(String?)
    }

    /// The destination, masked by the service (`a***@e***.com`).
    public let destination: Destination
    /// The attribute the code verifies, such as `email`.
    public let attributeKey: AuthUserAttributeKey?

    public init(destination: Destination, attributeKey: AuthUserAttributeKey? = nil) {
        self.destination = destination
        self.attributeKey = attributeKey
    }
}

/// What a sign-up gave: whether it is complete, and the next step when it is not.
public struct AuthSignUpResult: Sendable, Hashable {
    /// The step after ``Amplify/Amplify/Auth``'s `signUp` or `confirmSignUp`.
    public enum Step: Sendable, Hashable {
        /// Confirm the account with the code sent to the destination: `confirmSignUp(for:confirmationCode:)`.
        case confirmUser(AuthCodeDeliveryDetails?, [String: String]?, String?)
        /// The account is confirmed: sign in.
        case done
    }

    /// The next step.
    public let nextStep: Step
    /// The user's id (`sub`), when the service returned it.
    public let userID: String?

    /// Whether the account is confirmed.
    public var isSignUpComplete: Bool { nextStep == .done }

    public init(_ nextStep: Step, userID: String? = nil) {
        self.nextStep = nextStep
        self.userID = userID
    }
}
