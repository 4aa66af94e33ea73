import AWSWire
import BigInt
import Crypto
import Foundation
import StratusServer
import Synchronization
import _CryptoExtras

/// A Cognito user pool (and its identity pool) served locally: the JSON protocol of
/// `AWSCognitoIdentityProviderService` and `AWSCognitoIdentityService`, RS256 tokens with a
/// JWKS, and users kept in the data directory.
///
/// `stratus serve --auth` runs one on the API's port; tests and tools make one directly:
///
/// ```swift
/// let pool = try await CognitoUserPool(configuration: CognitoConfiguration(), dataDirectory: directory)
/// try await pool.addUser(username: "alice", password: "Secret-pass1!")
/// ```
///
/// No password is stored: only its SRP verifier and a scrypt hash. Confirmation codes are
/// logged, since no message leaves the machine, and kept with the users.
///
/// The pool's reads and writes of its records run one operation at a time, on a thread of their
/// own (``CognitoThread/shared``): each reads, checks and writes its records without another
/// operation of the pool in between. Password hashing and SRP run outside that section, in two
/// bounded lanes (``PasswordLane``), so that a burst of sign-ups delays neither sign-ins nor the
/// records.
public final class CognitoUserPool: Sendable {
    /// The pool's configuration.
    public let configuration: CognitoConfiguration
    let store: any CognitoStore
    let signingKey: CognitoSigningKey
    /// The credentials that sign the administrator's calls (`AdminCreateUser`, `ListUsers`, …)
    /// when the server has no IAM credentials of its own: made once, kept with the pool's state.
    public let administratorCredentials: IAMCredential
    let clock: @Sendable () -> Date
    let log: @Sendable (String) -> Void
    let codeGenerator: @Sendable () -> String

    /// The SRP exchanges and new-password challenges waiting for an answer, by secret block or
    /// session.
    let pending = Mutex<[String: PendingChallenge]>([:])
    /// Failed sign-ins per user and client address (see ``CognitoConfiguration/maxFailedSignIns``).
    let failures = Mutex<[SignInAttempt: SignInFailures]>([:])
    /// When codes were asked for names without codes of their own, by `<purpose>/<name>`
    /// (``countStandInCode(for:purpose:)``).
    let standInCodes = Mutex<[String: [Date]]>([:])
    /// Wrong codes given for names without a code waiting, by `<purpose>/<name>`
    /// (``standInWrongAnswer(for:purpose:)``).
    let standInWrongAnswers = Mutex<[String: Int]>([:])
    /// The last codes the pool would have sent, oldest first (``sentCodes()``).
    let codesSent = Mutex<[SentCode]>([])
    private let origin = Mutex<String>("http://127.0.0.1:20002")
    /// Lets one operation at a time read and write the store.
    private let operations = AsyncGate(width: 1)
    /// Where the passwords users present are checked.
    let signIns: PasswordLane
    /// Where new passwords are hashed.
    let newPasswords: PasswordLane
    /// The limit of calls without credentials per client address, when the configuration sets one.
    let requestLimiter: ClientRateLimiter?

    /// Opens the pool's state in `dataDirectory` (`cognito.sqlite`), creating the signing key and
    /// the configured users the first time.
    ///
    /// It blocks the calling thread until the pool is set up: for synchronous callers, such as a
    /// command's `run()`. Async code calls the `async` form of this initializer.
    ///
    /// - Throws: ``ServerError`` when the state cannot be opened or the configured users cannot
    ///   be created (a password breaking the policy names the user).
    public convenience init(
        configuration: CognitoConfiguration,
        dataDirectory: URL,
        clock: @escaping @Sendable () -> Date = { Date() },
        log: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
    ) throws(ServerError) {
        let store = try Self.openStore(in: dataDirectory, log: log)
        let secrets = try Self.waiting { () async throws(ServerError) in try await Self.secrets(in: store) }
        self.init(configuration: configuration, store: store, secrets: secrets, clock: clock, log: log)
        try Self.waiting { () async throws(ServerError) in try await self.setUp() }
    }

