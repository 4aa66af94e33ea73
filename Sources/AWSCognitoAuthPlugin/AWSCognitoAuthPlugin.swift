import AWSPluginsCore
import Amplify
import Foundation
import Synchronization

/// The Auth category on Amazon Cognito: user pools (sign-up, SRP and password sign-in,
/// challenges, tokens refreshed before they expire) and identity pools (guest and
/// authenticated AWS credentials).
///
/// ```swift
/// try Amplify.add(plugin: AWSCognitoAuthPlugin())
/// try Amplify.configure()
/// let result = try await Amplify.Auth.signIn(username: "alice", password: "Secret-pass1!")
/// ```
///
/// The session survives restarts in a ``FileAuthSessionStore`` (mode 0600, in the XDG data
/// directory) unless another ``AuthSessionStore`` is given. Events go to `Amplify.Hub` on
/// `.auth`: `Auth.signedIn`, `Auth.signedOut` and `Auth.sessionExpired`.
///
/// Every dependency can be passed in, which is how tests build the plugin: the session store,
/// the HTTP transport, the hub and the clock.
public final class AWSCognitoAuthPlugin: AuthCategoryPlugin {
    /// `awsCognitoAuthPlugin`, the plugin's key in `amplifyconfiguration.json`.
    public let key = "awsCognitoAuthPlugin"

    private let sessionStore: (any AuthSessionStore)?
    private let transport: any HTTPTransport
    private let hub: HubCategory
    private let now: @Sendable () -> Date
    private let initialConfiguration: AWSCognitoAuthConfiguration?
    private let engine = Mutex<CognitoAuthEngine?>(nil)

    /// Creates the plugin.
    ///
    /// - Parameters:
    ///   - sessionStore: Where the session is kept between runs; by default a file named after
    ///     the user pool (or identity pool) in the XDG data directory.
    ///   - transport: What sends the requests; by default `defaultHTTPTransport()` (AsyncHTTPClient on
    ///     Linux, `URLSession` on Apple platforms).
    ///   - hub: Where the `.auth` events go; `Amplify.Hub` by default.
    ///   - now: The clock that decides when tokens and credentials expire.
    ///   - configuration: The pools, for a plugin configured without a file.
    public init(
        sessionStore: (any AuthSessionStore)? = nil,
        transport: any HTTPTransport = defaultHTTPTransport(),
        hub: HubCategory = Amplify.Hub,
        now: @escaping @Sendable () -> Date = { Date() },
        configuration: AWSCognitoAuthConfiguration? = nil
    ) {
        self.sessionStore = sessionStore
        self.transport = transport
        self.hub = hub
        self.now = now
        self.initialConfiguration = configuration
    }

    /// The configuration in use; `nil` before the plugin is configured.
    public var configuration: AWSCognitoAuthConfiguration? {
        engine.withLock { $0 }?.configuration
    }

    /// Configures the plugin from whichever Auth configuration `configuration` holds: the
    /// `auth.plugins.awsCognitoAuthPlugin` section of `amplifyconfiguration.json`, the `auth`
    /// section of a Gen2 `amplify_outputs.json`, or the `CognitoUserPool` and
    /// `CredentialsProvider` sections of an `awsconfiguration.json`; else with the configuration
    /// the plugin was created with.
    ///
    /// - Throws: `ConfigurationError` naming the missing or invalid key, or when the plugin was
    ///   created with a configuration and the file has one too.
    public func configure(with configuration: AmplifyConfiguration?) throws {
        let json = configuration?.json
        if let section = configuration?.pluginConfiguration(category: "auth", key: key) {
            return try configure(using: section)
        }
        let parsed: AWSCognitoAuthConfiguration? =
            if let json, json["version"] != nil, json["auth"] != nil {
                try AWSCognitoAuthConfiguration(amplifyOutputs: json)
            } else if let json, json["CognitoUserPool"] != nil || json["CredentialsProvider"] != nil {
                try AWSCognitoAuthConfiguration(awsConfiguration: json)
            } else {
                nil
            }
        guard let parsed else { return try configure(using: nil) }
        if initialConfiguration != nil {
            throw ConfigurationError(
                "AWSCognitoAuthPlugin was created with a configuration, and the configuration file has one too. "
                    + "Remove one of them."
            )
        }
        try configure(parsed)
    }

    /// Configures the plugin from the `auth.plugins.awsCognitoAuthPlugin` section of
    /// `amplifyconfiguration.json`, or with the configuration it was created with.
    ///
    /// - Throws: `ConfigurationError` naming the missing or invalid key, or when the plugin was
    ///   created with a configuration and the file has one too.
    public func configure(using configuration: JSONValue?) throws {
        if configuration != nil, initialConfiguration != nil {
            throw ConfigurationError(
                "AWSCognitoAuthPlugin was created with a configuration, and the configuration file has one too "
                    + "(\(AWSCognitoAuthConfiguration.sectionName)). Remove one of them."
            )
        }
        guard
            let resolved = try configuration.map({ try AWSCognitoAuthConfiguration(amplifyConfigurationSection: $0) })
                ?? initialConfiguration
        else {
            throw ConfigurationError(
                "AWSCognitoAuthPlugin has no configuration. Add \(AWSCognitoAuthConfiguration.sectionName) "
                    + "to amplifyconfiguration.json, or create the plugin with AWSCognitoAuthPlugin(configuration:)."
            )
        }
        try configure(resolved)
    }

