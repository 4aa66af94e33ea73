import Foundation
import StratusCognito
import StratusServer

/// The `auth` block of `stratus.json`: the local Cognito user pool and identity pool.
///
/// ```json
/// "auth": {
///   "userPoolId": "us-east-1_Local",
///   "clients": [{ "clientId": "localclient" }, { "clientId": "server", "clientSecret": "s3cret" }],
///   "passwordPolicy": { "minimumLength": 8, "requireSymbols": false },
///   "groups": ["Admins"],
///   "users": [{ "username": "alice", "password": "Secret-pass1!", "attributes": { "email": "a@example.com" },
///               "groups": ["Admins"] }],
///   "tokenLifetimeSeconds": 3600, "refreshTokenLifetimeSeconds": 2592000, "rotateRefreshTokens": false,
///   "autoConfirmSignUp": false, "identityPoolId": "us-east-1:…", "allowGuests": true,
///   "usernameAttributes": ["email"], "maxFailedSignIns": 5, "lockoutSeconds": 60, "maxLockoutSeconds": 900,
///   "requestsPerClient": { "burst": 30, "perSecond": 3 }
/// }
/// ```
struct AuthSettings: Decodable {
    struct Client: Decodable {
        var clientId: String
        var clientSecret: String?
    }

    struct PasswordPolicy: Decodable {
        var minimumLength: Int?
        var requireLowercase: Bool?
        var requireUppercase: Bool?
        var requireNumbers: Bool?
        var requireSymbols: Bool?
    }

    /// How many calls without credentials one client address makes per operation.
    struct RequestsPerClient: Decodable {
        var burst: Int
        var perSecond: Double
    }

    struct User: Decodable {
        var username: String
        var password: String
        var attributes: [String: String]?
        var groups: [String]?
    }

    var userPoolId: String?
    var region: String?
    /// The origin clients reach the pool at behind a load balancer (the issuer's origin).
    var publicOrigin: String?
    var clients: [Client]?
    var passwordPolicy: PasswordPolicy?
    var groups: [String]?
    var users: [User]?
    var tokenLifetimeSeconds: Double?
    var refreshTokenLifetimeSeconds: Double?
    var rotateRefreshTokens: Bool?
    var autoConfirmSignUp: Bool?
    var identityPoolId: String?
    var allowGuests: Bool?
    var maxFailedSignIns: Int?
    var lockoutSeconds: Double?
    var maxLockoutSeconds: Double?
    var requestsPerClient: RequestsPerClient?
    var usernameAttributes: [String]?

