import AWSWire
import BigInt
import Crypto
import Foundation
import StratusServer

extension CognitoUserPool {
    /// `InitiateAuth`: `USER_SRP_AUTH`, `USER_PASSWORD_AUTH` and `REFRESH_TOKEN_AUTH`.
    ///
    /// An unknown user is answered as a wrong password is (Cognito's `PreventUserExistenceErrors`,
    /// on for new app clients), after the same work: the password is hashed against a stand-in
    /// record, and SRP gets a challenge with a salt that stays the same for the name.
    func initiateAuth(_ input: CognitoInput) async throws -> JSONObject {
        let flow = try input.string("AuthFlow")
        let parameters = try input.map("AuthParameters")
        switch flow {
        case "USER_PASSWORD_AUTH":
            let username = try parameter("USERNAME", parameters)
            let client = try self.client(input, username: username, secretHash: parameters["SECRET_HASH"])
            let password = try parameter("PASSWORD", parameters)
            let user = try await serially { try await self.existingUser(username) }
            let attempt = SignInAttempt(name: user?.username ?? username, client: input.client)
            try checkNotLockedOut(attempt)
            let record = user?.password ?? Self.standInPassword
            let matches = try await signIns.run { try PasswordHash.matches(password, record) }
            guard let user, matches else {
                recordFailure(attempt)
                throw CognitoError.incorrectPassword
            }
            recordSuccess(attempt)
            return try await serially {
                // As it is now: deleted or given another password while the password was checked,
                // it is not signed in.
                guard let current = try await self.store.read(CognitoUser.self, user.username),
                    current.sub == user.sub, current.password == user.password
                else { throw CognitoError.incorrectPassword }
                return try await self.signedIn(current, client: client)
            }
        case "USER_SRP_AUTH":
            let username = try parameter("USERNAME", parameters)
            let client = try self.client(input, username: username, secretHash: parameters["SECRET_HASH"])
            guard let publicA = BigUInt(try parameter("SRP_A", parameters), radix: 16),
                publicA % SRPGroup.prime != 0
            else {
                throw CognitoError.invalidParameter("SRP_A is not a valid hexadecimal SRP value.")
            }
            let user = try await serially { try await self.existingUser(username) }
            let attempt = SignInAttempt(name: user?.username ?? username, client: input.client)
            try checkNotLockedOut(attempt)
            let claimant: SRPClaimant
            if let user {
                guard let verifier = BigUInt(user.password.srpVerifier, radix: 16) else {
                    throw CognitoError(
                        "InternalErrorException",
                        "The stored SRP verifier of '\(user.username)' is unreadable."
                    )
                }
                claimant = SRPClaimant(userIdForSRP: user.username, salt: user.password.srpSalt, verifier: verifier)
            } else {
                claimant = standInClaimant(for: username)
            }
            let (privateB, publicB) = try await signIns.run { SRPServer.challenge(verifier: claimant.verifier) }
            let secretBlock = PasswordHash.randomBytes(48).base64EncodedString()
            remember(
                PendingChallenge(
                    kind: .passwordVerifier(
                        privateB: privateB,
                        publicB: publicB,
                        publicA: publicA,
                        verifier: claimant.verifier,
                        knownUser: user != nil
                    ),
                    username: claimant.userIdForSRP,
                    clientId: client.clientId,
                    expires: clock().addingTimeInterval(180)
                ),
                as: secretBlock
            )
            return [
                "ChallengeName": "PASSWORD_VERIFIER",
                "ChallengeParameters": .object([
                    "SALT": .string(claimant.salt),
                    "SECRET_BLOCK": .string(secretBlock),
                    "SRP_B": .string(String(publicB, radix: 16)),
                    "USERNAME": .string(claimant.userIdForSRP),
                    "USER_ID_FOR_SRP": .string(claimant.userIdForSRP),
                ]),
            ]
        case "REFRESH_TOKEN_AUTH", "REFRESH_TOKEN":
            return try await serially { try await self.refresh(input, parameters) }
        default:
            throw CognitoError.invalidParameter(
                "1 validation error detected: Value '\(flow)' at 'authFlow' failed to satisfy constraint: "
                    + "Member must satisfy enum value set: [USER_SRP_AUTH, REFRESH_TOKEN_AUTH, REFRESH_TOKEN, "
                    + "USER_PASSWORD_AUTH]"
            )
        }
    }

