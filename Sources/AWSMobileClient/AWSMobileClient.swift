import AWSAuthCore
import AWSCognitoAuthPlugin
import AWSCore
import AWSPluginsCore
import AWSWire
import Amplify
import Foundation
import Synchronization

/// The AWS Mobile SDK's `AWSMobileClient` over the Cognito Auth plugin: sign-in, sign-out,
/// the user's tokens and AWS credentials, and the user's state with listeners.
///
/// It is a thin layer: every call goes to an `AWSCognitoAuthPlugin` the client creates when it
/// is initialized, so the session (file store, refreshes, identity pool) is the plugin's.
///
/// ```swift
/// AWSMobileClient.sharedInstance().initialize { userState, error in
///     print(userState ?? .unknown)
/// }
/// AWSMobileClient.sharedInstance().getTokens { tokens, error in
///     print(tokens?.idToken?.tokenString ?? "no token")
/// }
/// ```
///
/// Completion handlers and listeners are called on a task of the Swift concurrency pool, not
/// on the caller's thread; as in the AWS Mobile SDK they must be safe to call from any thread.
public final class AWSMobileClient: Sendable {
    /// A listener's callback: the new state and details (the username on sign-in).
    public typealias UserStateChangeCallback = (UserState, [String: String]) -> Void

    private struct Configured: Sendable {
        var plugin: AWSCognitoAuthPlugin
        var hasIdentityPool: Bool
        var hubToken: HubCategory.UnsubscribeToken
        var hub: HubCategory
    }

    private struct State: Sendable {
        var configured: Configured?
        var userState = UserState.unknown
        var username: String?
        var listeners: [(id: ObjectIdentifier, callback: Callback<(UserState, [String: String])>)] = []
    }

    private static let shared = AWSMobileClient()
    private let state = Mutex(State())

    /// A client that must be initialized before use; most apps use ``sharedInstance()``.
    public init() {}

    /// The app's client.
    public static func sharedInstance() -> AWSMobileClient { shared }

    /// The app's client (the same as ``sharedInstance()``).
    public static func `default`() -> AWSMobileClient { shared }

    // MARK: - Initialization

    /// Initializes the client from `awsconfiguration.json` in the current directory (its
    /// `CognitoUserPool` and `CredentialsProvider` sections), then reports the user's state.
    public func initialize(_ completionHandler: @escaping (UserState?, (any Error)?) -> Void) {
        let url = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appending(
            path: "awsconfiguration.json"
        )
        initialize(awsConfiguration: url, completionHandler)
    }

    /// Initializes the client from the `awsconfiguration.json` at `url`.
    public func initialize(awsConfiguration url: URL, _ completionHandler: @escaping (UserState?, (any Error)?) -> Void)
    {
        let configuration: AWSCognitoAuthConfiguration
        do {
            let data = try Data(contentsOf: url)
            configuration = try AWSCognitoAuthConfiguration(
                awsConfiguration: JSONDecoder().decode(JSONValue.self, from: data)
            )
        } catch {
            let failure = AuthError.configuration(
                "\(url.path) could not be read as awsconfiguration.json: \(error)",
                "Write the CognitoUserPool and CredentialsProvider sections, as amplify pull writes them.",
                error
            )
            Callback(completionHandler).call((nil, failure))
            return
        }
        initialize(configuration: configuration, completionHandler)
    }

    /// Initializes the client with `configuration`, keeping the session in `sessionStore`
    /// (by default the Auth plugin's file store), then reports the user's state.
    public func initialize(
        configuration: AWSCognitoAuthConfiguration,
        sessionStore: (any AuthSessionStore)? = nil,
        transport: any HTTPTransport = defaultHTTPTransport(),
        _ completionHandler: @escaping (UserState?, (any Error)?) -> Void
    ) {
        let callback = Callback(completionHandler)
        Task {
            do {
                callback.call(
                    (
                        try await self.initialize(
                            configuration: configuration,
                            sessionStore: sessionStore,
                            transport: transport
                        ), nil
                    )
                )
            } catch {
                callback.call((nil, error))
            }
        }
    }