    /// Opens the pool's state in `dataDirectory` (`cognito.sqlite`), creating the signing key and
    /// the configured users the first time.
    ///
    /// - Throws: ``ServerError`` when the state cannot be opened or the configured users cannot
    ///   be created (a password breaking the policy names the user).
    public convenience init(
        configuration: CognitoConfiguration,
        dataDirectory: URL,
        clock: @escaping @Sendable () -> Date = { Date() },
        log: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
    ) async throws(ServerError) {
        try await self.init(
            configuration: configuration,
            store: Self.openStore(in: dataDirectory, log: log),
            clock: clock,
            log: log
        )
    }

    /// A pool over `store`, creating the signing key and the configured users the first time;
    /// `codeGenerator` makes confirmation codes (six random digits by default), and the lanes'
    /// limits bound the password work (``PasswordLane``).
    ///
    /// - Throws: ``ServerError`` when the signing key or the configured users cannot be set up.
    package convenience init(
        configuration: CognitoConfiguration,
        store: any CognitoStore,
        clock: @escaping @Sendable () -> Date = { Date() },
        log: @escaping @Sendable (String) -> Void = { _ in },
        codeGenerator: @escaping @Sendable () -> String = { String(format: "%06d", Int.random(in: 0..<1_000_000)) },
        signIns: PasswordLane.Limits = .signIns,
        newPasswords: PasswordLane.Limits = .newPasswords
    ) async throws(ServerError) {
        // Servers sharing the store create one signing key, one administrator and the configured
        // users once.
        let secrets = try await Self.exclusively(store) { () async throws(ServerError) in
            try await Self.secrets(in: store)
        }
        self.init(
            configuration: configuration,
            store: store,
            secrets: secrets,
            clock: clock,
            log: log,
            codeGenerator: codeGenerator,
            signIns: signIns,
            newPasswords: newPasswords
        )
        try await Self.exclusively(store) { () async throws(ServerError) in try await self.setUp() }
    }

    /// Runs `body` under the store's lock (``CognitoStore/exclusively(_:)``).
    private static func exclusively<T: Sendable>(
        _ store: any CognitoStore,
        _ body: @Sendable () async throws(ServerError) -> T
    ) async throws(ServerError) -> T {
        do {
            return try await store.exclusively { try await body() }
        } catch let error as ServerError {
            throw error
        } catch {
            throw ServerError.cognito("The user pool's state cannot be locked for its setup: \(error)")
        }
    }

    private init(
        configuration: CognitoConfiguration,
        store: any CognitoStore,
        secrets: (signingKey: CognitoSigningKey, administrator: IAMCredential),
        clock: @escaping @Sendable () -> Date,
        log: @escaping @Sendable (String) -> Void,
        codeGenerator: @escaping @Sendable () -> String = { String(format: "%06d", Int.random(in: 0..<1_000_000)) },
        signIns: PasswordLane.Limits = .signIns,
        newPasswords: PasswordLane.Limits = .newPasswords
    ) {
        self.configuration = configuration
        self.signIns = PasswordLane(signIns)
        self.newPasswords = PasswordLane(newPasswords)
        requestLimiter = configuration.clientRequestLimit.map { ClientRateLimiter($0) }
        self.store = store
        self.signingKey = secrets.signingKey
        self.administratorCredentials = secrets.administrator
        self.clock = clock
        self.log = log
        self.codeGenerator = codeGenerator
        if let publicOrigin = configuration.publicOrigin {
            origin.withLock { $0 = publicOrigin }
        }
    }

