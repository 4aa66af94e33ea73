import Foundation
import StratusServer

extension CognitoUserPool {
    /// `SignUp`: a new user, unconfirmed (with a code logged) unless the pool auto-confirms.
    func signUp(_ input: CognitoInput) async throws -> JSONObject {
        let username = try input.string("Username")
        let client = try client(input, username: username, secretHash: try input.optionalString("SecretHash"))
        let password = try input.string("Password")
        let attributes = try Self.attributes(input["UserAttributes"])
        try Self.checkWritable(attributes, .signUp)
        try Self.checkClientWrites(attributes, client: client)
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

    /// `ConfirmSignUp`: the code logged at sign-up confirms the user. A name nobody has, and a
    /// user who is not waiting for confirmation, get the answer a wrong code gets: Cognito tells
    /// a confirmed user by its status, which lets anyone list who has an account.
    func confirmSignUp(_ input: CognitoInput) async throws -> JSONObject {
        let username = try input.string("Username")
        _ = try client(input, username: username, secretHash: try input.optionalString("SecretHash"))
        let code = try input.string("ConfirmationCode")
        guard var user = try await existingUser(username), user.status == .unconfirmed else {
            throw standInWrongAnswer(for: username, purpose: .signUp)
        }
        try await checkCode(code, for: user.username, purpose: .signUp, consuming: true)
        user.status = .confirmed
        user.modified = clock()
        try await store.write(user)
        return [:]
    }

    /// `ResendConfirmationCode`: a new code for an unconfirmed user. A name nobody has, and a
    /// confirmed user, get the answer an unconfirmed user's request gets, and the same limit.
    func resendConfirmationCode(_ input: CognitoInput) async throws -> JSONObject {
        let username = try input.string("Username")
        _ = try client(input, username: username, secretHash: try input.optionalString("SecretHash"))
        guard let user = try await existingUser(username) else {
            try countStandInCode(for: username, purpose: .signUp)
            return try await deliveryDetails(ofUnknown: username)
        }
        // A confirmed user is answered as a name nobody has, with no code: Cognito with
        // PreventUserExistenceErrors answers it without an error too.
        guard user.status == .unconfirmed else {
            try countStandInCode(for: username, purpose: .signUp)
            return try await deliveryDetails(of: user)
        }
        return try await issueCode(for: user, purpose: .signUp)
    }

    /// `GetUser`: the signed-in user's name and the attributes its app client reads.
    func getUser(_ input: CognitoInput) async throws -> JSONObject {
        let token = try input.string("AccessToken")
        let user = try await self.user(ofAccessToken: token)
        return [
            "Username": .string(user.username),
            "UserAttributes": Self.attributeList(of: user, readBy: client(ofAccessToken: token)),
        ]
    }

    /// `UpdateUserAttributes`: the signed-in user's attributes of the schema that its app client
    /// writes, `sub` and the verification flags excepted. A new email or phone number is
    /// unverified, and a code is sent to it (``verifyUserAttribute(_:)``).
    func updateUserAttributes(_ input: CognitoInput) async throws -> JSONObject {
        let token = try input.string("AccessToken")
        var user = try await self.user(ofAccessToken: token)
        guard input["UserAttributes"] != nil else { throw CognitoError.missing("UserAttributes") }
        let attributes = try Self.attributes(input["UserAttributes"])
        try Self.checkWritable(attributes, .update)
        try Self.checkClientWrites(attributes, client: client(ofAccessToken: token))
        try Self.checkCustomCount(before: user.attributes, after: user.attributes.merging(attributes) { $1 })
        try await checkSignInNamesFree(attributes, for: user.username)
        let unverified = Self.apply(attributes, to: &user)
        var deliveries: [JSON] = []
        for attribute in unverified {
            deliveries.append(try await issueVerificationCode(for: user, attribute: attribute))
        }
        user.modified = clock()
        try await store.write(user)
        return ["CodeDeliveryDetailsList": .array(deliveries)]
    }

    /// `GetUserAttributeVerificationCode`: a new code verifying the signed-in user's `email` or
    /// `phone_number`.
    func getUserAttributeVerificationCode(_ input: CognitoInput) async throws -> JSONObject {
        let user = try await self.user(ofAccessToken: try input.string("AccessToken"))
        let attribute = try input.string("AttributeName")
        return ["CodeDeliveryDetails": try await issueVerificationCode(for: user, attribute: attribute)]
    }

    /// `VerifyUserAttribute`: the code sent to the signed-in user's `email` or `phone_number`
    /// verifies it (sets `email_verified` or `phone_number_verified`). A code verifies only the
    /// value it was sent to.
    func verifyUserAttribute(_ input: CognitoInput) async throws -> JSONObject {
        var user = try await self.user(ofAccessToken: try input.string("AccessToken"))
        let attribute = try input.string("AttributeName")
        let code = try input.string("Code")
        let purpose = try Self.verificationPurpose(of: attribute)
        guard let waiting = try await store.read(CognitoCode.self, CognitoCode.key(user.username, purpose)),
            let value = user.attributes[attribute], waiting.value == value
        else { throw CognitoError.codeMismatch }
        try await checkCode(code, for: user.username, purpose: purpose, consuming: true)
        user.attributes[attribute + "_verified"] = "true"
        user.modified = clock()
        try await store.write(user)
        return [:]
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
    /// user's request gets, and the same limit.
    func forgotPassword(_ input: CognitoInput) async throws -> JSONObject {
        let username = try input.string("Username")
        _ = try client(input, username: username, secretHash: try input.optionalString("SecretHash"))
        guard let user = try await existingUser(username) else {
            try countStandInCode(for: username, purpose: .forgotPassword)
            return try await deliveryDetails(ofUnknown: username)
        }
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
            guard let user = try await self.existingUser(username) else {
                throw self.standInWrongAnswer(for: username, purpose: .forgotPassword)
            }
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
