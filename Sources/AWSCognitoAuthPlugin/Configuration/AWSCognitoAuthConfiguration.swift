import Amplify
import Foundation

/// What the plugin talks to: a user pool and its app client, an identity pool, or both.
///
/// Read from the `auth.plugins.awsCognitoAuthPlugin` section of `amplifyconfiguration.json`
/// (``init(amplifyConfigurationSection:)``), or built in code:
///
/// ```swift
/// let configuration = AWSCognitoAuthConfiguration(
///     userPool: .init(poolId: "us-east-1_Abc123", appClientId: "7abc", region: "us-east-1"),
///     identityPool: .init(poolId: "us-east-1:0000-…", region: "us-east-1")
/// )
/// ```
public struct AWSCognitoAuthConfiguration: Sendable, Hashable {
    /// How `signIn` proves the password.
    public enum AuthenticationFlowType: String, Sendable, Hashable {
        /// Secure Remote Password: the password never leaves the device (the default).
        case userSRP = "USER_SRP_AUTH"
        /// The password is sent over TLS; for users migrated by a Lambda trigger.
        case userPassword = "USER_PASSWORD_AUTH"
    }

    /// A user pool and the app client the plugin signs in through.
    public struct UserPool: Sendable, Hashable {
        /// The pool's id, `<region>_<name>`.
        public var poolId: String
        /// The app client's id.
        public var appClientId: String
        /// The app client's secret, when it has one: requests then carry `SECRET_HASH`.
        public var appClientSecret: String?
        /// The pool's region.
        public var region: String
        /// Where the user pool service answers; `https://cognito-idp.<region>.amazonaws.com/` by default.
        public var endpoint: URL?

        public init(
            poolId: String,
            appClientId: String,
            appClientSecret: String? = nil,
            region: String,
            endpoint: URL? = nil
        ) {
            self.poolId = poolId
            self.appClientId = appClientId
            self.appClientSecret = appClientSecret
            self.region = region
            self.endpoint = endpoint
        }

        /// The URL requests go to.
        public var serviceEndpoint: URL {
            endpoint ?? URL(string: "https://cognito-idp.\(region).amazonaws.com/")!
        }

        /// The name of the pool as a login provider of an identity pool:
        /// `cognito-idp.<region>.amazonaws.com/<poolId>`.
        public var providerName: String {
            "cognito-idp.\(region).amazonaws.com/\(poolId)"
        }
    }

    /// An identity pool, which exchanges sign-ins (or nothing, for guests) for AWS credentials.
    public struct IdentityPool: Sendable, Hashable {
        /// The pool's id, `<region>:<uuid>`.
        public var poolId: String
        /// The pool's region.
        public var region: String
        /// Where the identity service answers; `https://cognito-identity.<region>.amazonaws.com/` by default.
        public var endpoint: URL?

        public init(poolId: String, region: String, endpoint: URL? = nil) {
            self.poolId = poolId
            self.region = region
            self.endpoint = endpoint
        }

        /// The URL requests go to.
        public var serviceEndpoint: URL {
            endpoint ?? URL(string: "https://cognito-identity.\(region).amazonaws.com/")!
        }
    }

    /// The user pool, if any.
    public var userPool: UserPool?
    /// The identity pool, if any.
    public var identityPool: IdentityPool?
    /// How `signIn` proves the password unless its options say otherwise.
    public var authenticationFlowType: AuthenticationFlowType

    /// A configuration from its parts.
    public init(
        userPool: UserPool? = nil,
        identityPool: IdentityPool? = nil,
        authenticationFlowType: AuthenticationFlowType = .userSRP
    ) {
        self.userPool = userPool
        self.identityPool = identityPool
        self.authenticationFlowType = authenticationFlowType
    }
}

extension AWSCognitoAuthConfiguration {
    static let sectionName = "auth.plugins.awsCognitoAuthPlugin"

    /// Reads the `auth.plugins.awsCognitoAuthPlugin` section of `amplifyconfiguration.json`:
    /// `CognitoUserPool.Default` (`PoolId`, `AppClientId`, `AppClientSecret`, `Region`,
    /// `Endpoint`), `CredentialsProvider.CognitoIdentity.Default` (`PoolId`, `Region`, and
    /// `Endpoint` for a local identity service) and `Auth.Default.authenticationFlowType`.
    ///
    /// - Throws: `ConfigurationError` naming the missing or invalid key and the fix.
    public init(amplifyConfigurationSection section: JSONValue) throws {
        try self.init(section: section, prefix: Self.sectionName)
    }

    /// Reads the top level of an `awsconfiguration.json`, which has the same `CognitoUserPool`,
    /// `CredentialsProvider` and `Auth` sections.
    ///
    /// - Throws: `ConfigurationError` naming the missing or invalid key and the fix.
    public init(awsConfiguration json: JSONValue) throws {
        try self.init(section: json, prefix: "awsconfiguration.json:")
    }

