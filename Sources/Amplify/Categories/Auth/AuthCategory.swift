/// What `Amplify.Auth` offers: sign-up, sign-in, the session and the user's attributes.
///
/// ```swift
/// let signUp = try await Amplify.Auth.signUp(
///     username: "alice",
///     password: "Secret-pass1!",
///     options: .init(userAttributes: [AuthUserAttribute(.email, value: "alice@example.com")])
/// )
/// _ = try await Amplify.Auth.confirmSignUp(for: "alice", confirmationCode: code)
/// let result = try await Amplify.Auth.signIn(username: "alice", password: "Secret-pass1!")
/// print(result.isSignedIn)
/// let session = try await Amplify.Auth.fetchAuthSession()
/// ```
///
/// Every call throws ``AuthError``.
public protocol AuthCategory: Sendable {
    /// Creates an account.
    ///
    /// - Throws: ``AuthError``: `service` with the service's reason (a taken username, a
    ///   password that breaks the policy).
    func signUp(
        username: String,
        password: String?,
        options: AuthSignUpRequest.Options?
    ) async throws
        -> AuthSignUpResult

    /// Confirms an account with the code sent at sign-up.
    ///
    /// - Throws: ``AuthError``: `service` for a wrong or expired code.
    func confirmSignUp(for username: String, confirmationCode: String) async throws -> AuthSignUpResult

    /// Sends the sign-up confirmation code again.
    ///
    /// - Throws: ``AuthError``.
    func resendSignUpCode(for username: String) async throws -> AuthCodeDeliveryDetails

    /// Signs a user in, or starts a sign-in that needs a further step (``AuthSignInResult/nextStep``).
    ///
    /// - Throws: ``AuthError``: `notAuthorized` for a wrong password, `service` for an unknown user.
    func signIn(
        username: String?,
        password: String?,
        options: AuthSignInRequest.Options?
    ) async throws
        -> AuthSignInResult

    /// Answers the challenge of the sign-in under way, such as a new password.
    ///
    /// - Throws: ``AuthError``: `invalidState` when no sign-in awaits an answer.
    func confirmSignIn(
        challengeResponse: String,
        options: AuthConfirmSignInRequest.Options?
    ) async throws
        -> AuthSignInResult

    /// Signs the user out: forgets the session, and with `globalSignOut` invalidates every token.
    ///
    /// Never throws: the result says what could not be done on the service; the local session
    /// is forgotten in every case.
    @discardableResult
    func signOut(options: AuthSignOutRequest.Options?) async -> any AuthSignOutResult

    /// The current session, with tokens and credentials refreshed when they are about to expire.
    ///
    /// - Throws: ``AuthError`` when the configuration is unusable; a signed-out session is not
    ///   an error.
    func fetchAuthSession(options: AuthFetchSessionRequest.Options?) async throws -> any AuthSession

    /// The signed-in user.
    ///
    /// - Throws: ``AuthError/signedOut(_:_:_:)`` when nobody is signed in.
    func getCurrentUser() async throws -> any AuthUser

    /// The signed-in user's attributes.
    ///
    /// - Throws: ``AuthError``: `signedOut` when nobody is signed in.
    func fetchUserAttributes() async throws -> [AuthUserAttribute]

    /// Changes one attribute of the signed-in user.
    ///
    /// - Throws: ``AuthError``: `signedOut` when nobody is signed in.
    func update(userAttribute: AuthUserAttribute) async throws -> AuthUpdateAttributeResult

    /// Starts resetting a forgotten password: a code is sent to the user.
    ///
    /// - Throws: ``AuthError``.
    func resetPassword(for username: String) async throws -> AuthResetPasswordResult

    /// Sets a new password with the code that ``resetPassword(for:)`` sent.
    ///
    /// - Throws: ``AuthError``: `service` for a wrong or expired code.
    func confirmResetPassword(for username: String, with newPassword: String, confirmationCode: String) async throws

    /// Changes the signed-in user's password.
    ///
    /// - Throws: ``AuthError``: `notAuthorized` when `oldPassword` is wrong.
    func update(oldPassword: String, to newPassword: String) async throws

    /// Deletes the signed-in user's account and signs them out; `Auth.userDeleted` follows on
    /// the hub.
    ///
    /// - Throws: ``AuthError``: `signedOut` when nobody is signed in.
    func deleteUser() async throws
}

extension AuthCategory {
    /// Creates an account with no options.
    ///
    /// - Throws: ``AuthError``.
    public func signUp(username: String, password: String? = nil) async throws -> AuthSignUpResult {
        try await signUp(username: username, password: password, options: nil)
    }

    /// Signs a user in with the configured flow.
    ///
    /// - Throws: ``AuthError``.
    public func signIn(username: String? = nil, password: String? = nil) async throws -> AuthSignInResult {
        try await signIn(username: username, password: password, options: nil)
    }

    /// Answers the challenge of the sign-in under way.
    ///
    /// - Throws: ``AuthError``.
    public func confirmSignIn(challengeResponse: String) async throws -> AuthSignInResult {
        try await confirmSignIn(challengeResponse: challengeResponse, options: nil)
    }

    /// Signs the user out of this device.
    @discardableResult
    public func signOut() async -> any AuthSignOutResult {
        await signOut(options: nil)
    }

    /// The current session.
    ///
    /// - Throws: ``AuthError``.
    public func fetchAuthSession() async throws -> any AuthSession {
        try await fetchAuthSession(options: nil)
    }
}

/// A plugin of the Auth category.
public protocol AuthCategoryPlugin: Plugin, AuthCategory {
    /// Configures the plugin from the whole configuration, which is `nil` when there is none.
    ///
    /// The default reads the `auth.plugins.<key>` section and calls ``Plugin/configure(using:)``.
    ///
    /// - Throws: ``ConfigurationError`` naming the bad key and the fix.
    func configure(with configuration: AmplifyConfiguration?) throws
}

extension AuthCategoryPlugin {
    public func configure(with configuration: AmplifyConfiguration?) throws {
        try configure(using: configuration?.pluginConfiguration(category: "auth", key: key))
    }
}