    /// `RespondToAuthChallenge`: `PASSWORD_VERIFIER` and `NEW_PASSWORD_REQUIRED`.
    func respondToAuthChallenge(_ input: CognitoInput) async throws -> JSONObject {
        let name = try input.string("ChallengeName")
        let responses = try input.map("ChallengeResponses")
        let username = try parameter("USERNAME", responses)
        let client = try self.client(input, username: username, secretHash: responses["SECRET_HASH"])
        switch name {
        case "PASSWORD_VERIFIER":
            return try await verifyPasswordClaim(responses, username: username, client: client, from: input.client)
        case "NEW_PASSWORD_REQUIRED":
            let session = try input.string("Session")
            let attributes = Dictionary(
                responses.filter { $0.key.hasPrefix("userAttributes.") }.map {
                    (String($0.key.dropFirst("userAttributes.".count)), $0.value)
                },
                uniquingKeysWith: { first, _ in first }
            )
            // Refused before the session is taken: the user answers again with other attributes.
            try Self.checkWritable(attributes, .newPasswordChallenge)
            try Self.checkClientWrites(attributes, client: client)
            let password = try parameter("NEW_PASSWORD", responses)
            guard let challenge = take(session), challenge.username == username, challenge.clientId == client.clientId,
                case .newPassword = challenge.kind
            else {
                throw CognitoError.invalidSession
            }
            let user = try await serially { try await self.user(username) }
            let record = try await passwordRecord(password, username: user.username)
            return try await serially {
                var user = try await self.user(username)
                try Self.checkCustomCount(before: user.attributes, after: user.attributes.merging(attributes) { $1 })
                try await self.checkSignInNamesFree(attributes, for: user.username)
                user.password = record
                user.modified = self.clock()
                // A new email or phone number is unverified, with a code sent to it.
                for attribute in Self.apply(attributes, to: &user) {
                    _ = try await self.issueVerificationCode(for: user, attribute: attribute)
                }
                user.status = .confirmed
                try await self.store.write(user)
                return try await self.signedIn(user, client: client)
            }
        default:
            throw CognitoError.invalidParameter("The challenge '\(name)' is not one the local pool asks.")
        }
    }

    /// The `PASSWORD_VERIFIER` answer to an SRP challenge: tokens when its signature proves the
    /// password. A challenge given for an unknown user takes the same work and fails as a wrong
    /// password does.
    private func verifyPasswordClaim(
        _ responses: [String: String],
        username: String,
        client: CognitoConfiguration.AppClient,
        from address: String
    ) async throws -> JSONObject {
        let secretBlock = try parameter("PASSWORD_CLAIM_SECRET_BLOCK", responses)
        let signature = try parameter("PASSWORD_CLAIM_SIGNATURE", responses)
        let timestamp = try parameter("TIMESTAMP", responses)
        guard let challenge = take(secretBlock), challenge.username == username,
            challenge.clientId == client.clientId,
            case .passwordVerifier(let privateB, let publicB, let publicA, let verifier, let knownUser) = challenge.kind,
            let block = Data(base64Encoded: secretBlock)
        else {
            throw CognitoError.invalidSession
        }
        let attempt = SignInAttempt(name: username, client: address)
        try checkNotLockedOut(attempt)
        let poolName = configuration.poolName
        let expected = try await signIns.run {
            SRPServer.key(publicA: publicA, publicB: publicB, privateB: privateB, verifier: verifier).map {
                SRPGroup.claimSignature(
                    key: $0,
                    poolName: poolName,
                    userIdForSRP: username,
                    secretBlock: block,
                    timestamp: timestamp
                ).base64EncodedString()
            }
        }
        guard knownUser, expected == signature else {
            recordFailure(attempt)
            throw CognitoError.incorrectPassword
        }
        recordSuccess(attempt)
        return try await serially {
            // The user must still have the verifier the challenge was computed with.
            guard let user = try await self.store.read(CognitoUser.self, username),
                user.password.srpVerifier == String(verifier, radix: 16)
            else { throw CognitoError.incorrectPassword }
            return try await self.signedIn(user, client: client)
        }
    }

