import Foundation
import StratusServer

extension CognitoUserPool {
    /// The pool an administrator's call names, which must be this one.
    private func checkPool(_ input: CognitoInput) throws -> String {
        let poolId = try input.string("UserPoolId")
        guard poolId == configuration.userPoolId else {
            throw CognitoError("ResourceNotFoundException", "User pool \(poolId) does not exist.")
        }
        return poolId
    }

    /// `AdminCreateUser`: a user with a temporary password (logged when none is given), who
    /// must choose a new one at the first sign-in.
    func adminCreateUser(_ input: CognitoInput) async throws -> JSONObject {
        _ = try checkPool(input)
        let username = try input.string("Username")
        let attributes = try Self.attributes(input["UserAttributes"])
        let given = try input.optionalString("TemporaryPassword")
        let temporary = given ?? Self.temporaryPassword()
        let user = try await createUser(
            username: username,
            password: temporary,
            attributes: attributes,
            status: .forceChangePassword,
            by: .administrator
        )
        if given == nil { log("Cognito: the temporary password of '\(username)' is \(temporary)") }
        return ["User": .object(Self.summary(of: user, attributesKey: "Attributes"))]
    }

    /// `AdminSetUserPassword`: a permanent password, or a temporary one to be changed at the
    /// next sign-in.
    func adminSetUserPassword(_ input: CognitoInput) async throws -> JSONObject {
        _ = try checkPool(input)
        let username = try input.string("Username")
        let password = try input.string("Password")
        let user = try await serially { try await self.user(username) }
        let record = try await passwordRecord(password, username: user.username)
        try await serially {
            var user = try await self.user(username)
            user.password = record
            user.modified = self.clock()
            user.status = input["Permanent"]?.boolValue == true ? .confirmed : .forceChangePassword
            try await self.store.write(user)
        }
        return [:]
    }

    /// The administrator's other operations, which `stratus users` calls as well; run within
    /// ``serially(_:)``.
    func admin(_ operation: String, _ input: CognitoInput) async throws -> JSONObject {
        let poolId = try checkPool(input)
        if Self.groupOperations.contains(operation) { return try await groupOperation(operation, input) }
        if operation == "ListUsers" {
            return [
                "Users": .array(
                    try await store.all(CognitoUser.self).map {
                        .object(Self.summary(of: $0, attributesKey: "Attributes"))
                    }
                )
            ]
        }
        let username = try input.string("Username")
        switch operation {
        case "AdminConfirmSignUp":
            var user = try await self.user(username)
            guard user.status == .unconfirmed else {
                throw CognitoError.notAuthorized("User cannot be confirmed. Current status is \(user.status.rawValue)")
            }
            user.status = .confirmed
            user.modified = clock()
            try await store.write(user)
            try await store.delete(CognitoCode.self, CognitoCode.key(user.username, .signUp))
            return [:]
        case "AdminAddUserToGroup", "AdminRemoveUserFromGroup":
            let group = try input.string("GroupName")
            guard try await self.group(named: group) != nil else { throw CognitoError.groupNotFound }
            var user = try await self.user(username)
            user.groups.removeAll { $0 == group }
            if operation == "AdminAddUserToGroup" { user.groups.append(group) }
            user.modified = clock()
            try await store.write(user)
            return [:]
        case "AdminListGroupsForUser":
            let user = try await self.user(username)
            var groups: [JSON] = []
            for name in user.groups {
                groups.append(
                    try await group(named: name).map { .object(describe($0)) }
                        ?? .object(["GroupName": .string(name), "UserPoolId": .string(poolId)])
                )
            }
            return ["Groups": .array(groups)]
        case "AdminDeleteUser":
            var user = try await self.user(username)
            try await signOutEverywhere(&user)
            try await store.delete(CognitoUser.self, user.username)
            try await store.delete(CognitoCode.self, CognitoCode.key(user.username, .signUp))
            try await store.delete(CognitoCode.self, CognitoCode.key(user.username, .forgotPassword))
            return [:]
        case "AdminGetUser":
            let user = try await self.user(username)
            return Self.summary(of: user, attributesKey: "UserAttributes")
        case "AdminDisableUser", "AdminEnableUser":
            // A disabled user cannot sign in, and the tokens it holds are revoked.
            var user = try await self.user(username)
            user.enabled = operation == "AdminEnableUser"
            if !user.enabled { try await signOutEverywhere(&user) }
            user.modified = clock()
            try await store.write(user)
            return [:]
        case "AdminUserGlobalSignOut":
            var user = try await self.user(username)
            try await signOutEverywhere(&user)
            return [:]
        case "AdminUpdateUserAttributes":
            return try await adminUpdateUserAttributes(username, input)
        default:
            throw CognitoError.unknownOperation("AWSCognitoIdentityProviderService.\(operation)")
        }
    }

