import Foundation

/// Where the local Cognito keeps its state: users with their SRP verifiers and password hashes,
/// confirmation codes, refresh tokens, the signing key, identities and issued credentials.
///
/// Records are Codable values kept by kind and key, so that another database can hold them
/// behind the same few calls. ``SQLiteCognitoStore`` keeps them in the data directory,
/// ``PostgresCognitoStore`` in a PostgreSQL database.
package protocol CognitoStore: Sendable {
    /// The record of `kind` under `key`, encoded; `nil` when there is none.
    func read(kind: String, key: String) async throws -> Data?
    /// Stores `body` as the record of `kind` under `key`, replacing any.
    func write(kind: String, key: String, body: Data) async throws
    /// Removes the record of `kind` under `key`, if any.
    func delete(kind: String, key: String) async throws
    /// Runs `body` while no other process using the store runs one: servers that share a
    /// database set up the pool (its signing key, its configured users) one after the other.
    func exclusively<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T
    /// Every record of `kind`, by key order.
    func all(kind: String) async throws -> [Data]
}

/// A record the local Cognito stores.
protocol CognitoRecord: Codable, Sendable {
    /// The kind records of this type are stored under.
    static var kind: String { get }
    /// The record's key within its kind.
    var key: String { get }
}

extension CognitoStore {
    func read<Record: CognitoRecord>(_ type: Record.Type, _ key: String) async throws -> Record? {
        try Self.checkKey(key)
        guard let data = try await read(kind: Record.kind, key: key) else { return nil }
        return try JSONDecoder().decode(Record.self, from: data)
    }

    func write<Record: CognitoRecord>(_ record: Record) async throws {
        try Self.checkKey(record.key)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        try await write(kind: Record.kind, key: record.key, body: encoder.encode(record))
    }

    func delete<Record: CognitoRecord>(_ type: Record.Type, _ key: String) async throws {
        try Self.checkKey(key)
        try await delete(kind: Record.kind, key: key)
    }

    /// Refuses a key with a NUL: SQLite binds text up to its first NUL, so `ann\u{0}xyz` would
    /// find ann's record, and PostgreSQL refuses NUL in text.
    private static func checkKey(_ key: String) throws(CognitoError) {
        guard !key.utf8.contains(0) else {
            throw CognitoError.invalidParameter(
                "'\(CognitoUsername.printable(key))' contains a NUL character, which no name or id may contain."
            )
        }
    }

    func all<Record: CognitoRecord>(_ type: Record.Type) async throws -> [Record] {
        try await all(kind: Record.kind).map { try JSONDecoder().decode(Record.self, from: $0) }
    }
}

/// A user of the pool. The password itself is never kept: only its SRP verifier and a scrypt
/// hash.
struct CognitoUser: CognitoRecord, Hashable {
    static let kind = "user"
    var key: String { username }

    enum Status: String, Codable, Sendable {
        case unconfirmed = "UNCONFIRMED"
        case confirmed = "CONFIRMED"
        case forceChangePassword = "FORCE_CHANGE_PASSWORD"
        case resetRequired = "RESET_REQUIRED"
    }

    var username: String
    var sub: String
    var status: Status
    var enabled: Bool
    /// Attributes other than `sub`, by name.
    var attributes: [String: String]
    var groups: [String]
    var password: PasswordRecord
    var created: Date
    var modified: Date
    /// Tokens issued before this instant are refused (set by `GlobalSignOut`).
    var tokensValidAfter: Date?
}

/// What stands for a password: the SRP salt and verifier (hexadecimal) and a scrypt hash.
struct PasswordRecord: Codable, Sendable, Hashable {
    var srpSalt: String
    var srpVerifier: String
    var hash: String
    var hashSalt: String
}

/// A code sent (here: printed and kept) to confirm a sign-up or reset a password.
struct CognitoCode: CognitoRecord, Hashable {
    static let kind = "code"
    var key: String { Self.key(username, purpose) }

    enum Purpose: String, Codable, Sendable {
        case signUp, forgotPassword
        /// `VerifyUserAttribute` of a new `email` or `phone_number`.
        case verifyEmail, verifyPhoneNumber
    }

    var username: String
    var purpose: Purpose
    var code: String
    /// For a verification code, the value it was sent to: it verifies that value only (`nil` in
    /// codes of other purposes).
    var value: String?
    var expires: Date
    /// Wrong answers so far (`nil` in records written before they were counted).
    var wrongAnswers: Int?
    /// When the user's codes of this purpose were issued in the last hour, this one included.
    var issued: [Date]?

    static func key(_ username: String, _ purpose: Purpose) -> String { "\(purpose.rawValue)/\(username)" }
}

/// A refresh token, kept by the SHA-256 of its value.
struct RefreshTokenRecord: CognitoRecord, Hashable {
    static let kind = "refresh"
    var key: String { tokenHash }

    var tokenHash: String
    var username: String
    /// The `sub` of the user it was issued to; `nil` in records written before it was kept.
    var sub: String?
    var clientId: String
    /// The `origin_jti` of the tokens issued with it: revoking the refresh token revokes them.
    var originJti: String
    var authTime: Date
    var expires: Date
    var revoked: Bool
}

/// The key that signs the pool's tokens, as PKCS#8 PEM.
struct SigningKeyRecord: CognitoRecord, Hashable {
    static let kind = "signingKey"
    var key: String { keyId }

    var keyId: String
    var pem: String
}

/// An identity of the identity pool: a guest's, or a signed-in user's (by `Logins` key and `sub`).
struct IdentityRecord: CognitoRecord, Hashable {
    static let kind = "identity"
    var key: String { identityId }

    var identityId: String
    /// `<issuer without scheme>:<sub>` for a user's identity; `nil` for a guest's.
    var login: String?
}

/// Temporary credentials the identity pool issued.
struct IssuedCredentials: CognitoRecord, Hashable {
    static let kind = "credentials"
    var key: String { accessKeyId }

    var accessKeyId: String
    var secretAccessKey: String
    var sessionToken: String
    var identityId: String
    var isAuthenticated: Bool
    var username: String?
    var sub: String?
    var expiration: Date
}
