/// The options of `signUp`.
public enum AuthSignUpRequest {
    /// The options of the call.
    public struct Options: Sendable {
        /// The attributes the account is created with, such as `email`.
        public var userAttributes: [AuthUserAttribute]?
        /// Options of the plugin.
        public var pluginOptions: (any Sendable)?

        public init(userAttributes: [AuthUserAttribute]? = nil, pluginOptions: (any Sendable)? = nil) {
            self.userAttributes = userAttributes
            self.pluginOptions = pluginOptions
        }
    }
}

/// The options of `signIn`.
public enum AuthSignInRequest {
    /// The options of the call.
    public struct Options: Sendable {
        /// Options of the plugin, such as the Cognito plugin's authentication flow.
        public var pluginOptions: (any Sendable)?

        public init(pluginOptions: (any Sendable)? = nil) {
            self.pluginOptions = pluginOptions
        }
    }
}

/// The options of `confirmSignIn`.
public enum AuthConfirmSignInRequest {
    /// The options of the call.
    public struct Options: Sendable {
        /// Attributes a new-password challenge requires.
        public var userAttributes: [AuthUserAttribute]?
        /// Options of the plugin.
        public var pluginOptions: (any Sendable)?

        public init(userAttributes: [AuthUserAttribute]? = nil, pluginOptions: (any Sendable)? = nil) {
            self.userAttributes = userAttributes
            self.pluginOptions = pluginOptions
        }
    }
}

/// The options of `signOut`.
public enum AuthSignOutRequest {
    /// The options of the call.
    public struct Options: Sendable {
        /// Whether to sign the user out of every device, invalidating all their tokens.
        public var globalSignOut: Bool

        public init(globalSignOut: Bool = false) {
            self.globalSignOut = globalSignOut
        }
    }
}

/// The options of `fetchAuthSession`.
public enum AuthFetchSessionRequest {
    /// The options of the call.
    public struct Options: Sendable {
        /// Whether to refresh the tokens and credentials even when they have not expired.
        public var forceRefresh: Bool

        public init(forceRefresh: Bool = false) {
            self.forceRefresh = forceRefresh
        }
    }
}

/// What `signOut` gave.
public protocol AuthSignOutResult: Sendable {}
