import Foundation
import StratusCodegen
import StratusCognito

/// The `auth` block of `stratus.json`: the local Cognito user pool and identity pool.
///
/// ```json
/// "auth": {
///   "userPoolId": "us-east-1_Local",
///   "clients": [{ "clientId": "localclient", "writeAttributes": ["email", "name"] },
///               { "clientId": "server", "clientSecret": "s3cret" }],
///   "passwordPolicy": { "minimumLength": 8, "requireSymbols": false },
///   "groups": ["Admins"],
///   "users": [{ "username": "alice", "password": "Secret-pass1!", "attributes": { "email": "a@example.com" },
///               "groups": ["Admins"] }],
///   "tokenLifetimeSeconds": 3600, "refreshTokenLifetimeSeconds": 2592000, "rotateRefreshTokens": false,
///   "autoConfirmSignUp": false, "identityPoolId": "us-east-1:…", "allowGuests": true,
///   "accountId": "000000000000", "authRoleName": "stratus-authRole", "unauthRoleName": "stratus-unauthRole",
///   "usernameAttributes": ["email"], "maxFailedSignIns": 5, "lockoutSeconds": 60, "maxLockoutSeconds": 900,
///   "requestsPerClient": { "burst": 30, "perSecond": 3 }
/// }
/// ```
enum AuthSettings {
    /// The pool of `--auth` without an `auth` block: the defaults of ``CognitoConfiguration``, in
    /// the file's region.
    static func defaultConfiguration(region: String?) -> CognitoConfiguration {
        var configuration = CognitoConfiguration()
        if let region { configuration.place(in: region) }
        return configuration
    }

