import Foundation
import StratusServer

extension CognitoUserPool {
    /// `SignUp`: a new user, unconfirmed (with a code logged) unless the pool auto-confirms.
    func signUp(_ input: CognitoInput) async throws -> JSONObject {
        let username = try input.string("Username")
        _ = try client(input, username: username, secretHash: try input.optionalString("SecretHash"))
        let password = try input.string("Password")
        let attributes = try Self.attributes(input["UserAttributes"])
        let status: CognitoUser.Status = configuration.autoConfirmsSignUp ? .confirmed : .unconfirmed
        let user = try await createUser(
            username: username,
            password: password,
            attributes: attributes,
            status: status,
            by: .signUp
        )
        var output: JSONObject = ["UserConfirmed": .bool(status == .confirmed), "UserSub": .string(user.sub)]
        if status == .unconfirmed {
            let details = try await serially { try await self.issueCode(for: user, purpose: .signUp) }
            for (name, value) in details { output[name] = value }
        }
        return output
    }

    /// `ConfirmSignUp`: the code logged at sign-up confirms the user. A name nobody has gets
    /// the answer a wrong code gets.
    func confirmSignUp(_ input: CognitoInput) async throws -> JSONObject {
        let username = try input.string("Username")
        _ = try client(input, username: username, secretHash: try input.optionalString("SecretHash"))
        let code = try input.string("ConfirmationCode")
        guard var user = try await existingUser(username) else { throw CognitoError.codeMismatch }
        guard user.status == .unconfirmed else {
            throw CognitoError.notAuthorized("User cannot be confirmed. Current status is \(user.status.rawValue)")
        }
        try await checkCode(code, for: user.username, purpose: .signUp, consuming: true)
        user.status = .confirmed
        user.modified = clock()
        try await store.write(user)
        return [:]
    }

    /// `ResendConfirmationCode`: a new code for an unconfirmed user. A name nobody has gets the
    /// answer a user's request gets.
    func resendConfirmationCode(_ input: CognitoInput) async throws -> JSONObject {
        let username = try input.string("Username")
        _ = try client(input, username: username, secretHash: try input.optionalString("SecretHash"))
        guard let user = try await existingUser(username) else { return deliveryDetails(ofUnknown: username) }
        guard user.status == .unconfirmed else {
            throw CognitoError.invalidParameter("User is already confirmed.")
        }
        return try await issueCode(for: user, purpose: .signUp)
    }

    /// `GetUser`: the signed-in user's name and attributes.
    func getUser(_ input: CognitoInput) async throws -> JSONObject {
        let user = try await self.user(ofAccessToken: try input.string("AccessToken"))
        return ["Username": .string(user.username), "UserAttributes": Self.attributeList(of: user)]
    }

    /// `UpdateUserAttributes`: the signed-in user's attributes of the schema, `sub` and the
    /// verification flags excepted.
    func updateUserAttributes(_ input: CognitoInput) async throws -> JSONObject {
        var user = try await self.user(ofAccessToken: try input.string("AccessToken"))
        guard input["UserAttributes"] != nil else { throw CognitoError.missing("UserAttributes") }
        let attributes = try Self.attributes(input["UserAttributes"])
        try Self.checkWritable(attributes, .update)
        for (name, value) in attributes { user.attributes[name] = value }
        user.modified = clock()
        try await store.write(user)
        return ["CodeDeliveryDetailsList": .array([])]
    }

    /// `ChangePassword`: the signed-in user's password, given the current one.
    func changePassword(_ input: CognitoInput) async throws -> JSONObject {
        let token = try input.string("AccessToken")
        let previous = try input.string("PreviousPassword")
        let proposed = try input.string("ProposedPassword")
        let user = try await serially { try await self.user(ofAccessToken: token) }
        let current = user.password
        guard try await signIns.run({ try PasswordHash.matches(previous, current) }) else {
            throw CognitoError.incorrectPassword
        }
        let record = try await passwordRecord(proposed, username: user.username)
        try await serially {
            var user = try await self.user(ofAccessToken: token)
            // Changed meanwhile: the previous password given is no longer the current one.
            guard user.password == current else { throw CognitoError.incorrectPassword }
            user.password = record
            user.modified = self.clock()
            try await self.store.write(user)
        }
        return [:]
    }