    /// `AdminUpdateUserAttributes`: any attribute of the schema but `sub`, the verification flags
    /// included. A new email or phone number is unverified, with a code sent to it, unless the
    /// call sets its flag too.
    private func adminUpdateUserAttributes(_ username: String, _ input: CognitoInput) async throws -> JSONObject {
        var user = try await self.user(username)
        guard input["UserAttributes"] != nil else { throw CognitoError.missing("UserAttributes") }
        let attributes = try Self.attributes(input["UserAttributes"])
        try Self.checkWritable(attributes, .administrator)
        try Self.checkCustomCount(before: user.attributes, after: user.attributes.merging(attributes) { $1 })
        try await checkSignInNamesFree(attributes, for: user.username)
        for attribute in Self.apply(attributes, to: &user) {
            _ = try await issueVerificationCode(for: user, attribute: attribute)
        }
        user.modified = clock()
        try await store.write(user)
        return [:]
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
        /// Whether the user may sign in (`AdminDisableUser` clears it).
        public var enabled: Bool
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
    ) async throws(ServerError) {
        // Not within `serially`: the creation hashes the password between sections of its own.
        try await command(serially: false) {
            _ = try await self.createUser(
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
    public func listUsers() async throws(ServerError) -> [UserSummary] {
        try await command {
            try await self.store.all(CognitoUser.self).map {
                UserSummary(
                    username: $0.username,
                    sub: $0.sub,
                    status: $0.status.rawValue,
                    groups: $0.groups,
                    attributes: $0.attributes,
                    enabled: $0.enabled
                )
            }
        }
    }

    /// Confirms an unconfirmed user, as `AdminConfirmSignUp` does.
    ///
    /// - Throws: ``ServerError`` when there is no such user or it is confirmed already.
    public func confirmUser(_ username: String) async throws(ServerError) {
        let input = adminInput(username)
        try await command { _ = try await self.admin("AdminConfirmSignUp", input) }
    }

    /// Deletes a user and revokes its tokens.
    ///
    /// - Throws: ``ServerError`` when there is no such user.
    public func deleteUser(_ username: String) async throws(ServerError) {
        let input = adminInput(username)
        try await command { _ = try await self.admin("AdminDeleteUser", input) }
    }

    /// Adds a user to a configured group, or removes it from one.
    ///
    /// - Throws: ``ServerError`` when there is no such user or group.
    public func setGroup(_ group: String, of username: String, member: Bool) async throws(ServerError) {
        var object = adminInput(username).object
        object["GroupName"] = .string(group)
        let input = CognitoInput(object)
        let operation = member ? "AdminAddUserToGroup" : "AdminRemoveUserFromGroup"
        try await command { _ = try await self.admin(operation, input) }
    }

    /// Creates the group `name` unless the pool has it, as `CreateGroup` does.
    ///
    /// - Returns: whether the group was created.
    /// - Throws: ``ServerError`` for a name Cognito refuses, or when the pool's state cannot be
    ///   read or written.
    @discardableResult
    public func createGroupIfMissing(_ name: String) async throws(ServerError) -> Bool {
        let input = CognitoInput(["GroupName": .string(name)])
        return try await command {
            guard try await self.group(named: name) == nil else { return false }
            _ = try await self.groupOperation("CreateGroup", input)
            return true
        }
    }

    // The same, for synchronous callers such as a command's `run()`: each blocks the calling
    // thread until the operation has run on the pool's thread.

    /// Adds a confirmed user with a permanent password, blocking the calling thread.
    ///
    /// - Throws: ``ServerError`` naming the problem: the username taken, the password refused by
    ///   the policy, an unknown group.
    public func addUser(
        username: String,
        password: String,
        attributes: [String: String] = [:],
        groups: [String] = []
    ) throws(ServerError) {
        try Self.waiting { () async throws(ServerError) in
            try await self.addUser(username: username, password: password, attributes: attributes, groups: groups)
        }
    }

    /// Every user of the pool, by username, blocking the calling thread.
    ///
    /// - Throws: ``ServerError`` when the pool's state cannot be read.
    public func listUsers() throws(ServerError) -> [UserSummary] {
        try Self.waiting { () async throws(ServerError) in try await self.listUsers() }
    }

    /// Confirms an unconfirmed user, blocking the calling thread.
    ///
    /// - Throws: ``ServerError`` when there is no such user or it is confirmed already.
    public func confirmUser(_ username: String) throws(ServerError) {
        try Self.waiting { () async throws(ServerError) in try await self.confirmUser(username) }
    }

    /// Deletes a user and revokes its tokens, blocking the calling thread.
    ///
    /// - Throws: ``ServerError`` when there is no such user.
    public func deleteUser(_ username: String) throws(ServerError) {
        try Self.waiting { () async throws(ServerError) in try await self.deleteUser(username) }
    }

    /// Adds a user to a configured group, or removes it from one, blocking the calling thread.
    ///
    /// - Throws: ``ServerError`` when there is no such user or group.
    public func setGroup(_ group: String, of username: String, member: Bool) throws(ServerError) {
        try Self.waiting { () async throws(ServerError) in try await self.setGroup(group, of: username, member: member)
        }
    }

    private func adminInput(_ username: String) -> CognitoInput {
        CognitoInput(["UserPoolId": .string(configuration.userPoolId), "Username": .string(username)])
    }

    private func command<T: Sendable>(
        serially isSerial: Bool = true,
        _ body: @escaping @Sendable () async throws -> T
    ) async throws(ServerError) -> T {
        do {
            return isSerial ? try await serially(body) : try await body()
        } catch let error as CognitoError {
            throw ServerError.cognito(error.description)
        } catch {
            throw ServerError.cognito("The user pool's state cannot be read or written: \(error)")
        }
    }
}