    /// The pool's state in `dataDirectory` (`cognito.sqlite`), for
    /// ``init(configuration:store:clock:log:codeGenerator:)``; `log` hears which modes of the
    /// directory were narrowed.
    ///
    /// - Throws: ``ServerError`` when it cannot be opened.
    package static func store(
        in dataDirectory: URL,
        log: @escaping (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
    ) throws(ServerError) -> any CognitoStore {
        try openStore(in: dataDirectory, log: log)
    }

    /// The pool's state in the PostgreSQL database at `location` (the table `_stratus_cognito`
    /// that `stratus serve --database` uses), for
    /// ``init(configuration:store:clock:log:codeGenerator:)``.
    ///
    /// - Throws: ``ServerError`` when the database cannot be reached or migrated.
    package static func store(in location: PostgresLocation) async throws(ServerError) -> any CognitoStore {
        do {
            return try await PostgresCognitoStore.open(location)
        } catch {
            throw ServerError.cognito("The user pool's state in \(location) cannot be opened: \(error)")
        }
    }

    private static func openStore(
        in dataDirectory: URL,
        log: (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
    ) throws(ServerError) -> SQLiteCognitoStore {
        do {
            return try SQLiteCognitoStore(directory: dataDirectory, log: log)
        } catch {
            throw ServerError.cognito("The user pool's state in \(dataDirectory.path) cannot be opened: \(error)")
        }
    }

    private static func secrets(
        in store: any CognitoStore
    ) async throws(ServerError) -> (signingKey: CognitoSigningKey, administrator: IAMCredential) {
        let signingKey: CognitoSigningKey
        do {
            signingKey = try await CognitoThread.shared.run { try await CognitoSigningKey.load(from: store) }
        } catch {
            throw ServerError.cognito("The user pool's signing key cannot be loaded or created: \(error)")
        }
        do {
            return (signingKey, try await AdministratorRecord.load(from: store))
        } catch {
            throw ServerError.cognito("The user pool's administrator credentials cannot be loaded or created: \(error)")
        }
    }

    /// The value of `work`, on the pool's thread, while the calling thread waits.
    static func waiting<T: Sendable>(
        _ work: @escaping @Sendable () async throws(ServerError) -> T
    ) throws(ServerError) -> T {
        do {
            return try CognitoThread.shared.waiting { try await work() }
        } catch let error as ServerError {
            throw error
        } catch {
            preconditionFailure("The pool's work throws only ServerError, not \(error).")
        }
    }

    /// Stores the configured groups and creates the configured users the store lacks.
    private func setUp() async throws(ServerError) {
        do {
            try await serially { try await self.storeConfiguredGroups() }
        } catch {
            throw ServerError.cognito("The configured groups cannot be stored: \(error)")
        }
        do {
            try await serially { try await self.indexIdentityLogins() }
        } catch {
            throw ServerError.cognito("The identities' logins cannot be indexed: \(error)")
        }
        for user in configuration.users {
            do {
                guard try await serially({ try await self.existingUser(user.username) }) == nil else { continue }
                try await createUser(
                    username: user.username,
                    password: user.password,
                    attributes: user.attributes,
                    status: .confirmed,
                    groups: user.groups
                )
            } catch {
                throw ServerError.cognito("The configured user '\(user.username)' cannot be created: \(error)")
            }
        }
    }

    /// The value of `work`, run on the pool's thread once no other operation of the pool runs.
    func serially<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await operations.run { try await CognitoThread.shared.run(work) }
    }

    // MARK: - Addresses

    /// Sets the origin the pool is served at (`http://127.0.0.1:PORT`), which its issuer and
    /// identity pool login key derive from; the HTTP server calls it once it has bound its port.
    /// A configured ``CognitoConfiguration/publicOrigin`` stays.
    public func setOrigin(_ origin: String) {
        guard configuration.publicOrigin == nil else { return }
        self.origin.withLock { $0 = origin }
    }

    /// The origin the pool is served at.
    public var servedOrigin: String { origin.withLock { $0 } }

    /// The `iss` of the pool's tokens: `<origin>/<userPoolId>`.
    public var issuer: String { "\(servedOrigin)/\(configuration.userPoolId)" }

    /// The key of the pool in an identity pool's `Logins`: the issuer without its scheme.
    public var loginKey: String {
        let issuer = issuer
        guard let range = issuer.range(of: "://") else { return issuer }
        return String(issuer[range.upperBound...])
    }

    /// The JWKS document of the pool's signing key.
    public var jwks: String { signingKey.jwks.text }

    /// How `AMAZON_COGNITO_USER_POOLS` requests are verified against this pool.
    public var authorization: UserPoolAuthorization {
        UserPoolAuthorization(
            userPoolId: configuration.userPoolId,
            region: configuration.region,
            issuer: issuer,
            jwks: .json(jwks)
        )
    }

    // MARK: - Dispatch

    /// Answers the administrator's `operation` (`AdminConfirmSignUp`, `ListGroups`, …) of this
    /// pool with `input`, as a signed call to the pool's endpoint is answered: for the console,
    /// which has checked its caller already.
    ///
    /// - Returns: 200 and the operation's answer, or Cognito's refusal (400 and
    ///   `{"__type", "message"}`).
    package func administer(_ operation: String, _ input: JSONObject) async -> (status: Int, body: JSON) {
        precondition(Self.adminOperations.contains(operation), "\(operation) is not an administrator's operation.")
        var object = input
        object["UserPoolId"] = .string(configuration.userPoolId)
        return await respond(
            target: "\(Operation.userPoolService).\(operation)",
            body: Data(JSON.object(object).text.utf8)
        )
    }

    /// Answers one request of either service: its `X-Amz-Target` and body, from the client
    /// address `client` (which calls without credentials are limited and sign-in failures
    /// counted by). Every refusal is a ``CognitoError`` answered with HTTP 400.
    func respond(target: String, body: Data, from client: String = "") async -> (status: Int, body: JSON) {
        do {
            let object: JSONObject
            do {
                guard let parsed = try JSON(parsing: body).objectValue else { throw CognitoError.serialization }
                object = parsed
            } catch {
                throw CognitoError.serialization
            }
            let input = CognitoInput(object, client: client)
            let operation = try Operation(target: target)
            if let limiter = requestLimiter, operation.isUnauthenticated(input) {
                try limiter.admit(operation.name, from: client, at: clock())
            }
            let output: JSONObject
            if operation.hashesPasswords {
                // Hashing runs in the password lanes, between sections of its own that read and
                // write the records one operation at a time.
                output = try await perform(operation, input)
            } else {
                output = try await serially { try await self.perform(operation, input) }
            }
            return (200, .object(output))
        } catch let error as CognitoError {
            return (400, error.body)
        } catch {
            log("The local Cognito failed to answer \(target): \(error)")
            return (
                500, CognitoError("InternalErrorException", "An internal failure occurred. See the server log.").body
            )
        }
    }

    /// An operation of either service, by its `X-Amz-Target`.
    struct Operation: Sendable, Hashable {
        static let userPoolService = "AWSCognitoIdentityProviderService"
        static let identityService = "AWSCognitoIdentityService"

        var service: String
        var name: String

        /// - Throws: ``CognitoError`` `UnknownOperationException` for a target without a service.
        init(target: String) throws(CognitoError) {
            let parts = target.split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw CognitoError.unknownOperation(target) }
            service = parts[0]
            name = parts[1]
        }

        var target: String { "\(service).\(name)" }

        /// The user pool's operations that hash or check passwords.
        static let hashing: Set<String> = [
            "SignUp", "InitiateAuth", "RespondToAuthChallenge", "ChangePassword", "ConfirmForgotPassword",
            "AdminCreateUser", "AdminSetUserPassword",
        ]

        /// Whether the operation hashes or checks passwords, and so manages its own sections.
        var hashesPasswords: Bool { service == Self.userPoolService && Self.hashing.contains(name) }

        /// The user pool's operations anyone may call without a token or a signature.
        static let unauthenticated: Set<String> = [
            "SignUp", "ConfirmSignUp", "ResendConfirmationCode", "InitiateAuth", "RespondToAuthChallenge",
            "ForgotPassword", "ConfirmForgotPassword",
        ]

        /// Whether `input` is a call without credentials, which ``CognitoConfiguration/clientRequestLimit``
        /// limits: the user pool's ``unauthenticated`` operations, and a guest's identity calls.
        func isUnauthenticated(_ input: CognitoInput) -> Bool {
            switch service {
            case Self.userPoolService: return Self.unauthenticated.contains(name)
            case Self.identityService: return (input["Logins"]?.objectValue ?? [:]).isEmpty
            default: return false
            }
        }
    }

