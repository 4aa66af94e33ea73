import Foundation

/// The local Cognito user pool (and, optionally, identity pool) that `stratus serve --auth`
/// runs on the API's port: its app clients, password policy, groups, pre-created users and token
/// lifetimes, as the `auth` block of `stratus.json` sets them.
///
/// ```swift
/// var cognito = CognitoConfiguration()
/// cognito.clients = [.init(clientId: "localclient")]
/// cognito.users = [.init(username: "alice", password: "Secret-pass1!", groups: ["Admins"])]
/// ```
public struct CognitoConfiguration: Sendable, Hashable {
    /// The user pool id, `<region>_<name>`.
    public var userPoolId: String
    /// The region of both pools.
    public var region: String
    /// The app clients of the pool.
    public var clients: [AppClient]
    /// What a password must contain.
    public var passwordPolicy: PasswordPolicy
    /// The groups of the pool.
    public var groups: [String]
    /// Users created when the pool is first opened (and kept as they are afterwards).
    public var users: [User]
    /// How long ID and access tokens last.
    public var tokenLifetime: TimeInterval
    /// How long refresh tokens last.
    public var refreshTokenLifetime: TimeInterval
    /// Whether each refresh hands out a new refresh token (revoking the one it took).
    public var rotatesRefreshTokens: Bool
    /// Whether sign-up confirms the user at once, without a code.
    public var autoConfirmsSignUp: Bool
    /// What users sign up and sign in with instead of a username (Cognito's `UsernameAttributes`):
    /// `email`, `phone_number`, or both; none by default. The pool then names each user by a
    /// generated id, the `cognito:username` of its tokens.
    public var usernameAttributes: [UsernameAttribute] = []
    /// The identity pool id, `<region>:<uuid>`; `nil` for no identity pool.
    public var identityPoolId: String?
    /// Whether the identity pool gives guests credentials.
    public var allowsGuests: Bool
    /// The AWS account the identity pool's roles belong to: the `accountId` of its callers'
    /// identity in AppSync, and part of their `userArn`.
    public var accountId = "000000000000"
    /// The role credentials for signed-in users assume (Amplify's `authRole`), named in their
    /// `userArn`: `arn:aws:sts::<account>:assumed-role/<role>/CognitoIdentityCredentials`.
    public var authenticatedRoleName = "stratus-authRole"
    /// The role guests' credentials assume (Amplify's `unauthRole`), named in their `userArn`.
    public var unauthenticatedRoleName = "stratus-unauthRole"
    /// How long the identity pool's credentials last.
    public var credentialsLifetime: TimeInterval
    /// How many failed sign-ins in a row, from one client address, lock that address out of
    /// the user for ``lockout``.
    ///
    /// The lockout applies to the address the failures came from: a user signing in from
    /// another address is not locked out by someone else's guesses. Each lockout of the same
    /// address and user lasts twice the one before, up to ``maxLockout``; attempts during a
    /// lockout are refused without checking the password and neither count nor extend it, and an
    /// address quiet for ``maxLockout`` after a lockout starts again from ``lockout``.
    public var maxFailedSignIns: Int
    /// How long the first lockout after ``maxFailedSignIns`` failures lasts.
    public var lockout: TimeInterval
    /// The longest lockout: 15 minutes by default.
    public var maxLockout: TimeInterval = 900

    /// How many calls anyone may make without credentials, per client address and operation;
    /// `nil` for no limit.
    public var clientRequestLimit: ClientRequestLimit? = ClientRequestLimit()

    /// A bucket of calls per client address and operation: `SignUp`, `ConfirmSignUp`,
    /// `ResendConfirmationCode`, `InitiateAuth`, `RespondToAuthChallenge`, `ForgotPassword`,
    /// `ConfirmForgotPassword`, and `GetId` and `GetCredentialsForIdentity` without `Logins`.
    public struct ClientRequestLimit: Sendable, Hashable {
        /// How many calls a client may make at once.
        public var burst: Int
        /// How many calls the bucket regains per second.
        public var perSecond: Double

        /// 30 calls at once, then 3 per second, per client address and operation.
        public init(burst: Int = 30, perSecond: Double = 3) {
            self.burst = burst
            self.perSecond = perSecond
        }
    }

    /// The origin clients reach the pool at (`https://auth.example.com`), which its issuer
    /// derives from, when a load balancer stands in front of several servers: each then issues
    /// tokens the others accept. `nil`: the address the server listens on.
    public var publicOrigin: String?

    /// A configuration with one app client without a secret and an identity pool allowing guests.
    public init(
        userPoolId: String = "us-east-1_Local",
        region: String = "us-east-1",
        clients: [AppClient] = [AppClient(clientId: "stratuslocalclient")],
        passwordPolicy: PasswordPolicy = PasswordPolicy(),
        groups: [String] = [],
        users: [User] = [],
        tokenLifetime: TimeInterval = 3600,
        refreshTokenLifetime: TimeInterval = 30 * 86400,
        rotatesRefreshTokens: Bool = false,
        autoConfirmsSignUp: Bool = false,
        identityPoolId: String? = "us-east-1:00000000-0000-4000-8000-00000000a0b1",
        allowsGuests: Bool = true,
        credentialsLifetime: TimeInterval = 3600,
        maxFailedSignIns: Int = 5,
        lockout: TimeInterval = 60
    ) {
        self.userPoolId = userPoolId
        self.region = region
        self.clients = clients
        self.passwordPolicy = passwordPolicy
        self.groups = groups
        self.users = users
        self.tokenLifetime = tokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.rotatesRefreshTokens = rotatesRefreshTokens
        self.autoConfirmsSignUp = autoConfirmsSignUp
        self.identityPoolId = identityPoolId
        self.allowsGuests = allowsGuests
        self.credentialsLifetime = credentialsLifetime
        self.maxFailedSignIns = maxFailedSignIns
        self.lockout = lockout
    }