    /// Initializes the client with `configuration` and returns the user's state.
    ///
    /// - Throws: `ConfigurationError` when the stored session cannot be read; `AuthError`
    ///   when the session cannot be fetched.
    @discardableResult
    public func initialize(
        configuration: AWSCognitoAuthConfiguration,
        sessionStore: (any AuthSessionStore)? = nil,
        transport: any HTTPTransport = defaultHTTPTransport()
    ) async throws -> UserState {
        let hub = HubCategory()
        let plugin = AWSCognitoAuthPlugin(
            sessionStore: sessionStore,
            transport: transport,
            hub: hub,
            configuration: configuration
        )
        try plugin.configure(using: nil)
        let hasIdentityPool = configuration.identityPool != nil
        let token = hub.listen(to: .auth) { [weak self] payload in self?.handle(payload) }
        let previous = state.withLock { state in
            defer {
                state.configured = Configured(
                    plugin: plugin,
                    hasIdentityPool: hasIdentityPool,
                    hubToken: token,
                    hub: hub
                )
            }
            return state.configured
        }
        if let previous { previous.hub.removeListener(previous.hubToken) }
        let session = try await plugin.fetchAuthSession(options: nil)
        var username: String?
        if session.isSignedIn {
            username = try await plugin.getCurrentUser().username
        }
        let userState: UserState = session.isSignedIn ? .signedIn : hasIdentityPool ? .guest : .signedOut
        change(to: userState, username: username)
        return userState
    }

    /// The Auth plugin the client is initialized with.
    ///
    /// - Throws: `AuthError.configuration` before ``initialize(_:)``.
    public func authPlugin() throws -> AWSCognitoAuthPlugin {
        guard let configured = state.withLock({ $0.configured }) else {
            throw AuthError.configuration(
                "AWSMobileClient is not initialized.",
                "Call AWSMobileClient.sharedInstance().initialize { userState, error in … } first."
            )
        }
        return configured.plugin
    }

    // MARK: - State

    /// The user's state.
    public var currentUserState: UserState { state.withLock { $0.userState } }

    /// Whether a user pool user is signed in.
    public var isSignedIn: Bool { currentUserState == .signedIn }

    /// The signed-in user's username.
    public var username: String? { state.withLock { $0.username } }

    /// Calls `callback` whenever the user's state changes, until ``removeUserStateListener(_:)``
    /// with the same `object`.
    public func addUserStateListener(_ object: AnyObject, _ callback: @escaping UserStateChangeCallback) {
        let id = ObjectIdentifier(object)
        let wrapped = Callback<(UserState, [String: String])>(callback)
        state.withLock { $0.listeners.append((id, wrapped)) }
    }

    /// Stops calling the listeners added with `object`.
    public func removeUserStateListener(_ object: AnyObject) {
        let id = ObjectIdentifier(object)
        state.withLock { $0.listeners.removeAll { $0.id == id } }
    }

    private func handle(_ payload: HubPayload) {
        switch payload.eventName {
        case HubPayload.EventName.Auth.signedIn:
            change(to: .signedIn, username: (payload.data as? AWSAuthUser)?.username)
        case HubPayload.EventName.Auth.signedOut, HubPayload.EventName.Auth.userDeleted:
            let guest = state.withLock { $0.configured?.hasIdentityPool ?? false }
            change(to: guest ? .guest : .signedOut, username: nil)
        case HubPayload.EventName.Auth.sessionExpired:
            change(to: .signedOutUserPoolsTokenInvalid, username: state.withLock { $0.username })
        default:
            break
        }
    }

    private func change(to userState: UserState, username: String?) {
        let listeners = state.withLock { state -> [Callback<(UserState, [String: String])>] in
            let changed = state.userState != userState
            state.userState = userState
            state.username = username
            return changed ? state.listeners.map(\.callback) : []
        }
        let info = username.map { ["username": $0] } ?? [:]
        for listener in listeners { listener.call((userState, info)) }
    }

    // MARK: - Sign-in and sign-out

    /// Signs the user in with the configured flow (SRP by default).
    public func signIn(
        username: String,
        password: String,
        validationData: [String: String]? = nil,
        completionHandler: @escaping (SignInResult?, (any Error)?) -> Void
    ) {
        run(completionHandler) { try await self.signIn(username: username, password: password) }
    }

    /// Signs the user in and returns where the sign-in stands.
    ///
    /// - Throws: `AuthError` with Cognito's exception name, such as `NotAuthorizedException`.
    public func signIn(username: String, password: String) async throws -> SignInResult {
        SignInResult(try await authPlugin().signIn(username: username, password: password, options: nil))
    }

    /// Answers the challenge of a sign-in, such as the new password.
    public func confirmSignIn(
        challengeResponse: String,
        completionHandler: @escaping (SignInResult?, (any Error)?) -> Void
    ) {
        run(completionHandler) {
            SignInResult(try await self.authPlugin().confirmSignIn(challengeResponse: challengeResponse, options: nil))
        }
    }