    private func perform(_ operation: Operation, _ input: CognitoInput) async throws -> JSONObject {
        switch (operation.service, operation.name) {
        case (Operation.userPoolService, "SignUp"): return try await signUp(input)
        case (Operation.userPoolService, "ConfirmSignUp"): return try await confirmSignUp(input)
        case (Operation.userPoolService, "ResendConfirmationCode"): return try await resendConfirmationCode(input)
        case (Operation.userPoolService, "InitiateAuth"): return try await initiateAuth(input)
        case (Operation.userPoolService, "RespondToAuthChallenge"): return try await respondToAuthChallenge(input)
        case (Operation.userPoolService, "GetUser"): return try await getUser(input)
        case (Operation.userPoolService, "UpdateUserAttributes"): return try await updateUserAttributes(input)
        case (Operation.userPoolService, "GetUserAttributeVerificationCode"):
            return try await getUserAttributeVerificationCode(input)
        case (Operation.userPoolService, "VerifyUserAttribute"): return try await verifyUserAttribute(input)
        case (Operation.userPoolService, "ChangePassword"): return try await changePassword(input)
        case (Operation.userPoolService, "ForgotPassword"): return try await forgotPassword(input)
        case (Operation.userPoolService, "ConfirmForgotPassword"): return try await confirmForgotPassword(input)
        case (Operation.userPoolService, "GlobalSignOut"): return try await globalSignOut(input)
        case (Operation.userPoolService, "RevokeToken"): return try await revokeToken(input)
        case (Operation.userPoolService, "AdminCreateUser"): return try await adminCreateUser(input)
        case (Operation.userPoolService, "AdminSetUserPassword"): return try await adminSetUserPassword(input)
        case (Operation.userPoolService, let name) where Self.adminOperations.contains(name):
            return try await admin(name, input)
        case (Operation.identityService, "GetId"): return try await getId(input)
        case (Operation.identityService, "GetCredentialsForIdentity"): return try await getCredentialsForIdentity(input)
        default: throw CognitoError.unknownOperation(operation.target)
        }
    }

