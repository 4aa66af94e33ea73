import Foundation

extension CognitoUserPool {
    /// The administrator's operations, which `stratus users` calls as well.
    func admin(_ operation: String, _ input: CognitoInput) throws -> JSONObject {
        let poolId = try input.string("UserPoolId")
        guard poolId == configuration.userPoolId else {
            throw CognitoError("ResourceNotFoundException", "User pool \(poolId) does not exist.")
        }
        if Self.groupOperations.contains(operation) { return try groupOperation(operation, input) }
        if operation == "ListUsers" {
            return [
                "Users": .array(
                    try store.all(CognitoUser.self).map { .object(Self.summary(of: $0, attributesKey: "Attributes")) }
                )
            ]
        }
        let username = try input.string("Username")
        switch operation {
        case "AdminCreateUser":
            let attributes = try Self.attributes(input["UserAttributes"])
            let temporary = try input.optionalString("TemporaryPassword") ?? Self.temporaryPassword()
            let user = try createUser(
                username: username,
                password: temporary,
                attributes: attributes,
                status: .forceChangePassword
            )
            if try input.optionalString("TemporaryPassword") == nil {
                log("Cognito: the temporary password of '\(username)' is \(temporary)")
            }
            return ["User": .object(Self.summary(of: user, attributesKey: "Attributes"))]
        case "AdminSetUserPassword":
            var user = try self.user(username)
            try setPassword(try input.string("Password"), of: &user)
            user.status = input["Permanent"]?.boolValue == true ? .confirmed : .forceChangePassword
            try store.write(user)
            return [:]
        case "AdminConfirmSignUp":
            var user = try self.user(username)
            guard user.status == .unconfirmed else {
                throw CognitoError.notAuthorized("User cannot be confirmed. Current status is \(user.status.rawValue)")
            }
            user.status = .confirmed
            user.modified = clock()
            try store.write(user)
            try store.delete(CognitoCode.self, CognitoCode.key(username, .signUp))
            return [:]
        case "AdminAddUserToGroup", "AdminRemoveUserFromGroup":
            let group = try input.string("GroupName")
            guard try self.group(named: group) != nil else { throw CognitoError.groupNotFound }
            var user = try self.user(username)
            user.groups.removeAll { $0 == group }
            if operation == "AdminAddUserToGroup" { user.groups.append(group) }
            user.modified = clock()
            try store.write(user)
            return [:]
        case "AdminListGroupsForUser":
            let user = try self.user(username)
            return [
                "Groups": .array(
                    try user.groups.map { name in
                        try group(named: name).map { .object(describe($0)) }
                            ?? .object(["GroupName": .string(name), "UserPoolId": .string(poolId)])
                    }
                )
            ]
        case "AdminDeleteUser":
            var user = try self.user(username)
            try signOutEverywhere(&user)
            try store.delete(CognitoUser.self, username)
            try store.delete(CognitoCode.self, CognitoCode.key(username, .signUp))
            try store.delete(CognitoCode.self, CognitoCode.key(username, .forgotPassword))
            return [:]
        case "AdminGetUser":
            let user = try self.user(username)
            return Self.summary(of: user, attributesKey: "UserAttributes")
        case "AdminUserGlobalSignOut":
            var user = try self.user(username)
            try signOutEverywhere(&user)
            return [:]
        default:
            throw CognitoError.unknownOperation("AWSCognitoIdentityProviderService.\(operation)")
        }
    }

    /// A user as `ListUsers` and `AdminCreateUser` describe one.
    static func summary(of user: CognitoUser, attributesKey: String) -> JSONObject {
        [
            "Username": .string(user.username),
            attributesKey: attributeList(of: user),
            "UserCreateDate": .double(user.created.timeIntervalSince1970),
            "UserLastModifiedDate": .double(user.modified.timeIntervalSince1970),
            "Enabled": .bool(user.enabled),
            "UserStatus": .string(user.status.rawValue),
        ]
    }

    private static func temporaryPassword() -> String {
        "Tmp-" + PasswordHash.randomBytes(9).base64EncodedString().replacingOccurrences(of: "/", with: "_") + "1a!"
    }

    // MARK: - For the command line

    /// One user as `stratus users list` shows it.
    public struct UserSummary: Sendable, Hashable {
        /// The name the user signs in with.
        public var username: String
        /// The user's immutable id, the `sub` of its tokens.
        public var sub: String
        /// Cognito's status: `UNCONFIRMED`, `CONFIRMED`, `FORCE_CHANGE_PASSWORD` or `RESET_REQUIRED`.
        public var status: String
        /// The groups the user is in.
        public var groups: [String]
        /// The user's attributes other than `sub`.
        public var attributes: [String: String]
    }

    /// Adds a confirmed user with a permanent password.
    ///
    /// - Throws: ``ServerError`` naming the problem: the username taken, the password refused by
    ///   the policy, an unknown group.
    public func addUser(
        username: String,
        password: String,
        attributes: [String: String] = [:],
        groups: [String] = []
    ) throws(ServerError) {
        try command {
            _ = try createUser(
                username: username,
                password: password,
                attributes: attributes,
                status: .confirmed,
                groups: groups
            )
        }
    }

    /// Every user of the pool, by username.
    ///
    /// - Throws: ``ServerError`` when the pool's state cannot be read.
    public func listUsers() throws(ServerError) -> [UserSummary] {
        try command {
            try store.all(CognitoUser.self).map {
                UserSummary(
                    username: $0.username,
                    sub: $0.sub,
                    status: $0.status.rawValue,
                    groups: $0.groups,
                    attributes: $0.attributes
                )
            }
        }
    }

    /// Confirms an unconfirmed user, as `AdminConfirmSignUp` does.
    ///
    /// - Throws: ``ServerError`` when there is no such user or it is confirmed already.
    public func confirmUser(_ username: String) throws(ServerError) {
        try command { _ = try admin("AdminConfirmSignUp", adminInput(username)) }
    }

    /// Deletes a user and revokes its tokens.
    ///
    /// - Throws: ``ServerError`` when there is no such user.
    public func deleteUser(_ username: String) throws(ServerError) {
        try command { _ = try admin("AdminDeleteUser", adminInput(username)) }
    }

    /// Adds a user to a configured group, or removes it from one.
    ///
    /// - Throws: ``ServerError`` when there is no such user or group.
    public func setGroup(_ group: String, of username: String, member: Bool) throws(ServerError) {
        var input = adminInput(username).object
        input["GroupName"] = .string(group)
        let operation = member ? "AdminAddUserToGroup" : "AdminRemoveUserFromGroup"
        try command { _ = try admin(operation, CognitoInput(input)) }
    }

    private func adminInput(_ username: String) -> CognitoInput {
        CognitoInput(["UserPoolId": .string(configuration.userPoolId), "Username": .string(username)])
    }

    private func command<T>(_ body: () throws -> T) throws(ServerError) -> T {
        do {
            return try body()
        } catch let error as CognitoError {
            throw ServerError.cognito(error.description)
        } catch {
            throw ServerError.cognito("The user pool's state cannot be read or written: \(error)")
        }
    }
}