    /// `ForgotPassword`: a reset code for the user, logged. A name nobody has gets the answer a
    /// user's request gets.
    func forgotPassword(_ input: CognitoInput) async throws -> JSONObject {
        let username = try input.string("Username")
        _ = try client(input, username: username, secretHash: try input.optionalString("SecretHash"))
        guard let user = try await existingUser(username) else { return deliveryDetails(ofUnknown: username) }
        return try await issueCode(for: user, purpose: .forgotPassword)
    }

    /// `ConfirmForgotPassword`: the reset code sets a new password and confirms the user. A name
    /// nobody has gets the answer a wrong code gets.
    ///
    /// The code is checked before the new password is hashed (a wrong code costs no hashing),
    /// and consumed with the password's write.
    func confirmForgotPassword(_ input: CognitoInput) async throws -> JSONObject {
        let username = try input.string("Username")
        _ = try client(input, username: username, secretHash: try input.optionalString("SecretHash"))
        let code = try input.string("ConfirmationCode")
        let password = try input.string("Password")
        if let violation = configuration.passwordPolicy.violation(of: password) {
            throw CognitoError("InvalidPasswordException", violation)
        }
        let user = try await serially {
            guard let user = try await self.existingUser(username) else { throw CognitoError.codeMismatch }
            try await self.checkCode(code, for: user.username, purpose: .forgotPassword, consuming: false)
            return user
        }
        let record = try await passwordRecord(password, username: user.username)
        try await serially {
            guard var user = try await self.store.read(CognitoUser.self, user.username) else {
                throw CognitoError.codeMismatch
            }
            try await self.checkCode(code, for: user.username, purpose: .forgotPassword, consuming: true)
            user.password = record
            user.modified = self.clock()
            user.status = .confirmed
            try await self.store.write(user)
        }
        return [:]
    }

    /// `GlobalSignOut`: every token of the user issued so far is refused, refresh tokens
    /// included.
    func globalSignOut(_ input: CognitoInput) async throws -> JSONObject {
        var user = try await self.user(ofAccessToken: try input.string("AccessToken"))
        try await signOutEverywhere(&user)
        return [:]
    }

    func signOutEverywhere(_ user: inout CognitoUser) async throws {
        // Tokens carry whole seconds: those of this second are refused too.
        user.tokensValidAfter = Date(timeIntervalSince1970: clock().timeIntervalSince1970.rounded(.down) + 1)
        try await store.write(user)
        for var record in try await store.all(RefreshTokenRecord.self)
        where record.username == user.username && !record.revoked {
            record.revoked = true
            try await store.write(record)
        }
    }

    /// `RevokeToken`: a refresh token, and the tokens issued with it.
    func revokeToken(_ input: CognitoInput) async throws -> JSONObject {
        let token = try input.string("Token")
        let clientId = try input.string("ClientId")
        guard let client = configuration.clients.first(where: { $0.clientId == clientId }) else {
            throw CognitoError.unknownClient(clientId)
        }
        if let secret = client.clientSecret, try input.optionalString("ClientSecret") != secret {
            throw CognitoError.notAuthorized("Client secret is not valid for client \(clientId)")
        }
        guard var record = try await store.read(RefreshTokenRecord.self, Self.hash(of: token)) else {
            throw CognitoError("UnsupportedTokenTypeException", "The token is not a refresh token of this pool.")
        }
        guard record.clientId == clientId else {
            throw CognitoError("UnauthorizedException", "The token was not issued to client \(clientId).")
        }
        record.revoked = true
        try await store.write(record)
        try await store.write(RevokedOrigin(originJti: record.originJti))
        return [:]
    }
}