    /// Configures the plugin with `configuration`, loading the stored session.
    ///
    /// - Throws: `ConfigurationError` when the stored session cannot be read.
    public func configure(_ configuration: AWSCognitoAuthConfiguration) throws {
        let store =
            sessionStore
            ?? FileAuthSessionStore(
                name: configuration.userPool?.poolId ?? configuration.identityPool?.poolId ?? "default"
            )
        let new = try CognitoAuthEngine(
            configuration: configuration,
            transport: transport,
            store: store,
            hub: hub,
            now: now
        )
        engine.withLock { $0 = new }
    }

    /// Forgets the configuration; the stored session stays for the next configuration.
    public func reset() async {
        engine.withLock { $0 = nil }
    }

    func configured() throws(AuthError) -> CognitoAuthEngine {
        guard let engine = engine.withLock({ $0 }) else {
            throw .configuration(
                "AWSCognitoAuthPlugin is not configured.",
                "Call Amplify.configure() after adding the plugin."
            )
        }
        return engine
    }

    // MARK: - AuthCategory

    public func signUp(
        username: String,
        password: String?,
        options: AuthSignUpRequest.Options?
    ) async throws
        -> AuthSignUpResult
    {
        try await configured().signUp(
            username: username,
            password: password,
            attributes: options?.userAttributes ?? []
        )
    }

    public func confirmSignUp(for username: String, confirmationCode: String) async throws -> AuthSignUpResult {
        try await configured().confirmSignUp(username: username, code: confirmationCode)
    }

    public func resendSignUpCode(for username: String) async throws -> AuthCodeDeliveryDetails {
        try await configured().resendSignUpCode(username: username)
    }

    /// Signs in with the configured flow (SRP by default), or the one in
    /// `options.pluginOptions` as ``AWSAuthSignInOptions``.
    ///
    /// A user who has not confirmed the account gets the step `.confirmSignUp`, and one who
    /// must reset the password `.resetPassword`, rather than an error.
    ///
    /// - Throws: ``Amplify/AuthError``: `validation` without a username or password,
    ///   `notAuthorized` (`NotAuthorizedException`) for a wrong password, `service`
    ///   (`UserNotFoundException`) for an unknown user, `invalidState` when a user is signed in.
    public func signIn(
        username: String?,
        password: String?,
        options: AuthSignInRequest.Options?
    ) async throws
        -> AuthSignInResult
    {
        let engine = try configured()
        guard let username, !username.isEmpty else {
            throw AuthError.validation("username", "signIn needs a username.", "Pass the user's username.")
        }
        guard let password, !password.isEmpty else {
            throw AuthError.validation("password", "signIn needs a password.", "Pass the user's password.")
        }
        let flow =
            (options?.pluginOptions as? AWSAuthSignInOptions)?.authFlowType
            ?? engine.configuration.authenticationFlowType
        return try await engine.signIn(username: username, password: password, flow: flow)
    }

    public func confirmSignIn(
        challengeResponse: String,
        options: AuthConfirmSignInRequest.Options?
    ) async throws
        -> AuthSignInResult
    {
        try await configured().confirmSignIn(response: challengeResponse, attributes: options?.userAttributes ?? [])
    }

    @discardableResult
    public func signOut(options: AuthSignOutRequest.Options?) async -> any AuthSignOutResult {
        do {
            return try await configured().signOut(global: options?.globalSignOut ?? false)
        } catch {
            return AWSCognitoSignOutResult.failed(error)
        }
    }

    /// The session as an ``AWSAuthCognitoSession``.
    ///
    /// - Throws: `AuthError.configuration(_:_:_:)` when the plugin is not configured.
    public func fetchAuthSession(options: AuthFetchSessionRequest.Options?) async throws -> any AuthSession {
        try await configured().fetchSession(force: options?.forceRefresh ?? false)
    }

    public func getCurrentUser() async throws -> any AuthUser {
        try await configured().currentUser()
    }

    public func fetchUserAttributes() async throws -> [AuthUserAttribute] {
        try await configured().fetchUserAttributes()
    }

    public func update(userAttribute: AuthUserAttribute) async throws -> AuthUpdateAttributeResult {
        try await configured().update(userAttribute: userAttribute)
    }

    public func resetPassword(for username: String) async throws -> AuthResetPasswordResult {
        try await configured().resetPassword(username: username)
    }

    public func confirmResetPassword(
        for username: String,
        with newPassword: String,
        confirmationCode: String
    )
        async throws
    {
        try await configured().confirmResetPassword(
            username: username,
            newPassword: newPassword,
            code: confirmationCode
        )
    }

    public func update(oldPassword: String, to newPassword: String) async throws {
        try await configured().changePassword(old: oldPassword, new: newPassword)
    }

    public func deleteUser() async throws {
        try await configured().deleteUser()
    }
}

/// The Cognito plugin's options of `signIn`.
///
/// ```swift
/// let options = AuthSignInRequest.Options(pluginOptions: AWSAuthSignInOptions(authFlowType: .userPassword))
/// _ = try await Amplify.Auth.signIn(username: "alice", password: password, options: options)
/// ```
public struct AWSAuthSignInOptions: Sendable, Hashable {
    /// The flow of this sign-in, instead of the configured one.
    public var authFlowType: AWSCognitoAuthConfiguration.AuthenticationFlowType?

    public init(authFlowType: AWSCognitoAuthConfiguration.AuthenticationFlowType? = nil) {
        self.authFlowType = authFlowType
    }
}