    /// Reads the `auth` section of a Gen2 `amplify_outputs.json`: `user_pool_id`,
    /// `user_pool_client_id`, `aws_region` and `identity_pool_id`, and where a local Cognito
    /// answers, `user_pool_endpoint` and `identity_pool_endpoint` (as `stratus serve` writes
    /// them).
    ///
    /// - Throws: `ConfigurationError` naming the missing or invalid key and the fix.
    public init(amplifyOutputs json: JSONValue) throws {
        guard let auth = json["auth"], case .object = auth else {
            throw ConfigurationError(
                "amplify_outputs.json has no auth section. Add auth to your backend and write the file again."
            )
        }
        func string(_ key: String) throws -> String? {
            guard let value = auth[key], !value.isNull else { return nil }
            guard let text = value.stringValue, !text.isEmpty else {
                throw ConfigurationError("amplify_outputs.json auth.\(key) must be a non-empty string.")
            }
            return text
        }
        func endpoint(_ key: String) throws -> URL? {
            guard let text = try string(key) else { return nil }
            guard let url = URL(string: text), url.scheme != nil, url.host != nil else {
                throw ConfigurationError(
                    "amplify_outputs.json auth.\(key) '\(text)' is not a URL. Write it as http://host:port/."
                )
            }
            return url
        }
        guard let region = try string("aws_region") else {
            throw ConfigurationError("amplify_outputs.json auth.aws_region is missing. Add the pools' region.")
        }
        if let poolId = try string("user_pool_id") {
            guard let clientId = try string("user_pool_client_id") else {
                throw ConfigurationError(
                    "amplify_outputs.json auth.user_pool_client_id is missing. Add the app client's id."
                )
            }
            userPool = UserPool(
                poolId: poolId,
                appClientId: clientId,
                region: region,
                endpoint: try endpoint("user_pool_endpoint")
            )
        }
        if let poolId = try string("identity_pool_id") {
            identityPool = IdentityPool(
                poolId: poolId,
                region: region,
                endpoint: try endpoint("identity_pool_endpoint")
            )
        }
        guard userPool != nil || identityPool != nil else {
            throw ConfigurationError(
                "amplify_outputs.json auth has neither user_pool_id nor identity_pool_id. Write the file again."
            )
        }
        authenticationFlowType = .userSRP
    }

    /// Reads a section shaped as `awsCognitoAuthPlugin`, naming keys after `prefix` in errors
    /// (joined with a dot, or a space after a file name ending in a colon).
    init(section: JSONValue, prefix: String) throws {
        let base = prefix.hasSuffix(":") ? "\(prefix) " : "\(prefix)."
        guard case .object = section else {
            throw ConfigurationError("\(prefix) is not an object. Write it as amplify init writes it.")
        }
        func string(_ object: JSONValue, _ key: String, _ path: String, required: Bool) throws -> String? {
            guard let value = object[key], !value.isNull else {
                if required {
                    throw ConfigurationError("\(path).\(key) is missing. Add it to the configuration.")
                }
                return nil
            }
            guard let text = value.stringValue, !text.isEmpty else {
                throw ConfigurationError("\(path).\(key) must be a non-empty string.")
            }
            return text
        }
        func endpoint(_ object: JSONValue, _ path: String) throws -> URL? {
            guard let text = try string(object, "Endpoint", path, required: false) else { return nil }
            let withScheme = text.contains("://") ? text : "https://\(text)"
            guard let url = URL(string: withScheme), url.host != nil else {
                throw ConfigurationError("\(path).Endpoint '\(text)' is not a URL. Write it as https://host[:port]/.")
            }
            return url
        }
        if let pool = section.value(at: "CognitoUserPool.Default") {
            let path = "\(base)CognitoUserPool.Default"
            userPool = UserPool(
                poolId: try string(pool, "PoolId", path, required: true)!,
                appClientId: try string(pool, "AppClientId", path, required: true)!,
                appClientSecret: try string(pool, "AppClientSecret", path, required: false),
                region: try string(pool, "Region", path, required: true)!,
                endpoint: try endpoint(pool, path)
            )
        }
        if let pool = section.value(at: "CredentialsProvider.CognitoIdentity.Default") {
            let path = "\(base)CredentialsProvider.CognitoIdentity.Default"
            identityPool = IdentityPool(
                poolId: try string(pool, "PoolId", path, required: true)!,
                region: try string(pool, "Region", path, required: true)!,
                endpoint: try endpoint(pool, path)
            )
        }
        guard userPool != nil || identityPool != nil else {
            throw ConfigurationError(
                "\(prefix) has neither CognitoUserPool.Default nor CredentialsProvider.CognitoIdentity.Default. "
                    + "Add the user pool (PoolId, AppClientId, Region) or the identity pool (PoolId, Region)."
            )
        }
        authenticationFlowType = .userSRP
        if let flow = section.value(at: "Auth.Default.authenticationFlowType") {
            guard let text = flow.stringValue, let type = AuthenticationFlowType(rawValue: text) else {
                throw ConfigurationError(
                    "\(base)Auth.Default.authenticationFlowType is \(flow.stringValue ?? "\(flow)"); use USER_SRP_AUTH or USER_PASSWORD_AUTH."
                )
            }
            authenticationFlowType = type
        }
    }
}
