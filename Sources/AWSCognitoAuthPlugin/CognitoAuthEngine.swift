import AWSWire
import Amplify
import Foundation

/// The state of a configured plugin: the session, a sign-in waiting for a challenge's answer,
/// and the refresh under way, which concurrent callers share.
actor CognitoAuthEngine {
    /// A sign-in waiting for `confirmSignIn`.
    struct PendingChallenge {
        var name: String
        var session: String?
        var username: String
    }

    let configuration: AWSCognitoAuthConfiguration
    let userPoolClient: CognitoJSONClient?
    let identityClient: CognitoJSONClient?
    let store: any AuthSessionStore
    let hub: HubCategory
    let now: @Sendable () -> Date
    /// How long before their expiration user pool tokens (an hour's worth, usually) are refreshed.
    let refreshMargin: TimeInterval = 5 * 60
    /// How long before their expiration identity pool credentials are refreshed: less than the
    /// tokens' margin, since a pool may hand out credentials that last a few minutes.
    let credentialsRefreshMargin: TimeInterval = 60

    private(set) var session: CognitoSessionData
    private var pending: PendingChallenge?
    private var refresh: Task<CognitoSessionData, Never>?
    /// Whether the refresh token was refused: the user must sign in again.
    private var isExpired = false
    /// Why the last refresh of identity pool credentials failed, reported by the next session.
    private var identityError: AuthError?
    /// Counts sign-ins and sign-outs: a refresh that started for an earlier session drops what
    /// it got rather than write it over the new one.
    private var generation = 0

    init(
        configuration: AWSCognitoAuthConfiguration,
        transport: any HTTPTransport,
        store: any AuthSessionStore,
        hub: HubCategory,
        now: @escaping @Sendable () -> Date
    ) throws {
        self.configuration = configuration
        self.userPoolClient = configuration.userPool.map {
            CognitoJSONClient(
                service: "AWSCognitoIdentityProviderService",
                endpoint: $0.serviceEndpoint,
                transport: transport
            )
        }
        self.identityClient = configuration.identityPool.map {
            CognitoJSONClient(service: "AWSCognitoIdentityService", endpoint: $0.serviceEndpoint, transport: transport)
        }
        self.store = store
        self.hub = hub
        self.now = now
        self.session = try Self.load(from: store)
    }

    private static func load(from store: any AuthSessionStore) throws -> CognitoSessionData {
        let data: Data?
        do {
            data = try store.load()
        } catch {
            throw ConfigurationError(
                "Cannot read the stored Auth session: \(error). Check the session file's permissions."
            )
        }
        guard let data else { return CognitoSessionData() }
        let session: CognitoSessionData
        do {
            session = try JSONDecoder().decode(CognitoSessionData.self, from: data)
        } catch {
            throw ConfigurationError(
                "The stored Auth session is unreadable (\(error)). Delete the session file to sign in again."
            )
        }
        guard session.version == 1 else {
            throw ConfigurationError(
                "The stored Auth session has format version \(session.version), newer than this library's 1. "
                    + "Update the library or delete the session file."
            )
        }
        return session
    }

    /// Replaces the session and stores it.
    ///
    /// - Throws: ``AuthError/service(_:_:_:)`` when the store cannot write it.
    func commit(_ new: CognitoSessionData) throws(AuthError) {
        session = new
        do {
            if new == CognitoSessionData() {
                try store.remove()
            } else {
                try store.save(try JSONEncoder().encode(new))
            }
        } catch {
            throw .service(
                "Cannot store the Auth session: \(error)",
                "Check that the session file's directory is writable.",
                nil
            )
        }
    }

    // MARK: - User pool

    func userPool() throws(AuthError) -> (AWSCognitoAuthConfiguration.UserPool, CognitoJSONClient) {
        guard let pool = configuration.userPool, let client = userPoolClient else {
            throw .configuration(
                "The Auth plugin has no user pool.",
                "Add CognitoUserPool.Default (PoolId, AppClientId, Region) to auth.plugins.awsCognitoAuthPlugin."
            )
        }
        return (pool, client)
    }

    /// `SECRET_HASH`: base64 HMAC-SHA256 of username + client id under the client secret.
    func secretHash(_ username: String) -> String? {
        guard let pool = configuration.userPool, let secret = pool.appClientSecret else { return nil }
        return CognitoSRP.secretHash(username: username, clientId: pool.appClientId, clientSecret: secret)
    }

    func clientParameters(username: String) throws(AuthError) -> [String: JSONValue] {
        let (pool, _) = try userPool()
        var input: [String: JSONValue] = ["ClientId": .string(pool.appClientId), "Username": .string(username)]
        if let hash = secretHash(username) { input["SecretHash"] = .string(hash) }
        return input
    }

    func signUp(
        username: String,
        password: String?,
        attributes: [AuthUserAttribute]
    ) async throws(AuthError)
        -> AuthSignUpResult
    {
        let (_, client) = try userPool()
        var input = try clientParameters(username: username)
        if let password { input["Password"] = .string(password) }
        input["UserAttributes"] = .array(
            attributes.map { ["Name": .string($0.key.rawValue), "Value": .string($0.value)] }
        )
        let output = try await client.call("SignUp", input)
        let sub = output["UserSub"]?.stringValue
        if output["UserConfirmed"]?.booleanValue == true { return AuthSignUpResult(.done, userID: sub) }
        return AuthSignUpResult(.confirmUser(Self.delivery(output["CodeDeliveryDetails"]), nil, sub), userID: sub)
    }

    func confirmSignUp(username: String, code: String) async throws(AuthError) -> AuthSignUpResult {
        let (_, client) = try userPool()
        var input = try clientParameters(username: username)
        input["ConfirmationCode"] = .string(code)
        _ = try await client.call("ConfirmSignUp", input)
        return AuthSignUpResult(.done)
    }

    func resendSignUpCode(username: String) async throws(AuthError) -> AuthCodeDeliveryDetails {
        let (_, client) = try userPool()
        let output = try await client.call("ResendConfirmationCode", try clientParameters(username: username))
        return Self.delivery(output["CodeDeliveryDetails"])
            ?? AuthCodeDeliveryDetails(destination: .unknown(nil))
    }

    // MARK: - Sign-in

    func signIn(
        username: String,
        password: String,
        flow: AWSCognitoAuthConfiguration.AuthenticationFlowType
    )
        async throws(AuthError) -> AuthSignInResult
    {
        let (pool, client) = try userPool()
        if let user = session.user {
            throw .invalidState(
                "The user '\(user.username)' is already signed in.",
                "Call signOut() before signing in again."
            )
        }
        pending = nil
        var parameters: [String: JSONValue] = ["USERNAME": .string(username)]
        if let hash = secretHash(username) { parameters["SECRET_HASH"] = .string(hash) }
        // Only SRP pays for the exponentiation of A.
        var srp: CognitoSRP?
        switch flow {
        case .userPassword: parameters["PASSWORD"] = .string(password)
        case .userSRP:
            let poolId = pool.poolId
            let exchange = try await CognitoSRP.computed { CognitoSRP(poolId: poolId) }
            parameters["SRP_A"] = .string(exchange.publicA)
            srp = exchange
        }
        do throws(AuthError) {
            var output = try await client.call(
                "InitiateAuth",
                [
                    "AuthFlow": .string(flow.rawValue),
                    "ClientId": .string(pool.appClientId),
                    "AuthParameters": .object(parameters),
                ]
            )
            if output["ChallengeName"]?.stringValue == "PASSWORD_VERIFIER" {
                guard let srp else {
                    throw AuthError.service(
                        "The user pool answered USER_PASSWORD_AUTH with a PASSWORD_VERIFIER challenge.",
                        "Check that the endpoint is a Cognito user pool."
                    )
                }
                output = try await verifyPassword(output, srp: srp, username: username, password: password)
            }
            return try await handleSignIn(output, username: username)
        } catch {
            switch error.cognitoExceptionName {
            case "UserNotConfirmedException": return AuthSignInResult(nextStep: .confirmSignUp(nil))
            case "PasswordResetRequiredException": return AuthSignInResult(nextStep: .resetPassword(nil))
            default: throw error
            }
        }
    }

    /// Answers `PASSWORD_VERIFIER` with the SRP proof.
    private func verifyPassword(
        _ challenge: JSONValue,
        srp: CognitoSRP,
        username: String,
        password: String
    )
        async throws(AuthError) -> JSONValue
    {
        let (pool, client) = try userPool()
        let parameters = challenge["ChallengeParameters"]
        guard let userId = parameters?["USER_ID_FOR_SRP"]?.stringValue,
            let serverB = parameters?["SRP_B"]?.stringValue,
            let salt = parameters?["SALT"]?.stringValue,
            let secretBlock = parameters?["SECRET_BLOCK"]?.stringValue
        else {
            throw .service(
                "The PASSWORD_VERIFIER challenge lacks USER_ID_FOR_SRP, SRP_B, SALT or SECRET_BLOCK.",
                "Check that the endpoint is a Cognito user pool."
            )
        }
        let internalUsername = parameters?["USERNAME"]?.stringValue ?? username
        let timestamp = CognitoSRP.timestamp(now())
        let key = try await CognitoSRP.computed { () throws(AuthError) in
            try srp.passwordAuthenticationKey(userIdForSRP: userId, password: password, serverB: serverB, salt: salt)
        }
        var responses: [String: JSONValue] = [
            "USERNAME": .string(internalUsername),
            "PASSWORD_CLAIM_SECRET_BLOCK": .string(secretBlock),
            "PASSWORD_CLAIM_SIGNATURE": .string(
                try srp.signature(key: key, userIdForSRP: userId, secretBlock: secretBlock, timestamp: timestamp)
            ),
            "TIMESTAMP": .string(timestamp),
        ]
        if let hash = secretHash(internalUsername) { responses["SECRET_HASH"] = .string(hash) }
        var input: [String: JSONValue] = [
            "ChallengeName": "PASSWORD_VERIFIER",
            "ClientId": .string(pool.appClientId),
            "ChallengeResponses": .object(responses),
        ]
        if let session = challenge["Session"]?.stringValue { input["Session"] = .string(session) }
        return try await client.call("RespondToAuthChallenge", input)
    }

    /// Signs the user in with the tokens of `output`, or keeps its challenge for `confirmSignIn`.
    private func handleSignIn(_ output: JSONValue, username: String) async throws(AuthError) -> AuthSignInResult {
        if let result = output["AuthenticationResult"] {
            try signedIn(result, username: username)
            return AuthSignInResult(nextStep: .done)
        }
        guard let name = output["ChallengeName"]?.stringValue else {
            throw .service(
                "The sign-in answer has neither AuthenticationResult nor ChallengeName.",
                "Check that the endpoint is a Cognito user pool."
            )
        }
        let parameters = output["ChallengeParameters"]?.objectValue ?? [:]
        let info = parameters.compactMapValues(\.stringValue)
        pending = PendingChallenge(
            name: name,
            session: output["Session"]?.stringValue,
            username: info["USERNAME"] ?? info["USER_ID_FOR_SRP"] ?? username
        )
        switch name {
        case "NEW_PASSWORD_REQUIRED":
            return AuthSignInResult(nextStep: .confirmSignInWithNewPassword(info.isEmpty ? nil : info))
        case "SMS_MFA":
            let destination = info["CODE_DELIVERY_DESTINATION"]
            return AuthSignInResult(
                nextStep: .confirmSignInWithSMSMFACode(AuthCodeDeliveryDetails(destination: .sms(destination)), info)
            )
        case "CUSTOM_CHALLENGE":
            return AuthSignInResult(nextStep: .confirmSignInWithCustomChallenge(info))
        default:
            pending = nil
            throw .service(
                "The user pool asked for the challenge \(name), which this plugin does not answer.",
                "Change the user pool's settings so that sign-in needs no \(name)."
            )
        }
    }

    func confirmSignIn(
        response: String,
        attributes: [AuthUserAttribute]
    ) async throws(AuthError)
        -> AuthSignInResult
    {
        let (pool, client) = try userPool()
        guard let challenge = pending else {
            throw .invalidState(
                "No sign-in is waiting for an answer.",
                "Call signIn(username:password:) first, and confirmSignIn when its nextStep asks for it."
            )
        }
        var responses: [String: JSONValue] = ["USERNAME": .string(challenge.username)]
        switch challenge.name {
        case "NEW_PASSWORD_REQUIRED":
            responses["NEW_PASSWORD"] = .string(response)
            for attribute in attributes {
                responses["userAttributes.\(attribute.key.rawValue)"] = .string(attribute.value)
            }
        case "SMS_MFA": responses["SMS_MFA_CODE"] = .string(response)
        default: responses["ANSWER"] = .string(response)
        }
        if let hash = secretHash(challenge.username) { responses["SECRET_HASH"] = .string(hash) }
        var input: [String: JSONValue] = [
            "ChallengeName": .string(challenge.name),
            "ClientId": .string(pool.appClientId),
            "ChallengeResponses": .object(responses),
        ]
        if let session = challenge.session { input["Session"] = .string(session) }
        let output = try await client.call("RespondToAuthChallenge", input)
        pending = nil
        return try await handleSignIn(output, username: challenge.username)
    }

    /// Keeps the tokens of an `AuthenticationResult`, stores the session and tells the hub.
    private func signedIn(_ result: JSONValue, username: String) throws(AuthError) {
        let tokens = try tokens(from: result, refreshToken: nil)
        let claims = JWTClaims.of(tokens.accessToken)
        let idClaims = JWTClaims.of(tokens.idToken)
        guard let sub = claims?["sub"]?.stringValue ?? idClaims?["sub"]?.stringValue else {
            throw .service(
                "The user pool's tokens carry no sub claim, so the user has no id.",
                "Check that the endpoint is a Cognito user pool issuing JWT access and ID tokens."
            )
        }
        let user = CognitoSessionData.SignedInUser(
            username: claims?["username"]?.stringValue ?? idClaims?["cognito:username"]?.stringValue ?? username,
            userId: sub,
            tokens: tokens
        )
        refresh = nil
        generation += 1
        isExpired = false
        identityError = nil
        // Guest credentials and identity give way to the user's.
        try commit(CognitoSessionData(user: user))
        hub.dispatch(
            to: .auth,
            payload: HubPayload(
                eventName: HubPayload.EventName.Auth.signedIn,
                data: AWSAuthUser(username: user.username, userId: user.userId)
            )
        )
    }

    private func tokens(from result: JSONValue, refreshToken: String?) throws(AuthError) -> AWSCognitoUserPoolTokens {
        guard let idToken = result["IdToken"]?.stringValue, let accessToken = result["AccessToken"]?.stringValue,
            let refresh = result["RefreshToken"]?.stringValue ?? refreshToken
        else {
            throw .service(
                "The AuthenticationResult lacks IdToken, AccessToken or RefreshToken.",
                "Check that the app client issues all three tokens."
            )
        }
        let expiration: Date
        if let expiresIn = result["ExpiresIn"]?.doubleValue {
            expiration = now().addingTimeInterval(expiresIn)
        } else if let exp = JWTClaims.of(accessToken)?["exp"]?.doubleValue {
            expiration = Date(timeIntervalSince1970: exp)
        } else {
            throw .service(
                "The AuthenticationResult has no ExpiresIn and the access token no exp claim.",
                "Check that the endpoint is a Cognito user pool."
            )
        }
        return AWSCognitoUserPoolTokens(
            idToken: idToken,
            accessToken: accessToken,
            refreshToken: refresh,
            expiration: expiration
        )
    }

    // MARK: - Session

    /// The session, with tokens and credentials refreshed when they expire within the margin
    /// (or always, with `force`); concurrent callers share one refresh.
    func fetchSession(force: Bool) async -> AWSAuthCognitoSession {
        if force || needsRefresh() {
            let task: Task<CognitoSessionData, Never>
            if let refresh {
                task = refresh
            } else {
                task = Task { await self.refreshSession(force: force) }
                refresh = task
            }
            _ = await task.value
            if refresh == task { refresh = nil }
        }
        return makeSession()
    }

    private func needsRefresh() -> Bool {
        let deadline = now().addingTimeInterval(refreshMargin)
        if let user = session.user, !isExpired, user.tokens.expiration <= deadline { return true }
        guard configuration.identityPool != nil else { return false }
        if session.user != nil && isExpired { return false }
        guard let credentials = session.credentials else { return true }
        if credentials.isAuthenticated != (session.user != nil) { return true }
        if let expiration = credentials.expiration, expiration <= now().addingTimeInterval(credentialsRefreshMargin) {
            return true
        }
        return false
    }

    private func refreshSession(force: Bool) async -> CognitoSessionData {
        let deadline = now().addingTimeInterval(refreshMargin)
        let started = generation
        if let user = session.user, !isExpired, force || user.tokens.expiration <= deadline {
            do {
                try await refreshTokens(user, generation: started)
            } catch {
                guard generation == started else { return session }
                if error.cognitoExceptionName == "NotAuthorizedException" {
                    isExpired = true
                    hub.dispatch(to: .auth, payload: HubPayload(eventName: HubPayload.EventName.Auth.sessionExpired))
                }
                identityError = error
                return session
            }
        }
        if configuration.identityPool != nil, !(session.user != nil && isExpired) {
            do {
                try await refreshCredentials(generation: started)
                if generation == started { identityError = nil }
            } catch {
                if generation == started { identityError = error }
            }
        }
        return session
    }

    private func refreshTokens(
        _ user: CognitoSessionData.SignedInUser,
        generation started: Int
    )
        async throws(AuthError)
    {
        let (pool, client) = try userPool()
        var parameters: [String: JSONValue] = ["REFRESH_TOKEN": .string(user.tokens.refreshToken)]
        if let hash = secretHash(user.username) { parameters["SECRET_HASH"] = .string(hash) }
        let output = try await client.call(
            "InitiateAuth",
            [
                "AuthFlow": "REFRESH_TOKEN_AUTH",
                "ClientId": .string(pool.appClientId),
                "AuthParameters": .object(parameters),
            ]
        )
        guard let result = output["AuthenticationResult"] else {
            throw .service("REFRESH_TOKEN_AUTH answered no AuthenticationResult.", "Sign in again.")
        }
        let tokens = try tokens(from: result, refreshToken: user.tokens.refreshToken)
        guard generation == started else { return }
        var new = session
        new.user?.tokens = tokens
        try commit(new)
    }

    private func refreshCredentials(generation started: Int) async throws(AuthError) {
        guard let identityPool = configuration.identityPool, let client = identityClient else { return }
        var logins: [String: JSONValue] = [:]
        if let user = session.user {
            let issuer = JWTClaims.of(user.tokens.idToken)?["iss"]?.stringValue
            // The issuer without its scheme, as Cognito keys logins (an `http://` issuer is a local pool's).
            let provider =
                issuer.map { issuer in issuer.range(of: "://").map { String(issuer[$0.upperBound...]) } ?? issuer }
                ?? configuration.userPool?.providerName ?? ""
            logins[provider] = .string(user.tokens.idToken)
        }
        let authenticated = session.user != nil
        var identityId = session.identityId
        if identityId == nil || session.identityIsAuthenticated != authenticated {
            var input: [String: JSONValue] = ["IdentityPoolId": .string(identityPool.poolId)]
            if !logins.isEmpty { input["Logins"] = .object(logins) }
            let output = try await client.call("GetId", input)
            guard let id = output["IdentityId"]?.stringValue else {
                throw .service("GetId answered no IdentityId.", "Check the identity pool id in the configuration.")
            }
            identityId = id
        }
        guard let identityId else { return }
        var input: [String: JSONValue] = ["IdentityId": .string(identityId)]
        if !logins.isEmpty { input["Logins"] = .object(logins) }
        let output = try await client.call("GetCredentialsForIdentity", input)
        guard let credentials = output["Credentials"], let accessKeyId = credentials["AccessKeyId"]?.stringValue,
            let secretKey = credentials["SecretKey"]?.stringValue
        else {
            throw .service(
                "GetCredentialsForIdentity answered no Credentials.",
                "Check that the identity pool's roles can be assumed."
            )
        }
        guard generation == started else { return }
        var new = session
        new.identityId = identityId
        new.identityIsAuthenticated = authenticated
        new.credentials = CognitoSessionData.Credentials(
            accessKeyId: accessKeyId,
            secretAccessKey: secretKey,
            sessionToken: credentials["SessionToken"]?.stringValue,
            expiration: credentials["Expiration"]?.doubleValue.map { Date(timeIntervalSince1970: $0) },
            isAuthenticated: authenticated
        )
        try commit(new)
    }

    private func makeSession() -> AWSAuthCognitoSession {
        let signedOut = AuthError.signedOut(
            "There is no user signed in.",
            "Call Amplify.Auth.signIn(username:password:) first."
        )
        let expired = AuthError.sessionExpired(
            "The session expired: the refresh token was refused.",
            "Sign in again with Amplify.Auth.signIn(username:password:)."
        )
        let tokens: Result<AWSCognitoUserPoolTokens, AuthError>
        let sub: Result<String, AuthError>
        if let user = session.user {
            tokens = isExpired ? .failure(expired) : .success(user.tokens)
            sub = .success(user.userId)
        } else {
            tokens = .failure(configuration.userPool == nil ? Self.noUserPool : signedOut)
            sub = .failure(signedOut)
        }
        let identityId: Result<String, AuthError>
        let credentials: Result<AWSCredentials, AuthError>
        if configuration.identityPool == nil {
            identityId = .failure(Self.noIdentityPool)
            credentials = .failure(Self.noIdentityPool)
        } else if session.user != nil, isExpired {
            identityId = .failure(expired)
            credentials = .failure(expired)
        } else if let identityError {
            identityId = session.identityId.map { .success($0) } ?? .failure(identityError)
            credentials = .failure(identityError)
        } else if let id = session.identityId, let stored = session.credentials {
            identityId = .success(id)
            credentials = .success(stored.awsCredentials)
        } else {
            let unknown = AuthError.unknown("The identity pool gave no credentials.", nil)
            identityId = .failure(unknown)
            credentials = .failure(unknown)
        }
        return AWSAuthCognitoSession(
            isSignedIn: session.user != nil,
            userSubResult: sub,
            identityIdResult: identityId,
            awsCredentialsResult: credentials,
            userPoolTokensResult: tokens
        )
    }

    static let noUserPool = AuthError.configuration(
        "The Auth plugin has no user pool.",
        "Add CognitoUserPool.Default to auth.plugins.awsCognitoAuthPlugin."
    )
    static let noIdentityPool = AuthError.configuration(
        "The Auth plugin has no identity pool, so it has no AWS credentials.",
        "Add CredentialsProvider.CognitoIdentity.Default to auth.plugins.awsCognitoAuthPlugin."
    )

    // MARK: - Signed-in user

    /// A valid access token of the signed-in user, refreshed if needed.
    func accessToken() async throws(AuthError) -> String {
        guard session.user != nil else {
            throw .signedOut("There is no user signed in.", "Call Amplify.Auth.signIn(username:password:) first.")
        }
        return try await fetchSession(force: false).getUserPoolTokens().get().accessToken
    }

    func currentUser() throws(AuthError) -> AWSAuthUser {
        guard let user = session.user else {
            throw .signedOut("There is no user signed in.", "Call Amplify.Auth.signIn(username:password:) first.")
        }
        return AWSAuthUser(username: user.username, userId: user.userId)
    }

    func signOut(global: Bool) async -> AWSCognitoSignOutResult {
        let previous = session
        pending = nil
        refresh = nil
        generation += 1
        var globalError: AuthError?
        var revokeError: AuthError?
        if let user = previous.user, let pool = configuration.userPool, let client = userPoolClient {
            if global {
                do {
                    _ = try await client.call("GlobalSignOut", ["AccessToken": .string(user.tokens.accessToken)])
                } catch {
                    globalError = error
                }
            }
            if globalError == nil {
                var input: [String: JSONValue] = [
                    "Token": .string(user.tokens.refreshToken), "ClientId": .string(pool.appClientId),
                ]
                if let secret = pool.appClientSecret { input["ClientSecret"] = .string(secret) }
                do {
                    _ = try await client.call("RevokeToken", input)
                } catch {
                    revokeError = error
                }
            }
        }
        do {
            try commit(CognitoSessionData())
        } catch {
            return .failed(error)
        }
        isExpired = false
        identityError = nil
        if previous.user != nil {
            hub.dispatch(to: .auth, payload: HubPayload(eventName: HubPayload.EventName.Auth.signedOut))
        }
        if globalError != nil || revokeError != nil {
            return .partial(revokeTokenError: revokeError, globalSignOutError: globalError)
        }
        return .complete
    }

    /// Forgets the session of a user whose account was deleted, and tells the hub.
    func forgetDeletedUser() throws(AuthError) {
        pending = nil
        refresh = nil
        generation += 1
        isExpired = false
        identityError = nil
        try commit(CognitoSessionData())
        hub.dispatch(to: .auth, payload: HubPayload(eventName: HubPayload.EventName.Auth.userDeleted))
    }

    static func delivery(_ details: JSONValue?) -> AuthCodeDeliveryDetails? {
        guard let details else { return nil }
        let destination = details["Destination"]?.stringValue
        let key = details["AttributeName"]?.stringValue.map(AuthUserAttributeKey.init(rawValue:))
        switch details["DeliveryMedium"]?.stringValue {
        case "EMAIL": return AuthCodeDeliveryDetails(destination: .email(destination), attributeKey: key)
        case "SMS": return AuthCodeDeliveryDetails(destination: .sms(destination), attributeKey: key)
        case "PHONE": return AuthCodeDeliveryDetails(destination: .phone(destination), attributeKey: key)
        default: return AuthCodeDeliveryDetails(destination: .unknown(destination), attributeKey: key)
        }
    }
}