    /// The pool's configuration from the `auth` block, the defaults of ``CognitoConfiguration``
    /// filling what is absent; the pool is in the block's region, else `fileRegion`.
    ///
    /// - Throws: ``CommandFailure`` for a pool id that is not `<region>_<name>`, an origin that is
    ///   not one, a lifetime that is not positive, or another value out of its range.
    static func configuration(_ auth: SettingsObject, region fileRegion: String?) throws -> CognitoConfiguration {
        var configuration = CognitoConfiguration()
        if let region = try auth.value("region") ?? fileRegion { configuration.place(in: region) }
        if let userPoolId: String = try auth.value("userPoolId") {
            guard userPoolId.contains("_"), !userPoolId.hasSuffix("_") else {
                throw CommandFailure(
                    "auth.userPoolId '\(userPoolId)' is not a user pool id. Write it as <region>_<name>, such as us-east-1_Local."
                )
            }
            configuration.userPoolId = userPoolId
        }
        if let publicOrigin: String = try auth.value("publicOrigin") {
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
        let clients = try (auth.objects("clients") ?? []).enumerated().map { index, client in
            let readAttributes: [String]? = try client.value("readAttributes")
            let writeAttributes: [String]? = try client.value("writeAttributes")
            try checkAttributeNames(readAttributes ?? [], at: "auth.clients[\(index)].readAttributes")
            try checkAttributeNames(writeAttributes ?? [], at: "auth.clients[\(index)].writeAttributes", writable: true)
            return CognitoConfiguration.AppClient(
                clientId: try client.decode(String.self, forKey: "clientId"),
                clientSecret: try client.value("clientSecret"),
                readAttributes: readAttributes,
                writeAttributes: writeAttributes
            )
        }
        if !clients.isEmpty { configuration.clients = clients }
        if let policy = try auth.object("passwordPolicy") {
            configuration.passwordPolicy = CognitoConfiguration.PasswordPolicy(
                minimumLength: try policy.value("minimumLength") ?? 8,
                requiresLowercase: try policy.value("requireLowercase") ?? true,
                requiresUppercase: try policy.value("requireUppercase") ?? true,
                requiresNumbers: try policy.value("requireNumbers") ?? true,
                requiresSymbols: try policy.value("requireSymbols") ?? true
            )
        }
        configuration.groups = try auth.value("groups") ?? []
        configuration.users = try (auth.objects("users") ?? []).map {
            CognitoConfiguration.User(
                username: try $0.decode(String.self, forKey: "username"),
                password: try $0.decode(String.self, forKey: "password"),
                attributes: try $0.value("attributes") ?? [:],
                groups: try $0.value("groups") ?? []
            )
        }
        var seconds: [String: Double] = [:]
        for key in ["tokenLifetimeSeconds", "refreshTokenLifetimeSeconds", "lockoutSeconds", "maxLockoutSeconds"] {
            guard let value: Double = try auth.value(SettingsField(stringValue: key)) else { continue }
            guard value > 0 else {
                throw CommandFailure("auth.\(key) is \(value); give a number of seconds above 0.")
            }
            seconds[key] = value
        }
        configuration.tokenLifetime = seconds["tokenLifetimeSeconds"] ?? configuration.tokenLifetime
        configuration.refreshTokenLifetime =
            seconds["refreshTokenLifetimeSeconds"] ?? configuration.refreshTokenLifetime
        configuration.rotatesRefreshTokens = try auth.value("rotateRefreshTokens") ?? false
        configuration.autoConfirmsSignUp = try auth.value("autoConfirmSignUp") ?? false
        if let identityPoolId: String = try auth.value("identityPoolId") {
            configuration.identityPoolId = identityPoolId
        }
        configuration.allowsGuests = try auth.value("allowGuests") ?? true
        configuration.accountId = try auth.value("accountId") ?? configuration.accountId
        configuration.authenticatedRoleName = try auth.value("authRoleName") ?? configuration.authenticatedRoleName
        configuration.unauthenticatedRoleName =
            try auth.value("unauthRoleName") ?? configuration.unauthenticatedRoleName
        configuration.maxFailedSignIns = try auth.value("maxFailedSignIns") ?? configuration.maxFailedSignIns
        configuration.lockout = seconds["lockoutSeconds"] ?? configuration.lockout
        configuration.maxLockout =
            seconds["maxLockoutSeconds"] ?? max(configuration.maxLockout, configuration.lockout)
        guard configuration.maxLockout >= configuration.lockout else {
            throw CommandFailure(
                "auth.maxLockoutSeconds is \(configuration.maxLockout), shorter than auth.lockoutSeconds "
                    + "(\(configuration.lockout)); give the longest lockout, at least the first one."
            )
        }
        if let requests = try auth.object("requestsPerClient") {
            let burst = try requests.decode(Int.self, forKey: "burst")
            let perSecond = try requests.decode(Double.self, forKey: "perSecond")
            guard burst > 0 else {
                throw CommandFailure(
                    "auth.requestsPerClient.burst is \(burst); give how many calls a client may make at once, above 0."
                )
            }
            guard perSecond > 0 else {
                throw CommandFailure(
                    "auth.requestsPerClient.perSecond is \(perSecond); give how many calls a client regains per "
                        + "second, above 0."
                )
            }
            configuration.clientRequestLimit = CognitoConfiguration.ClientRequestLimit(
                burst: burst,
                perSecond: perSecond
            )
        }
        configuration.usernameAttributes = try (auth.value("usernameAttributes", as: [String].self) ?? []).map {
            name in
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

extension AuthSettings {
    /// Refuses a name of `names` (the list at `path`) that is not an attribute of a user pool, or,
    /// when `writable`, one only the pool and the administrator set.
    ///
    /// - Throws: ``CommandFailure`` naming the list, the attribute and the fix.
    static func checkAttributeNames(_ names: [String], at path: String, writable: Bool = false) throws {
        for name in names {
            if ["sub", "email_verified", "phone_number_verified"].contains(name) {
                guard writable else { continue }
                throw CommandFailure(
                    "\(path) has '\(name)', which only the pool (with a code) and the administrator set. Remove it."
                )
            }
            guard CognitoUserPool.isSchemaAttribute(name) else {
                throw CommandFailure(
                    "\(path) has '\(name)', which is not an attribute of a user pool: give Cognito's standard "
                        + "attributes (email, name, …) or custom:<name> with 1 to 20 characters."
                )
            }
        }
    }

    /// What `serve` warns of at start: each `@auth` rule of `schema` whose `groupClaim` or
    /// `identityClaim` is an attribute (`custom:role`, `email`) that an app client of
    /// `configuration` lets its users write, so that a user can grant the rule to themselves. (A
    /// new email is unverified, but it is in the next tokens at once, and a rule on `email` does not
    /// look at `email_verified`.)
    static func selfGrantedClaimWarnings(schema: AnnotatedSchema, configuration: CognitoConfiguration) -> [String] {
        var warnings: [String] = []
        func check(_ rules: [AuthRuleDefinition], of place: String) {
            for rule in rules where rule.provider == .userPools {
                let claims: [(key: String, claim: String)] =
                    [("groupClaim", rule.groupClaim), ("identityClaim", rule.identityClaim)].compactMap { key, claim in
                        claim.map { (key, $0) }
                    }
                for (key, claim) in claims {
                    for attribute in claim.components(separatedBy: "::")
                    where CognitoUserPool.isSchemaAttribute(attribute) && !attribute.hasSuffix("_verified") {
                        let writers = configuration.clients.filter { $0.writes(attribute) }.map(\.clientId)
                        guard !writers.isEmpty else { continue }
                        let who =
                            writers.count == 1
                            ? "the app client \(writers[0]) lets its users"
                            : "the app clients \(writers.joined(separator: ", ")) let their users"
                        warnings.append(
                            "Warning: the rule {allow: \(rule.allow.rawValue), \(key): \"\(claim)\"} of \(place) trusts "
                                + "the claim \(attribute), which \(who) write (UpdateUserAttributes, SignUp): a user can "
                                + "set it to whatever the rule admits. Leave \(attribute) out of "
                                + (writers.count == 1 ? "that client's" : "those clients'")
                                + " writeAttributes in stratus.json (auth.clients[].writeAttributes)."
                        )
                    }
                }
            }
        }
        for model in schema.models {
            check(model.authRules, of: model.name)
            for field in model.fields { check(field.authRules, of: "\(model.name).\(field.name)") }
        }
        return warnings
    }
}

extension CognitoConfiguration {
    /// Puts the pools in `region`: `<region>_Local` and `<region>:00000000-0000-4000-8000-00000000a0b1`.
    fileprivate mutating func place(in region: String) {
        self.region = region
        userPoolId = "\(region)_Local"
        identityPoolId = "\(region):00000000-0000-4000-8000-00000000a0b1"
    }
}