    /// The operations only an administrator (a SigV4-signed request) may call.
    static let adminOperations = Set<String>([
        "AdminCreateUser", "AdminSetUserPassword", "AdminConfirmSignUp", "AdminAddUserToGroup",
        "AdminRemoveUserFromGroup", "AdminDeleteUser", "AdminGetUser", "AdminListGroupsForUser", "ListUsers",
        "AdminUserGlobalSignOut", "AdminUpdateUserAttributes", "AdminDisableUser", "AdminEnableUser",
    ]).union(groupOperations)

    // MARK: - Clients

    /// The app client `ClientId` names, after checking `SECRET_HASH` for a client with a secret.
    func client(_ input: CognitoInput, username: String?, secretHash: String?) throws -> CognitoConfiguration.AppClient
    {
        let clientId = try input.string("ClientId")
        guard let client = configuration.clients.first(where: { $0.clientId == clientId }) else {
            throw CognitoError.unknownClient(clientId)
        }
        if let secret = client.clientSecret {
            guard let secretHash else {
                throw CognitoError.notAuthorized(
                    "Client \(clientId) is configured for secret but secret was not received"
                )
            }
            let expected = Self.secretHash(username: username ?? "", clientId: clientId, clientSecret: secret)
            guard secretHash == expected else {
                throw CognitoError.notAuthorized("Unable to verify secret hash for client \(clientId)")
            }
        }
        return client
    }