    /// The pool's configuration, the defaults of ``CognitoConfiguration`` filling what is absent.
    ///
    /// - Throws: ``CommandFailure`` for a pool id that is not `<region>_<name>`, or a lifetime
    ///   that is not positive.
    func configuration(region fallbackRegion: String?) throws -> CognitoConfiguration {
        var configuration = CognitoConfiguration()
        if let region = region ?? fallbackRegion {
            configuration.region = region
            configuration.userPoolId = "\(region)_Local"
            configuration.identityPoolId = "\(region):00000000-0000-4000-8000-00000000a0b1"
        }
        if let userPoolId {
            guard userPoolId.contains("_"), !userPoolId.hasSuffix("_") else {
                throw CommandFailure(
                    "auth.userPoolId '\(userPoolId)' is not a user pool id. Write it as <region>_<name>, such as us-east-1_Local."
                )
            }
            configuration.userPoolId = userPoolId
        }
        if let publicOrigin {
            guard let url = URL(string: publicOrigin), ["http", "https"].contains(url.scheme ?? ""), url.host != nil,
                url.path.isEmpty || url.path == "/"
            else {
                throw CommandFailure(
                    "auth.publicOrigin '\(publicOrigin)' is not an origin. Write it as http(s)://host[:port], "
                        + "the address clients reach the servers at."
                )
            }
            configuration.publicOrigin = publicOrigin.hasSuffix("/") ? String(publicOrigin.dropLast()) : publicOrigin
        }
        if let clients, !clients.isEmpty {
            configuration.clients = clients.map { .init(clientId: $0.clientId, clientSecret: $0.clientSecret) }
        }
        if let policy = passwordPolicy {
            configuration.passwordPolicy = CognitoConfiguration.PasswordPolicy(
                minimumLength: policy.minimumLength ?? 8,
                requiresLowercase: policy.requireLowercase ?? true,
                requiresUppercase: policy.requireUppercase ?? true,
                requiresNumbers: policy.requireNumbers ?? true,
                requiresSymbols: policy.requireSymbols ?? true
            )
        }
        configuration.groups = groups ?? []
        configuration.users = (users ?? []).map {
            .init(
                username: $0.username,
                password: $0.password,
                attributes: $0.attributes ?? [:],
                groups: $0.groups ?? []
            )
        }
        for (key, value) in [
            ("tokenLifetimeSeconds", tokenLifetimeSeconds),
            ("refreshTokenLifetimeSeconds", refreshTokenLifetimeSeconds),
            ("lockoutSeconds", lockoutSeconds),
            ("maxLockoutSeconds", maxLockoutSeconds),
        ] {
            if let value, value <= 0 {
                throw CommandFailure("auth.\(key) is \(value); give a number of seconds above 0.")
            }
        }
        configuration.tokenLifetime = tokenLifetimeSeconds ?? configuration.tokenLifetime
        configuration.refreshTokenLifetime = refreshTokenLifetimeSeconds ?? configuration.refreshTokenLifetime
        configuration.rotatesRefreshTokens = rotateRefreshTokens ?? false
        configuration.autoConfirmsSignUp = autoConfirmSignUp ?? false
        if let identityPoolId { configuration.identityPoolId = identityPoolId }
        configuration.allowsGuests = allowGuests ?? true
        configuration.maxFailedSignIns = maxFailedSignIns ?? configuration.maxFailedSignIns
        configuration.lockout = lockoutSeconds ?? configuration.lockout
        configuration.maxLockout = maxLockoutSeconds ?? max(configuration.maxLockout, configuration.lockout)
        guard configuration.maxLockout >= configuration.lockout else {
            throw CommandFailure(
                "auth.maxLockoutSeconds is \(configuration.maxLockout), shorter than auth.lockoutSeconds "
                    + "(\(configuration.lockout)); give the longest lockout, at least the first one."
            )
        }
        if let requestsPerClient {
            guard requestsPerClient.burst > 0 else {
                throw CommandFailure(
                    "auth.requestsPerClient.burst is \(requestsPerClient.burst); give how many calls a client may "
                        + "make at once, above 0."
                )
            }
            guard requestsPerClient.perSecond > 0 else {
                throw CommandFailure(
                    "auth.requestsPerClient.perSecond is \(requestsPerClient.perSecond); give how many calls a "
                        + "client regains per second, above 0."
                )
            }
            configuration.clientRequestLimit = CognitoConfiguration.ClientRequestLimit(
                burst: requestsPerClient.burst,
                perSecond: requestsPerClient.perSecond
            )
        }
        configuration.usernameAttributes = try (usernameAttributes ?? []).map { name in
            guard let attribute = CognitoConfiguration.UsernameAttribute(rawValue: name) else {
                throw CommandFailure(
                    "auth.usernameAttributes has '\(name)'; use \"email\", \"phone_number\" or both."
                )
            }
            return attribute
        }
        return configuration
    }
}

extension ServeSettings {
    /// The local Cognito's configuration when `--auth` is given or `stratus.json` has an `auth`
    /// block; `nil` otherwise.
    func cognitoConfiguration(enabled: Bool) throws -> CognitoConfiguration? {
        guard enabled || auth != nil else { return nil }
        return try (auth ?? AuthSettings()).configuration(region: region)
    }
}