    private func parameter(_ name: String, _ parameters: [String: String]) throws -> String {
        guard let value = parameters[name] else {
            throw CognitoError.invalidParameter("Missing required parameter \(name)")
        }
        return value
    }

    /// The answer to a verified password: tokens, or the challenge the user's status asks.
    private func signedIn(_ user: CognitoUser, client: CognitoConfiguration.AppClient) async throws -> JSONObject {
        guard user.enabled else { throw CognitoError.notAuthorized("User is disabled.") }
        switch user.status {
        case .unconfirmed:
            throw CognitoError.userNotConfirmed
        case .resetRequired:
            throw CognitoError("PasswordResetRequiredException", "Password reset required for the user")
        case .forceChangePassword:
            let session = PasswordHash.randomBytes(48).base64EncodedString()
            remember(
                PendingChallenge(
                    kind: .newPassword,
                    username: user.username,
                    clientId: client.clientId,
                    expires: clock().addingTimeInterval(180)
                ),
                as: session
            )
            var parameters: JSONObject = ["USER_ID_FOR_SRP": .string(user.username)]
            parameters["requiredAttributes"] = "[]"
            parameters["userAttributes"] = .string(
                JSON.object(JSONObject(Self.schemaAttributes(of: user).map { ($0.name, JSON.string($0.value)) })).text
            )
            return [
                "ChallengeName": "NEW_PASSWORD_REQUIRED", "ChallengeParameters": .object(parameters),
                "Session": .string(session),
            ]
        case .confirmed:
            let refreshToken = PasswordHash.randomBytes(64).base64EncodedString()
            let originJti = UUID().uuidString.lowercased()
            let now = clock()
            try await store.write(
                RefreshTokenRecord(
                    tokenHash: Self.hash(of: refreshToken),
                    username: user.username,
                    sub: user.sub,
                    clientId: client.clientId,
                    originJti: originJti,
                    authTime: now,
                    expires: now.addingTimeInterval(configuration.refreshTokenLifetime),
                    revoked: false
                )
            )
            var result = try tokens(for: user, clientId: client.clientId, originJti: originJti, authTime: now)
            result["RefreshToken"] = .string(refreshToken)
            return ["AuthenticationResult": .object(result), "ChallengeParameters": .object([:])]
        }
    }

    private func refresh(_ input: CognitoInput, _ parameters: [String: String]) async throws -> JSONObject {
        let token = try parameter("REFRESH_TOKEN", parameters)
        guard var record = try await store.read(RefreshTokenRecord.self, Self.hash(of: token)) else {
            throw CognitoError.invalidRefreshToken
        }
        guard !record.revoked else { throw CognitoError.revokedRefreshToken }
        guard record.expires > clock() else { throw CognitoError.notAuthorized("Refresh Token has expired") }
        // The user it was issued to: another user given the same name later is not.
        guard let user = try await store.read(CognitoUser.self, record.username),
            record.sub == nil || record.sub == user.sub
        else {
            throw CognitoError.revokedRefreshToken
        }
        let client = try self.client(
            input,
            username: parameters["USERNAME"] ?? user.username,
            secretHash: parameters["SECRET_HASH"]
        )
        guard client.clientId == record.clientId else { throw CognitoError.invalidRefreshToken }
        guard user.enabled else { throw CognitoError.notAuthorized("User is disabled.") }
        var result = try tokens(
            for: user,
            clientId: client.clientId,
            originJti: record.originJti,
            authTime: record.authTime
        )
        if configuration.rotatesRefreshTokens {
            record.revoked = true
            try await store.write(record)
            let rotated = PasswordHash.randomBytes(64).base64EncodedString()
            var next = record
            next.tokenHash = Self.hash(of: rotated)
            next.revoked = false
            next.expires = clock().addingTimeInterval(configuration.refreshTokenLifetime)
            try await store.write(next)
            result["RefreshToken"] = .string(rotated)
        }
        return ["AuthenticationResult": .object(result), "ChallengeParameters": .object([:])]
    }

