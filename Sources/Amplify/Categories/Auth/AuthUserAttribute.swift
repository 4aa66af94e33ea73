/// The name of a user attribute, as the service names it (`email`, `custom:team`).
public struct AuthUserAttributeKey: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The attribute's name on the wire.
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    public var description: String { rawValue }

    public static let address = AuthUserAttributeKey(rawValue: "address")
    public static let birthDate = AuthUserAttributeKey(rawValue: "birthdate")
    public static let email = AuthUserAttributeKey(rawValue: "email")
    public static let emailVerified = AuthUserAttributeKey(rawValue: "email_verified")
    public static let familyName = AuthUserAttributeKey(rawValue: "family_name")
    public static let gender = AuthUserAttributeKey(rawValue: "gender")
    public static let givenName = AuthUserAttributeKey(rawValue: "given_name")
    public static let locale = AuthUserAttributeKey(rawValue: "locale")
    public static let middleName = AuthUserAttributeKey(rawValue: "middle_name")
    public static let name = AuthUserAttributeKey(rawValue: "name")
    public static let nickname = AuthUserAttributeKey(rawValue: "nickname")
    public static let phoneNumber = AuthUserAttributeKey(rawValue: "phone_number")
    public static let phoneNumberVerified = AuthUserAttributeKey(rawValue: "phone_number_verified")
    public static let picture = AuthUserAttributeKey(rawValue: "picture")
    public static let preferredUsername = AuthUserAttributeKey(rawValue: "preferred_username")
    public static let sub = AuthUserAttributeKey(rawValue: "sub")

    /// A custom attribute: `custom(“team”)` is `custom:team`.
    public static func custom(_ name: String) -> AuthUserAttributeKey {
        AuthUserAttributeKey(rawValue: "custom:\(name)")
    }
}

/// A user attribute and its value.
public struct AuthUserAttribute: Sendable, Hashable {
    public let key: AuthUserAttributeKey
    public let value: String

    public init(_ key: AuthUserAttributeKey, value: String) {
        self.key = key
        self.value = value
    }
}

/// The signed-in user.
public protocol AuthUser: Sendable {
    /// The name the user signs in with.
    var username: String { get }
    /// The user's unique id (Cognito's `sub`).
    var userId: String { get }
}

/// A user session: whether someone is signed in; the plugin's session type carries the tokens.
public protocol AuthSession: Sendable {
    /// Whether a user is signed in.
    var isSignedIn: Bool { get }
}
