/// The Auth category before an Auth plugin is added: every call fails, saying how to add one.
struct UnconfiguredAuth: AuthCategory {
    static let error = AuthError.configuration(
        "Auth is not configured.",
        "Call Amplify.add(plugin: AWSCognitoAuthPlugin()) and then Amplify.configure()."
    )

    /// What `signOut` answers when there is nothing to sign out of.
    struct NothingToSignOut: AuthSignOutResult {}

    func signUp(
        username: String,
        password: String?,
        options: AuthSignUpRequest.Options?
    ) async throws
        -> AuthSignUpResult
    { throw Self.error }
    func confirmSignUp(for username: String, confirmationCode: String) async throws -> AuthSignUpResult {
        throw Self.error
    }
    func resendSignUpCode(for username: String) async throws -> AuthCodeDeliveryDetails { throw Self.error }
    func signIn(
        username: String?,
        password: String?,
        options: AuthSignInRequest.Options?
    ) async throws
        -> AuthSignInResult
    { throw Self.error }
    func confirmSignIn(
        challengeResponse: String,
        options: AuthConfirmSignInRequest.Options?
    ) async throws
        -> AuthSignInResult
    { throw Self.error }
    func signOut(options: AuthSignOutRequest.Options?) async -> any AuthSignOutResult { NothingToSignOut() }
    func fetchAuthSession(options: AuthFetchSessionRequest.Options?) async throws -> any AuthSession {
        throw Self.error
    }
    func getCurrentUser() async throws -> any AuthUser { throw Self.error }
    func fetchUserAttributes() async throws -> [AuthUserAttribute] { throw Self.error }
    func update(userAttribute: AuthUserAttribute) async throws -> AuthUpdateAttributeResult { throw Self.error }
    func resetPassword(for username: String) async throws -> AuthResetPasswordResult { throw Self.error }
    func confirmResetPassword(for username: String, with newPassword: String, confirmationCode: String) async throws {
        throw Self.error
    }
    func update(oldPassword: String, to newPassword: String) async throws { throw Self.error }
    func deleteUser() async throws { throw Self.error }
}