    /// The ID and access tokens of a sign-in or a refresh.
    ///
    /// The ID token carries the user's attributes of the schema, then the claims the pool
    /// writes from its own records (`sub`, `cognito:groups`, `cognito:username`, `iss`, `aud`,
    /// the times and ids): written last, none of them can come from an attribute.
    func tokens(for user: CognitoUser, clientId: String, originJti: String, authTime: Date) throws -> JSONObject {
        let now = clock()
        let issuedAt = Int(now.timeIntervalSince1970)
        let expires = issuedAt + Int(configuration.tokenLifetime)
        let eventId = UUID().uuidString.lowercased()
        var id: JSONObject = [:]
        // The attributes the client reads (its `ReadAttributes`); a client the pool no longer has
        // gets no tokens (`client(_:username:secretHash:)` refuses it first).
        let reader = configuration.clients.first { $0.clientId == clientId }
        for (name, value) in Self.schemaAttributes(of: user) where reader?.reads(name) ?? true {
            id[name] = Self.claim(name, value)
        }
        id["sub"] = .string(user.sub)
        id["cognito:groups"] = user.groups.isEmpty ? nil : .array(user.groups.map { .string($0) })
        id["iss"] = .string(issuer)
        id["cognito:username"] = .string(user.username)
        id["origin_jti"] = .string(originJti)
        id["aud"] = .string(clientId)
        id["event_id"] = .string(eventId)
        id["token_use"] = "id"
        id["auth_time"] = .int(Int(authTime.timeIntervalSince1970))
        id["exp"] = .int(expires)
        id["iat"] = .int(issuedAt)
        id["jti"] = .string(UUID().uuidString.lowercased())
        var access: JSONObject = ["sub": .string(user.sub)]
        if !user.groups.isEmpty { access["cognito:groups"] = .array(user.groups.map { .string($0) }) }
        access["iss"] = .string(issuer)
        access["client_id"] = .string(clientId)
        access["origin_jti"] = .string(originJti)
        access["event_id"] = .string(eventId)
        access["token_use"] = "access"
        access["scope"] = "aws.cognito.signin.user.admin"
        access["auth_time"] = .int(Int(authTime.timeIntervalSince1970))
        access["exp"] = .int(expires)
        access["iat"] = .int(issuedAt)
        access["jti"] = .string(UUID().uuidString.lowercased())
        access["username"] = .string(user.username)
        return [
            "AccessToken": .string(try signingKey.sign(access)),
            "ExpiresIn": .int(Int(configuration.tokenLifetime)),
            "IdToken": .string(try signingKey.sign(id)),
            "TokenType": "Bearer",
        ]
    }

    static func hash(of token: String) -> String {
        Hex.lowercase(SHA256.hash(data: Data(token.utf8)))
    }

    // MARK: - SRP for names nobody has

    /// Who an SRP challenge is for: the id its signature hashes, the salt and the verifier.
    struct SRPClaimant: Sendable {
        var userIdForSRP: String
        var salt: String
        var verifier: BigUInt
    }