    static func secretHash(username: String, clientId: String, clientSecret: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data((username + clientId).utf8),
            using: SymmetricKey(data: Data(clientSecret.utf8))
        )
        return Data(mac).base64EncodedString()
    }

    // MARK: - Users

    /// The user `username` names: by username, or by an email or phone number the pool's
    /// users sign in with.
    func user(_ username: String) async throws -> CognitoUser {
        guard let user = try await existingUser(username) else { throw CognitoError.userNotFound }
        return user
    }

    /// The user `name` names, or `nil`. A name no username could have (a NUL, a control
    /// character) names nobody: it is never looked up, so never cut short.
    func existingUser(_ name: String) async throws -> CognitoUser? {
        guard CognitoUsername.isValid(name) else { return nil }
        if let user = try await store.read(CognitoUser.self, name) { return user }
        return try await user(signingInAs: name)
    }

    /// The user whose email or phone number, as a ``CognitoConfiguration/usernameAttributes``
    /// attribute, is `value`; `nil` when none has it, or when several do.
    ///
    /// Each value names one user (``checkSignInNamesFree(_:for:)``), but a store written before
    /// that was checked may hold one twice: it then signs in neither, rather than whichever the
    /// store lists first, and the log says which users share it.
    func user(signingInAs value: String) async throws -> CognitoUser? {
        let attributes = configuration.usernameAttributes.filter { $0.accepts(value) }
        guard !attributes.isEmpty else { return nil }
        let holders = try await store.all(CognitoUser.self).filter { user in
            attributes.contains { user.attributes[$0.rawValue] == value }
        }
        guard holders.count <= 1 else {
            log(
                "Cognito: the users \(holders.map { "'\($0.username)'" }.joined(separator: ", ")) share the sign-in name "
                    + "'\(value)', which signs in none of them until all but one are given another "
                    + "(AdminUpdateUserAttributes)."
            )
            return nil
        }
        return holders.first
    }

    /// Refuses `attributes` when they give the user `username` (`nil` for a new user) an email or
    /// phone number that users sign in with (``CognitoConfiguration/usernameAttributes``) and
    /// that another user has, as Cognito does.
    ///
    /// - Throws: ``CognitoError`` `AliasExistsException`.
    func checkSignInNamesFree(_ attributes: [String: String], for username: String?) async throws {
        for attribute in configuration.usernameAttributes {
            guard let value = attributes[attribute.rawValue] else { continue }
            let taken = try await store.all(CognitoUser.self).contains { user in
                user.username != username && user.attributes[attribute.rawValue] == value
            }
            if taken {
                throw CognitoError(
                    "AliasExistsException",
                    "An account with the given \(attribute == .email ? "email" : "phone_number") already exists."
                )
            }
        }
    }

    /// Creates a user, refusing an invalid or existing username, attributes `write` may not
    /// set, or a password the policy refuses.
    ///
    /// The password is hashed in the new-password lane, between two sections that check the
    /// name is free: never call it from within ``serially(_:)``.
    @discardableResult
    func createUser(
        username: String,
        password: String,
        attributes: [String: String],
        status: CognitoUser.Status,
        groups: [String] = [],
        by write: AttributeWrite = .administrator
    ) async throws -> CognitoUser {
        try CognitoUsername.check(username)
        try Self.checkWritable(attributes, write)
        try Self.checkCustomCount(before: [:], after: attributes)
        var name = username
        var attributes = attributes
        var signInAttribute: CognitoConfiguration.UsernameAttribute?
        if !configuration.usernameAttributes.isEmpty {
            // The email or phone number is the sign-in name; the user is named by an id.
            guard let attribute = configuration.usernameAttributes.first(where: { $0.accepts(username) }) else {
                throw CognitoError.invalidParameter(
                    configuration.usernameAttributes.count == 1
                        ? "Username should be \(configuration.usernameAttributes[0] == .email ? "an email" : "a phone number")."
                        : "Username should be either an email or a phone number."
                )
            }
            attributes[attribute.rawValue] = username
            name = UUID().uuidString.lowercased()
            signInAttribute = attribute
        }
        let checkFree: @Sendable () async throws -> Void = { [name, signInAttribute, attributes] in
            if let signInAttribute, try await self.user(signingInAs: username) != nil {
                throw CognitoError(
                    "UsernameExistsException",
                    "An account with the given \(signInAttribute == .email ? "email" : "phone_number") already exists."
                )
            }
            guard try await self.store.read(CognitoUser.self, name) == nil else { throw CognitoError.usernameExists }
            try await self.checkSignInNamesFree(attributes, for: nil)
        }
        // Checked before the hashing, so that a taken name costs none, and again after it.
        try await serially {
            try await checkFree()
            for group in groups {
                guard try await self.group(named: group) != nil else { throw CognitoError.groupNotFound }
            }
        }
        let record = try await passwordRecord(password, username: name)
        let now = clock()
        let user = CognitoUser(
            username: name,
            sub: configuration.usernameAttributes.isEmpty ? UUID().uuidString.lowercased() : name,
            status: status,
            enabled: true,
            attributes: attributes,
            groups: groups,
            password: record,
            created: now,
            modified: now
        )
        try await serially {
            try await checkFree()
            try await self.store.write(user)
        }
        return user
    }

    /// The record of a new password for `username` (its SRP verifier and scrypt hash), after
    /// checking it against the policy; hashed in the new-password lane.
    ///
    /// - Throws: ``CognitoError`` `InvalidPasswordException` for a password the policy refuses,
    ///   `TooManyRequestsException` when the lane is full.
    func passwordRecord(_ password: String, username: String) async throws -> PasswordRecord {
        if let violation = configuration.passwordPolicy.violation(of: password) {
            throw CognitoError("InvalidPasswordException", violation)
        }
        let poolName = configuration.poolName
        return try await newPasswords.run {
            try PasswordHash.record(password: password, username: username, poolName: poolName)
        }
    }

    /// What an unknown user's password is checked against, so that a sign-in of a name nobody
    /// has takes the time a wrong password takes: the same scrypt work, against a hash no
    /// password gives.
    static let standInPassword = PasswordRecord(
        srpSalt: "",
        srpVerifier: "",
        hash: Data(repeating: 0, count: 32).base64EncodedString(),
        hashSalt: PasswordHash.randomBytes(16).base64EncodedString()
    )

    /// `[{"Name": "sub", "Value": …}, …]`: `sub` first, then the attributes by name; those
    /// `client` reads (its `ReadAttributes`) when one is given.
    static func attributeList(of user: CognitoUser, readBy client: CognitoConfiguration.AppClient? = nil) -> JSON {
        var list: [JSON] = [.object(["Name": "sub", "Value": .string(user.sub)])]
        for (name, value) in schemaAttributes(of: user) where client?.reads(name) ?? true {
            list.append(.object(["Name": .string(name), "Value": .string(value)]))
        }
        return .array(list)
    }

    /// The attributes of a `UserAttributes` list.
    static func attributes(_ value: JSON?) throws -> [String: String] {
        guard let value else { return [:] }
        guard let list = value.arrayValue else { throw CognitoError.invalidParameter("UserAttributes must be a list.") }
        var attributes: [String: String] = [:]
        for (offset, element) in list.enumerated() {
            guard let name = element["Name"]?.stringValue, let value = element["Value"]?.stringValue else {
                throw CognitoError.invalidParameter("Each user attribute needs a Name and a Value.")
            }
            try checkMember(name: name, value: value, at: "userAttributes.\(offset + 1).member")
            attributes[name] = value
        }
        return attributes
    }
}

