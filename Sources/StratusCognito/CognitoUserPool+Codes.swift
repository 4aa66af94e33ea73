import AWSWire
import Crypto
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
        let code = try await storeCode(for: user.username, purpose: purpose, value: nil)
        let what = purpose == .signUp ? "confirmation code" : "password reset code"
        log("Cognito: the \(what) of '\(user.username)' is \(code)")
        recordSent(code, to: user.attributes["email"] ?? user.attributes["phone_number"], of: user, purpose: purpose)
        return try await deliveryDetails(of: user)
    }

    /// A new code verifying the value `user` has for `attribute` (`email` or `phone_number`),
    /// kept and logged; the answer is where it went (a `CodeDeliveryDetails` object).
    ///
    /// - Throws: ``CognitoError/attemptLimitExceeded`` when the user had ``maxCodesPerHour``
    ///   codes for the attribute in the last hour; `InvalidParameterException` for an attribute
    ///   that is not verified with a code, or that the user does not have.
    func issueVerificationCode(for user: CognitoUser, attribute: String) async throws -> JSON {
        let purpose = try Self.verificationPurpose(of: attribute)
        guard let value = user.attributes[attribute] else {
            throw CognitoError.invalidParameter("The user has no \(attribute) to verify.")
        }
        let code = try await storeCode(for: user.username, purpose: purpose, value: value)
        log("Cognito: the verification code of '\(user.username)' for \(attribute) \(value) is \(code)")
        recordSent(code, to: value, of: user, purpose: purpose)
        return Self.delivery(attribute: attribute, value: value)
    }

    /// A code the pool would have sent: what the console's inbox shows.
    public struct SentCode: Sendable, Hashable {
        /// What a code is for.
        public enum Purpose: String, Sendable, Hashable {
            /// Confirms a sign-up (`ConfirmSignUp`).
            case confirmSignUp = "CONFIRM_SIGN_UP"
            /// Resets a password (`ConfirmForgotPassword`).
            case resetPassword = "RESET_PASSWORD"
            /// Verifies an email address (`VerifyUserAttribute`).
            case verifyEmail = "VERIFY_EMAIL"
            /// Verifies a phone number (`VerifyUserAttribute`).
            case verifyPhoneNumber = "VERIFY_PHONE_NUMBER"

            init(_ purpose: CognitoCode.Purpose) {
                switch purpose {
                case .signUp: self = .confirmSignUp
                case .forgotPassword: self = .resetPassword
                case .verifyEmail: self = .verifyEmail
                case .verifyPhoneNumber: self = .verifyPhoneNumber
                }
            }
        }

        /// When the code was made.
        public var time: Date
        /// The user it was made for.
        public var username: String
        /// The email address or phone number it would have gone to; `nil` for a user with
        /// neither, whose codes are only printed.
        public var destination: String?
        public var purpose: Purpose
        public var code: String
    }

    /// How many sent codes ``sentCodes()`` keeps.
    public static let sentCodesKept = 100

    /// The last ``sentCodesKept`` codes this pool would have sent, newest first. They are kept
    /// in memory, by this server only: they start afresh when it starts.
    public func sentCodes() -> [SentCode] {
        codesSent.withLock { $0.reversed() }
    }

    /// Keeps `code`, made for `user` and sent to `destination`, among the ``sentCodes()``.
    private func recordSent(
        _ code: String,
        to destination: String?,
        of user: CognitoUser,
        purpose: CognitoCode.Purpose
    ) {
        let sent = SentCode(
            time: clock(),
            username: user.username,
            destination: destination,
            purpose: SentCode.Purpose(purpose),
            code: code
        )
        codesSent.withLock { codes in
            codes.append(sent)
            if codes.count > Self.sentCodesKept { codes.removeFirst(codes.count - Self.sentCodesKept) }
        }
    }

    /// The purpose of a code verifying `attribute`.
    ///
    /// - Throws: ``CognitoError`` `InvalidParameterException` for an attribute other than
    ///   `email` and `phone_number`.
    static func verificationPurpose(of attribute: String) throws(CognitoError) -> CognitoCode.Purpose {
        switch attribute {
        case "email": return .verifyEmail
        case "phone_number": return .verifyPhoneNumber
        default:
            throw CognitoError.invalidParameter(
                "Only email and phone_number are verified with a code; '\(CognitoUsername.printable(attribute))' is not."
            )
        }
    }

    /// Keeps a new code of `purpose` for `username` (verifying `value`, for a verification
    /// code), replacing the one waiting.
    ///
    /// - Returns: The code.
    /// - Throws: ``CognitoError/attemptLimitExceeded`` past ``maxCodesPerHour`` codes of
    ///   `purpose` in the last hour.
    private func storeCode(for username: String, purpose: CognitoCode.Purpose, value: String?) async throws -> String {
        let now = clock()
        let previous = try await store.read(CognitoCode.self, CognitoCode.key(username, purpose))
        let recent = (previous?.issued ?? []).filter { now.timeIntervalSince($0) < 3600 }
        guard recent.count < Self.maxCodesPerHour else { throw CognitoError.attemptLimitExceeded }
        let code = CognitoCode(
            username: username,
            purpose: purpose,
            code: codeGenerator(),
            value: value,
            expires: now.addingTimeInterval(purpose == .signUp ? 86400 : 3600),
            wrongAnswers: 0,
            issued: recent + [now]
        )
        try await store.write(code)
        return code.code
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
    ///   answer after it (counted as ``standInWrongAnswer(for:purpose:)`` counts them when no code
    ///   waits), ``CognitoError/expiredCode`` for an expired one.
    func checkCode(
        _ code: String,
        for username: String,
        purpose: CognitoCode.Purpose,
        consuming: Bool
    ) async throws {
        guard var stored = try await store.read(CognitoCode.self, CognitoCode.key(username, purpose)) else {
            throw standInWrongAnswer(for: username, purpose: purpose)
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

    /// Where a code for `user` went: its masked email, else its masked phone number. A user with
    /// neither (whose codes are only printed) gets the stand-in a name nobody has gets, so that
    /// the answer does not tell a user from a name.
    func deliveryDetails(of user: CognitoUser) async throws -> JSONObject {
        if let email = user.attributes["email"] {
            return ["CodeDeliveryDetails": Self.delivery(attribute: "email", value: email)]
        }
        if let phoneNumber = user.attributes["phone_number"] {
            return ["CodeDeliveryDetails": Self.delivery(attribute: "phone_number", value: phoneNumber)]
        }
        return ["CodeDeliveryDetails": try await standInDelivery(for: user.username)]
    }

    /// What a code request for a name nobody has is answered (`PreventUserExistenceErrors`): a
    /// delivery as a user's would be, to the name itself when it is the email or phone number
    /// users sign in with, else to a stand-in email derived from the name.
    func deliveryDetails(ofUnknown name: String) async throws -> JSONObject {
        for attribute in configuration.usernameAttributes where attribute.accepts(name) {
            return ["CodeDeliveryDetails": Self.delivery(attribute: attribute.rawValue, value: name)]
        }
        return ["CodeDeliveryDetails": try await standInDelivery(for: name)]
    }

    /// The domains stand-in deliveries name while no user has an email: common ones.
    static let commonDomains = ["gmail.com", "outlook.com", "yahoo.com", "hotmail.com", "icloud.com", "proton.me"]

    /// The domains stand-in deliveries name: those of the users' emails, so that a stand-in
    /// reads as one of the pool's users' deliveries does (a user's answer names its domain
    /// anyway); ``commonDomains`` while no user has an email.
    func standInDomains() async throws -> [String] {
        let domains = try await store.all(CognitoUser.self).compactMap { user -> String? in
            guard let email = user.attributes["email"], let at = email.lastIndex(of: "@") else { return nil }
            let domain = email[email.index(after: at)...]
            return domain.isEmpty ? nil : String(domain)
        }
        return domains.isEmpty ? Self.commonDomains : Set(domains).sorted()
    }

    /// A masked email for `name`, the same at every request while the users' domains stay (as a
    /// user's is): the name's first letter or digit (a letter derived from it otherwise), `***@`
    /// and one of ``standInDomains()`` derived from the name with a key of the pool's.
    ///
    /// Where users' emails are at many domains, one who knows a user's domain can still tell the
    /// user's answer from a stand-in that names another.
    func standInDelivery(for name: String) async throws -> JSON {
        let domains = try await standInDomains()
        let key = SymmetricKey(
            data: SHA256.hash(data: Data(("delivery-stand-in:" + administratorCredentials.secretAccessKey).utf8))
        )
        let mac = Array(HMAC<SHA256>.authenticationCode(for: Data(name.utf8), using: key))
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        let first = name.first.flatMap { $0.isASCII && ($0.isLetter || $0.isNumber) ? Character($0.lowercased()) : nil }
        let local = first ?? letters[Int(mac[0]) % letters.count]
        let domain = domains[Int(mac[1]) % domains.count]
        return Self.delivery(attribute: "email", value: "\(local)@\(domain)")
    }

    /// A `CodeDeliveryDetails` object for a code sent to `value`, the `email` or `phone_number`
    /// attribute, masked as Cognito masks it (`a***@example.com`, `+*******0199`).
    static func delivery(attribute: String, value: String) -> JSON {
        if attribute == "phone_number" {
            let digits = value.dropFirst()
            let masked = "+" + String(repeating: "*", count: max(digits.count - 4, 0)) + String(digits.suffix(4))
            return .object(["Destination": .string(masked), "DeliveryMedium": "SMS", "AttributeName": "phone_number"])
        }
        let masked = value.first.map { "\($0)***@" } ?? ""
        let domain = value.split(separator: "@").last.map(String.init) ?? ""
        return .object(["Destination": .string(masked + domain), "DeliveryMedium": "EMAIL", "AttributeName": "email"])
    }

    /// Counts a code request for `name`, which has no code kept with a user (a name nobody has,
    /// or a confirmed user asked for a confirmation code), as a user's codes are counted.
    ///
    /// The counts are kept in memory for at most ``maxStandInNames`` names; past that, the names
    /// without a request in the last hour go first, then the oldest.
    ///
    /// - Throws: ``CognitoError/attemptLimitExceeded`` past ``maxCodesPerHour`` requests of
    ///   `purpose` for `name` in the last hour, as for a user.
    func countStandInCode(for name: String, purpose: CognitoCode.Purpose) throws(CognitoError) {
        let now = clock()
        let key = CognitoCode.key(name, purpose)
        let admitted = standInCodes.withLock { counts -> Bool in
            let recent = (counts[key] ?? []).filter { now.timeIntervalSince($0) < 3600 }
            guard recent.count < Self.maxCodesPerHour else { return false }
            if counts[key] == nil, counts.count >= Self.maxStandInNames {
                counts = counts.filter { $0.value.contains { now.timeIntervalSince($0) < 3600 } }
                if counts.count >= Self.maxStandInNames,
                    let oldest = counts.min(by: { ($0.value.last ?? now) < ($1.value.last ?? now) })?.key
                {
                    counts.removeValue(forKey: oldest)
                }
            }
            counts[key] = recent + [now]
            return true
        }
        guard admitted else { throw CognitoError.attemptLimitExceeded }
        // A new code takes wrong answers afresh, as a user's does.
        _ = standInWrongAnswers.withLock { $0.removeValue(forKey: key) }
    }

    /// The refusal of a code given for `name` when none waits for it (a name nobody has, a
    /// confirmed user confirming again, a reset nobody asked for), counted as wrong answers to a
    /// user's code are: `CodeMismatchException` until the ``maxWrongCodes``th, then
    /// `LimitExceededException` until a code is asked for the name again. A user's code answers
    /// so, and the difference would tell a user with a code waiting from a name nobody has.
    ///
    /// The counts are kept in memory for at most ``maxStandInNames`` names; past that they start
    /// afresh.
    func standInWrongAnswer(for name: String, purpose: CognitoCode.Purpose) -> CognitoError {
        let key = CognitoCode.key(name, purpose)
        let wrong = standInWrongAnswers.withLock { counts -> Int in
            if counts[key] == nil, counts.count >= Self.maxStandInNames { counts.removeAll() }
            let wrong = min((counts[key] ?? 0) + 1, Self.maxWrongCodes)
            counts[key] = wrong
            return wrong
        }
        return wrong >= Self.maxWrongCodes ? CognitoError.attemptLimitExceeded : CognitoError.codeMismatch
    }

    /// How many names' stand-in code requests are counted at once.
    static let maxStandInNames = 10_000
}
