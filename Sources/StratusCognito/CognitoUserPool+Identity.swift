import Foundation
import StratusServer

extension CognitoUserPool {
    /// `GetId`: the identity of a signed-in user (by the `Logins` of this pool's ID token), or a
    /// new guest identity when the pool allows guests.
    func getId(_ input: CognitoInput) async throws -> JSONObject {
        _ = try identityPool(input)
        if let login = try await self.login(input) {
            // One read by the login's key, however many identities guests made.
            if let existing = try await store.read(IdentityLoginRecord.self, login.key) {
                return ["IdentityId": .string(existing.identityId)]
            }
            let record = IdentityRecord(identityId: newIdentityId(), login: login.key)
            try await store.write(record)
            try await store.write(IdentityLoginRecord(login: login.key, identityId: record.identityId))
            return ["IdentityId": .string(record.identityId)]
        }
        guard configuration.allowsGuests else {
            throw CognitoError.notAuthorized("Unauthenticated access is not supported for this identity pool.")
        }
        let record = IdentityRecord(identityId: newIdentityId(), login: nil)
        try await store.write(record)
        return ["IdentityId": .string(record.identityId)]
    }

    /// `GetCredentialsForIdentity`: temporary credentials of the authenticated role for an
    /// identity whose login is given, of the unauthenticated role for a guest's.
    func getCredentialsForIdentity(_ input: CognitoInput) async throws -> JSONObject {
        guard configuration.identityPoolId != nil else {
            throw CognitoError("ResourceNotFoundException", "The local Cognito has no identity pool.")
        }
        let identityId = try input.string("IdentityId")
        guard var identity = try await store.read(IdentityRecord.self, identityId) else {
            throw CognitoError("ResourceNotFoundException", "Identity '\(identityId)' not found.")
        }
        let login = try await self.login(input)
        if let expected = identity.login {
            guard let login, login.key == expected else {
                throw CognitoError.notAuthorized(
                    "Logins don't match. Please include at least one valid login for this identity or identity pool."
                )
            }
        } else if let login {
            // A guest who signs in keeps the identity, which becomes the user's (unless the user
            // has one already, which GetId keeps answering).
            identity.login = login.key
            try await store.write(identity)
            if try await store.read(IdentityLoginRecord.self, login.key) == nil {
                try await store.write(IdentityLoginRecord(login: login.key, identityId: identityId))
            }
        } else if !configuration.allowsGuests {
            throw CognitoError.notAuthorized("Unauthenticated access is not supported for this identity pool.")
        }
        let expiration = clock().addingTimeInterval(configuration.credentialsLifetime)
        let credentials = IssuedCredentials(
            accessKeyId: "ASIA" + Self.randomText(16, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
            secretAccessKey: Self.randomText(
                40,
                alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+"
            ),
            sessionToken: PasswordHash.randomBytes(96).base64EncodedString(),
            identityId: identityId,
            isAuthenticated: login != nil,
            username: login?.username,
            sub: login?.sub,
            expiration: expiration
        )
        try await store.write(credentials)
        return [
            "IdentityId": .string(identityId),
            "Credentials": .object([
                "AccessKeyId": .string(credentials.accessKeyId),
                "SecretKey": .string(credentials.secretAccessKey),
                "SessionToken": .string(credentials.sessionToken),
                "Expiration": .int(Int(expiration.timeIntervalSince1970)),
            ]),
        ]
    }

    /// The identity pool id of a request, which must be this pool's.
    private func identityPool(_ input: CognitoInput) throws -> String {
        let poolId = try input.string("IdentityPoolId")
        guard let own = configuration.identityPoolId, poolId == own else {
            throw CognitoError("ResourceNotFoundException", "IdentityPool '\(poolId)' not found.")
        }
        return poolId
    }

    /// The user a request's `Logins` proves: an ID token of this pool, under ``loginKey``.
    private func login(_ input: CognitoInput) async throws -> (key: String, username: String, sub: String)? {
        let logins = try input.map("Logins")
        guard !logins.isEmpty else { return nil }
        guard let token = logins[loginKey] else {
            throw CognitoError.notAuthorized(
                "Invalid login token. Unknown provider: \(logins.keys.sorted().joined(separator: ", "))"
            )
        }
        guard let claims = try verifiedClaims(of: token, use: "id"),
            let audience = claims["aud"]?.stringValue,
            configuration.clients.contains(where: { $0.clientId == audience }),
            let sub = claims["sub"]?.stringValue,
            let username = claims["cognito:username"]?.stringValue
        else {
            throw CognitoError.notAuthorized("Invalid login token. Not a valid OpenId Connect identity token.")
        }
        guard !(try await isRevoked(claims)) else {
            throw CognitoError.notAuthorized("Invalid login token. Token is revoked.")
        }
        return ("\(loginKey):\(sub)", username, sub)
    }

    private func newIdentityId() -> String {
        "\(configuration.region):\(UUID().uuidString.lowercased())"
    }

    static func randomText(_ count: Int, alphabet: String) -> String {
        let characters = Array(alphabet)
        var generator = SystemRandomNumberGenerator()
        return String((0..<count).map { _ in characters.randomElement(using: &generator)! })
    }

    /// The secret, session token and caller of credentials this identity pool issued and that
    /// have not expired; `nil` for others, and for a user's credentials once the user is
    /// deleted (a user given the same name later is another user).
    public func issuedCredentials(for accessKeyId: String) async -> TemporaryCredential? {
        guard accessKeyId.hasPrefix("ASIA") else { return nil }
        var record: IssuedCredentials?
        var holder: CognitoUser?
        do {
            record = try await store.read(IssuedCredentials.self, accessKeyId)
            if let username = record?.username { holder = try await store.read(CognitoUser.self, username) }
        } catch {
            log("The local Cognito cannot read the credentials '\(accessKeyId)': \(error)")
            return nil
        }
        guard let record, record.expiration > clock() else { return nil }
        if record.isAuthenticated {
            guard let holder, holder.sub == record.sub, holder.enabled else { return nil }
        }
        var claims: JSONObject = [
            "accessKeyId": .string(record.accessKeyId),
            "cognitoIdentityPoolId": .string(configuration.identityPoolId ?? ""),
            "cognitoIdentityId": .string(record.identityId),
            "cognitoIdentityAuthType": .string(record.isAuthenticated ? "authenticated" : "unauthenticated"),
        ]
        if let username = record.username { claims["username"] = .string(username) }
        // What AppSync gives a resolver of these credentials: the account and assumed role, and
        // for a signed-in user the user pool it signed in with.
        let role = record.isAuthenticated ? configuration.authenticatedRoleName : configuration.unauthenticatedRoleName
        claims["accountId"] = .string(configuration.accountId)
        claims["userArn"] = .string(
            "arn:aws:sts::\(configuration.accountId):assumed-role/\(role)/CognitoIdentityCredentials"
        )
        if let sub = record.sub {
            claims["sub"] = .string(sub)
            let provider = "cognito-idp.\(configuration.region).amazonaws.com/\(configuration.userPoolId)"
            claims["cognitoIdentityAuthProvider"] = .string(
                "\"\(provider)\",\"\(provider):CognitoSignIn:\(sub)\""
            )
        }
        return TemporaryCredential(
            secretAccessKey: record.secretAccessKey,
            sessionToken: record.sessionToken,
            claims: claims
        )
    }
}

/// The identity of a signed-in user's login, as a record of its own keyed by the login
/// (`<issuer without scheme>:<sub>`): `GetId` finds it by the store's primary key rather than by
/// reading every identity, guests' included.
struct IdentityLoginRecord: CognitoRecord, Hashable {
    static let kind = "identityLogin"
    var key: String { login }

    var login: String
    var identityId: String
}

/// A change to the records made once per store, marked done by this record.
struct CognitoMigration: CognitoRecord, Hashable {
    static let kind = "migration"
    var key: String { name }

    var name: String
}

extension CognitoUserPool {
    /// Gives the users' identities made before ``IdentityLoginRecord`` existed their records:
    /// once per store, reading every identity that one time.
    func indexIdentityLogins() async throws {
        let name = "identityLogins"
        guard try await store.read(CognitoMigration.self, name) == nil else { return }
        for identity in try await store.all(IdentityRecord.self) {
            guard let login = identity.login, try await store.read(IdentityLoginRecord.self, login) == nil else {
                continue
            }
            try await store.write(IdentityLoginRecord(login: login, identityId: identity.identityId))
        }
        try await store.write(CognitoMigration(name: name))
    }
}