    /// An attribute users sign in with instead of a username.
    public enum UsernameAttribute: String, Sendable, Hashable, CaseIterable {
        /// The `email` attribute.
        case email
        /// The `phone_number` attribute, in E.164 form (`+15555550100`).
        case phoneNumber = "phone_number"

        /// Whether `value` has this attribute's form.
        func accepts(_ value: String) -> Bool {
            switch self {
            case .email:
                let parts = value.split(separator: "@", omittingEmptySubsequences: false)
                return parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".")
            case .phoneNumber:
                return value.hasPrefix("+") && value.count > 4 && value.dropFirst().allSatisfy(\.isNumber)
            }
        }
    }

    /// An app client: its id, for a confidential client its secret, and the attributes its users
    /// read and write through it.
    public struct AppClient: Sendable, Hashable {
        /// The id requests name in `ClientId`, and tokens carry in `aud` and `client_id`.
        public var clientId: String
        /// The secret `SECRET_HASH` is computed with; `nil` for a public client.
        public var clientSecret: String?
        /// The attributes ID tokens and `GetUser` carry through this client (Cognito's
        /// `ReadAttributes`, such as `["email", "email_verified", "custom:role"]`); `nil` for all.
        public var readAttributes: [String]?
        /// The attributes users may write through this client, with `SignUp`,
        /// `UpdateUserAttributes` and a new password's attributes (Cognito's `WriteAttributes`);
        /// `nil` for all that a user may write. An attribute that `@auth` rules trust (a
        /// `groupClaim` or `identityClaim` on `custom:role`) must not be among them.
        public var writeAttributes: [String]?

        /// A client; with `clientSecret`, requests must carry `SECRET_HASH`.
        public init(
            clientId: String,
            clientSecret: String? = nil,
            readAttributes: [String]? = nil,
            writeAttributes: [String]? = nil
        ) {
            self.clientId = clientId
            self.clientSecret = clientSecret
            self.readAttributes = readAttributes
            self.writeAttributes = writeAttributes
        }

        /// Whether the client's users read `attribute`.
        func reads(_ attribute: String) -> Bool { readAttributes?.contains(attribute) ?? true }

        /// Whether the client's users may write `attribute`.
        public func writes(_ attribute: String) -> Bool { writeAttributes?.contains(attribute) ?? true }
    }

    /// What a password must contain, as a pool's `PasswordPolicy` says it.
    public struct PasswordPolicy: Sendable, Hashable {
        /// The fewest characters a password may have.
        public var minimumLength: Int
        /// Whether a password needs a lower-case letter.
        public var requiresLowercase: Bool
        /// Whether a password needs an upper-case letter.
        public var requiresUppercase: Bool
        /// Whether a password needs a digit.
        public var requiresNumbers: Bool
        /// Whether a password needs a character that is neither a letter, a digit nor a space.
        public var requiresSymbols: Bool

        /// Cognito's default policy: 8 characters with a lower-case and an upper-case letter, a
        /// number and a symbol.
        public init(
            minimumLength: Int = 8,
            requiresLowercase: Bool = true,
            requiresUppercase: Bool = true,
            requiresNumbers: Bool = true,
            requiresSymbols: Bool = true
        ) {
            self.minimumLength = minimumLength
            self.requiresLowercase = requiresLowercase
            self.requiresUppercase = requiresUppercase
            self.requiresNumbers = requiresNumbers
            self.requiresSymbols = requiresSymbols
        }

        /// Why `password` breaks the policy, in Cognito's words; `nil` when it does not.
        func violation(of password: String) -> String? {
            let prefix = "Password did not conform with policy: "
            if password.count < minimumLength { return prefix + "Password not long enough" }
            if requiresLowercase, !password.contains(where: \.isLowercase) {
                return prefix + "Password must have lowercase characters"
            }
            if requiresUppercase, !password.contains(where: \.isUppercase) {
                return prefix + "Password must have uppercase characters"
            }
            if requiresNumbers, !password.contains(where: \.isNumber) {
                return prefix + "Password must have numeric characters"
            }
            if requiresSymbols, !password.contains(where: { !$0.isLetter && !$0.isNumber && !$0.isWhitespace }) {
                return prefix + "Password must have symbol characters"
            }
            return nil
        }
    }

    /// A user the pool starts with, confirmed, with a permanent password.
    public struct User: Sendable, Hashable {
        /// The name the user signs in with.
        public var username: String
        /// The permanent password; only its SRP verifier and hash are kept.
        public var password: String
        /// Attributes such as `email`, which the ID token carries.
        public var attributes: [String: String]
        /// Groups of the pool, which tokens carry in `cognito:groups`.
        public var groups: [String]

        /// A confirmed user with a permanent password.
        public init(username: String, password: String, attributes: [String: String] = [:], groups: [String] = []) {
            self.username = username
            self.password = password
            self.attributes = attributes
            self.groups = groups
        }
    }

    /// The pool's name: the part of its id after the underscore, which SRP hashes.
    var poolName: String {
        userPoolId.split(separator: "_", maxSplits: 1).last.map(String.init) ?? userPoolId
    }
}