    /// The stand-in an SRP sign-in of a name nobody has is challenged as: a salt derived from
    /// the name (the same at every attempt, as a user's is), a verifier no password gives, and,
    /// in a pool that names users by an id, an id derived from the name.
    func standInClaimant(for name: String) -> SRPClaimant {
        let key = SymmetricKey(
            data: SHA256.hash(data: Data(("srp-stand-in:" + administratorCredentials.secretAccessKey).utf8))
        )
        var salt = Data(HMAC<SHA256>.authenticationCode(for: Data(("salt:" + name).utf8), using: key)).prefix(16)
        salt[salt.startIndex] = 0x01 + salt[salt.startIndex] % 0x7F
        var userId = name
        if !configuration.usernameAttributes.isEmpty {
            let bytes = Array(HMAC<SHA256>.authenticationCode(for: Data(("id:" + name).utf8), using: key))
            let uuid = UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6] & 0x0F | 0x40, bytes[7],
                    bytes[8] & 0x3F | 0x80, bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                )
            )
            userId = uuid.uuidString.lowercased()
        }
        return SRPClaimant(userIdForSRP: userId, salt: Hex.lowercase(salt), verifier: Self.standInVerifier)
    }

    /// A verifier of no password: a random number modulo `N`, for the process's life.
    static let standInVerifier = BigUInt(PasswordHash.randomBytes(384)) % SRPGroup.prime

    // MARK: - Challenges waiting

    private func remember(_ challenge: PendingChallenge, as key: String) {
        let now = clock()
        pending.withLock { pending in
            pending = pending.filter { $0.value.expires > now }
            pending[key] = challenge
        }
    }

    /// The challenge under `key`, removed: each answers once.
    private func take(_ key: String) -> PendingChallenge? {
        let now = clock()
        return pending.withLock { pending in
            guard let challenge = pending.removeValue(forKey: key), challenge.expires > now else { return nil }
            return challenge
        }
    }

    // MARK: - Tokens presented

    /// The claims of a token this pool signed, after checking its signature, `iss`, `exp`,
    /// `token_use` and that it was not revoked; `nil` for any other token.
    func verifiedClaims(of token: String, use: String) throws -> JSONObject? {
        guard let claims = signingKey.verifiedClaims(of: token),
            claims["iss"]?.stringValue == issuer,
            claims["token_use"]?.stringValue == use,
            let expires = claims["exp"]?.doubleValue, expires > clock().timeIntervalSince1970
        else { return nil }
        return claims
    }

    /// Whether the tokens of `claims` were revoked: by `RevokeToken` (their `origin_jti`), by
    /// `GlobalSignOut` (issued before it), or by the user's deletion.
    ///
    /// A token belongs to the user with its `sub`, not to whoever has its username now: once
    /// fred is deleted, the tokens of the old fred stay refused after a new fred is added.
    func isRevoked(_ claims: JSONObject) async throws -> Bool {
        try await holder(of: claims) == nil
    }

    /// The user a token of this pool was issued to, as the pool has it now; `nil` when the
    /// token was revoked, or its user deleted or disabled.
    func holder(of claims: JSONObject) async throws -> CognitoUser? {
        if let origin = claims["origin_jti"]?.stringValue, try await store.read(RevokedOrigin.self, origin) != nil {
            return nil
        }
        guard let username = claims["cognito:username"]?.stringValue ?? claims["username"]?.stringValue,
            let sub = claims["sub"]?.stringValue,
            CognitoUsername.isValid(username),
            let user = try await store.read(CognitoUser.self, username),
            user.sub == sub
        else { return nil }
        if let after = user.tokensValidAfter, let issuedAt = claims["iat"]?.doubleValue,
            issuedAt < after.timeIntervalSince1970
        {
            return nil
        }
        return user.enabled ? user : nil
    }

    /// The user of a valid access token.
    func user(ofAccessToken token: String) async throws -> CognitoUser {
        guard let claims = try verifiedClaims(of: token, use: "access") else { throw CognitoError.invalidAccessToken }
        guard let user = try await holder(of: claims) else { throw CognitoError.revokedAccessToken }
        return user
    }

    /// Whether `token`, presented to the API, was revoked; `false` for a token of another issuer.
    public func isRevoked(token: String) async -> Bool {
        guard let claims = signingKey.verifiedClaims(of: token) else { return false }
        do {
            return try await isRevoked(claims)
        } catch {
            log("The local Cognito cannot check whether a token was revoked: \(error)")
            return true
        }
    }
}

/// The `origin_jti` of tokens revoked with their refresh token.
struct RevokedOrigin: CognitoRecord, Hashable {
    static let kind = "revokedOrigin"
    var key: String { originJti }
    var originJti: String
}