    /// Signs the user out of this device (and everywhere with `signOutGlobally`).
    public func signOut(signOutGlobally: Bool = false, completionHandler: @escaping ((any Error)?) -> Void) {
        let callback = Callback(completionHandler)
        Task {
            do {
                try await self.signOut(signOutGlobally: signOutGlobally)
                callback.call(nil)
            } catch {
                callback.call(error)
            }
        }
    }

    /// Signs the user out.
    ///
    /// - Throws: `AuthError` when nothing was signed out.
    public func signOut(signOutGlobally: Bool = false) async throws {
        let result = try await authPlugin().signOut(options: AuthSignOutRequest.Options(globalSignOut: signOutGlobally))
        if case .failed(let error)? = result as? AWSCognitoSignOutResult { throw error }
    }

    // MARK: - Tokens and credentials

    /// Calls `completionHandler` with the signed-in user's tokens, refreshed if they were
    /// about to expire, or with the error (`AuthError.signedOut` when nobody is signed in).
    public func getTokens(_ completionHandler: @escaping (Tokens?, (any Error)?) -> Void) {
        run(completionHandler) { try await self.getTokens() }
    }

    /// The signed-in user's tokens, refreshed if they were about to expire.
    ///
    /// - Throws: `AuthError`: `signedOut` when nobody is signed in, `sessionExpired` when the
    ///   tokens could not be refreshed.
    public func getTokens() async throws -> Tokens {
        let session = try await authPlugin().fetchAuthSession(options: nil)
        guard let cognito = session as? AWSAuthCognitoSession else {
            throw AuthError.configuration("The Auth plugin's session holds no user pool tokens.", "Use a user pool.")
        }
        let tokens = try cognito.getUserPoolTokens().get()
        return Tokens(
            idToken: SessionToken(tokenString: tokens.idToken),
            accessToken: SessionToken(tokenString: tokens.accessToken),
            refreshToken: SessionToken(tokenString: tokens.refreshToken),
            expiration: tokens.expiration
        )
    }

    /// The identity pool's credentials provider: guest credentials while signed out, the
    /// signed-in user's after; it follows whichever plugin the client is initialized with.
    public func getCredentialsProvider() -> AWSCognitoCredentialsProvider {
        let region = state.withLock { $0.configured?.plugin.configuration?.identityPool?.region }
        return AWSCognitoCredentialsProvider(regionType: region.map { $0.aws_regionTypeValue() } ?? .Unknown) {
            try self.authPlugin()
        }
    }

    /// The identity id of the guest or the signed-in user, as a task.
    public func getIdentityId() -> AWSTask<String> {
        getCredentialsProvider().getIdentityId()
    }

    /// Runs `operation` and calls `completionHandler` with its value or error.
    private func run<Value: Sendable>(
        _ completionHandler: @escaping (Value?, (any Error)?) -> Void,
        _ operation: @escaping @Sendable () async throws -> Value
    ) {
        let callback = Callback(completionHandler)
        Task {
            do {
                callback.call((try await operation(), nil))
            } catch {
                callback.call((nil, error))
            }
        }
    }
}

extension AWSMobileClient: AWSCredentialsProvider {
    /// The identity pool's credentials, as ``getCredentialsProvider()`` gives them: the guest's
    /// while signed out, the signed-in user's after, refreshed before they expire. The client is
    /// itself the provider an `AWS_IAM` AppSync client signs with, as in the AppSync guide:
    ///
    /// ```swift
    /// let appSyncConfig = try AWSAppSyncClientConfiguration(
    ///     appSyncServiceConfig: AWSAppSyncServiceConfig(),
    ///     credentialsProvider: AWSMobileClient.default(),
    ///     cacheConfiguration: AWSAppSyncCacheConfiguration()
    /// )
    /// ```
    ///
    /// - Throws: `AuthError`: `configuration` before ``initialize(_:)`` or without an identity
    ///   pool, or the identity pool's error.
    public func fetchCredentials() async throws -> AWSCredentials {
        try await getCredentialsProvider().fetchCredentials()
    }
}

/// A completion handler of the AWS Mobile SDK's API, called from another task.
///
/// The handlers of code written for the SDK are not `@Sendable` (they capture the app's own
/// callbacks, as the AppSync guide's user pool provider does); as in the SDK, they are
/// documented to be called on another thread, and must be safe to call from any thread.
private struct Callback<Arguments>: @unchecked Sendable {
    private let body: (Arguments) -> Void

    init(_ body: @escaping (Arguments) -> Void) {
        self.body = body
    }

    init<First, Second>(_ body: @escaping (First, Second) -> Void) where Arguments == (First, Second) {
        self.body = { body($0.0, $0.1) }
    }

    func call(_ arguments: Arguments) {
        body(arguments)
    }
}