/// A challenge waiting for `RespondToAuthChallenge`.
struct PendingChallenge: Sendable {
    enum Kind: Sendable {
        /// An SRP exchange, with the verifier `B` was computed from; `knownUser` is `false` for
        /// the stand-in challenge of a name nobody has, which no answer passes.
        case passwordVerifier(privateB: BigUInt, publicB: BigUInt, publicA: BigUInt, verifier: BigUInt, knownUser: Bool)
        case newPassword
    }

    var kind: Kind
    var username: String
    var clientId: String
    var expires: Date
}

/// A request's members, read with Cognito's validation errors.
struct CognitoInput: Sendable {
    let object: JSONObject
    /// The address of the client that sent it; empty for calls made in process.
    let client: String

    init(_ object: JSONObject, client: String = "") {
        self.object = object
        self.client = client
    }

    subscript(name: String) -> JSON? { object[name] }

    /// A required string member.
    func string(_ name: String) throws -> String {
        guard let value = object[name], !value.isNull else { throw CognitoError.missing(name) }
        guard let text = value.stringValue else {
            throw CognitoError.invalidParameter("\(name) must be a string.")
        }
        return text
    }

    /// An optional string member.
    func optionalString(_ name: String) throws -> String? {
        guard let value = object[name], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw CognitoError.invalidParameter("\(name) must be a string.") }
        return text
    }

    /// A map of strings, such as `AuthParameters`.
    func map(_ name: String) throws -> [String: String] {
        guard let value = object[name], !value.isNull else { return [:] }
        guard let members = value.objectValue else { throw CognitoError.invalidParameter("\(name) must be a map.") }
        var result: [String: String] = [:]
        for (key, member) in members {
            guard let text = member.stringValue else {
                throw CognitoError.invalidParameter("\(name).\(key) must be a string.")
            }
            result[key] = text
        }
        return result
    }
}
