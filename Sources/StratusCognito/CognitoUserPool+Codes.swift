import AWSPluginsCore
import Foundation
import StratusServer

/// Confirmation and password reset codes: six digits, printed (no message leaves the machine)
/// and kept with the user.
///
/// Six digits are a million guesses, so guesses are few: a code takes ``maxWrongCodes`` wrong
/// answers, and the last of them voids it (`LimitExceededException`) until a new one is asked
/// for; a user gets at most ``maxCodesPerHour`` codes of each purpose an hour. A guesser gets
/// 25 tries an hour at a user, one chance in 40,000.
extension CognitoUserPool {
    /// How many wrong answers a code takes; the last voids it.
    static let maxWrongCodes = 5
    /// How many codes of one purpose a user gets in an hour.
    static let maxCodesPerHour = 5

    /// A new code for `purpose`, kept and logged; the answer says where it went.
    ///
    /// - Throws: ``CognitoError/attemptLimitExceeded`` when the user had ``maxCodesPerHour``
    ///   codes of `purpose` in the last hour.
    func issueCode(for user: CognitoUser, purpose: CognitoCode.Purpose) async throws -> JSONObject {
        let now = clock()
        let previous = try await store.read(CognitoCode.self, CognitoCode.key(user.username, purpose))
        let recent = (previous?.issued ?? []).filter { now.timeIntervalSince($0) < 3600 }
        guard recent.count < Self.maxCodesPerHour else { throw CognitoError.attemptLimitExceeded }
        let code = CognitoCode(
            username: user.username,
            purpose: purpose,
            code: codeGenerator(),
            expires: now.addingTimeInterval(purpose == .signUp ? 86400 : 3600),
            wrongAnswers: 0,
            issued: recent + [now]
        )
        try await store.write(code)
        let what = purpose == .signUp ? "confirmation code" : "password reset code"
        log("Cognito: the \(what) of '\(user.username)' is \(code.code)")
        return Self.deliveryDetails(of: user)
    }

    /// The code waiting for `username`, as `serve` printed it; tests and `stratus users` read it.
    ///
    /// - Throws: when the pool's state cannot be read.
    public func pendingCode(for username: String, passwordReset: Bool = false) async throws -> String? {
        try await serially {
            guard let user = try await self.existingUser(username) else { return nil }
            let purpose: CognitoCode.Purpose = passwordReset ? .forgotPassword : .signUp
            return try await self.store.read(CognitoCode.self, CognitoCode.key(user.username, purpose))?.code
        }
    }

    /// Checks `code` against the one waiting for `username`, counting a wrong one; a right one is
    /// removed when `consuming`.
    ///
    /// - Throws: ``CognitoError/codeMismatch`` for a wrong code (or none waiting),
    ///   ``CognitoError/attemptLimitExceeded`` for the ``maxWrongCodes``th wrong one and any
    ///   answer after it, ``CognitoError/expiredCode`` for an expired one.
    func checkCode(
        _ code: String,
        for username: String,
        purpose: CognitoCode.Purpose,
        consuming: Bool
    ) async throws {
        guard var stored = try await store.read(CognitoCode.self, CognitoCode.key(username, purpose)) else {
            throw CognitoError.codeMismatch
        }
        guard (stored.wrongAnswers ?? 0) < Self.maxWrongCodes else { throw CognitoError.attemptLimitExceeded }
        guard stored.expires > clock() else { throw CognitoError.expiredCode }
        guard Self.constantTimeEquals(stored.code, code) else {
            let wrong = (stored.wrongAnswers ?? 0) + 1
            stored.wrongAnswers = wrong
            try await store.write(stored)
            throw wrong >= Self.maxWrongCodes ? CognitoError.attemptLimitExceeded : CognitoError.codeMismatch
        }
        if consuming { try await store.delete(CognitoCode.self, stored.key) }
    }

    /// Whether `a` and `b` are equal, in a time that depends on their lengths only.
    static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8)
        let right = Array(b.utf8)
        guard left.count == right.count else { return false }
        return zip(left, right).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// Where a code for `user` went: its masked email, or `local`.
    static func deliveryDetails(of user: CognitoUser) -> JSONObject {
        deliveryDetails(email: user.attributes["email"])
    }

    /// What a code request for a name nobody has is answered (`PreventUserExistenceErrors`): a
    /// delivery as a user's would be, to the name itself when it is an email.
    func deliveryDetails(ofUnknown name: String) -> JSONObject {
        let signsInWithEmail = configuration.usernameAttributes.contains(.email)
        return Self.deliveryDetails(
            email: signsInWithEmail && CognitoConfiguration.UsernameAttribute.email.accepts(name) ? name : nil
        )
    }

    private static func deliveryDetails(email: String?) -> JSONObject {
        guard let email else {
            return ["CodeDeliveryDetails": .object(["Destination": "local", "DeliveryMedium": "EMAIL"])]
        }
        let masked = email.first.map { "\($0)***@" } ?? ""
        let domain = email.split(separator: "@").last.map(String.init) ?? ""
        return [
            "CodeDeliveryDetails": .object([
                "Destination": .string(masked + domain), "DeliveryMedium": "EMAIL", "AttributeName": "email",
            ])
        ]
    }
}
