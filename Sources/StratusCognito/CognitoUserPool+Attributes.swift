import AWSWire
import Foundation
import StratusServer

/// The attributes a user has, who may write which, and what reaches a token.
///
/// A pool stores only the attributes of its schema: Cognito's standard ones and `custom:*`
/// ones. Everything a token says about the pool's own records (`sub`, `cognito:groups`,
/// `cognito:username`, `iss`, `aud`, …) is a claim the pool writes itself, after the attributes,
/// so that no attribute stands in for one.
extension CognitoUserPool {
    /// Cognito's standard attributes a user's client may write.
    static let standardAttributes: Set<String> = [
        "address", "birthdate", "email", "family_name", "gender", "given_name", "locale", "middle_name", "name",
        "nickname", "phone_number", "picture", "preferred_username", "profile", "updated_at", "website", "zoneinfo",
    ]

    /// The attributes only the pool (confirming a code) or an administrator sets.
    static let verificationAttributes: Set<String> = ["email_verified", "phone_number_verified"]

    /// The most characters of a custom attribute's name after `custom:`, as a user pool's schema
    /// allows.
    static let maximumCustomNameLength = 20
    /// The most characters of an attribute's name (`AttributeType.Name`).
    static let maximumNameLength = 32
    /// The most characters of an attribute's value: a standard attribute's limit, and a custom
    /// attribute's by default.
    static let maximumValueLength = 2048
    /// The most custom attributes a user has: a user pool's schema holds at most 50.
    static let maximumCustomAttributes = 50

    /// Whether `name` is an attribute of the pool's schema: standard, a verification flag, or
    /// `custom:` and a name a schema may hold (1 to 20 letters, marks, symbols, numbers or
    /// punctuation).
    package static func isSchemaAttribute(_ name: String) -> Bool {
        standardAttributes.contains(name) || verificationAttributes.contains(name) || isCustomAttribute(name)
    }

    /// Whether `name` is `custom:` and a name a user pool's schema may hold.
    static func isCustomAttribute(_ name: String) -> Bool {
        guard name.hasPrefix("custom:") else { return false }
        let suffix = name.dropFirst("custom:".count)
        return !suffix.isEmpty && suffix.utf16.count <= maximumCustomNameLength
            && suffix.unicodeScalars.allSatisfy(CognitoUsername.isAllowed)
    }

    /// Refuses an attribute of a request's list (`member`, such as `userAttributes.2.member`)
    /// whose name or value breaks `AttributeType`'s constraints, with AWS's validation message.
    ///
    /// - Throws: ``CognitoError`` `InvalidParameterException`.
    static func checkMember(name: String, value: String, at member: String) throws(CognitoError) {
        let prefix =
            "1 validation error detected: Value '\(CognitoUsername.printable(name))' at '\(member).name' failed to "
            + "satisfy constraint: Member must "
        if name.isEmpty { throw CognitoError.invalidParameter(prefix + "have length greater than or equal to 1") }
        if name.utf16.count > maximumNameLength {
            throw CognitoError.invalidParameter(prefix + "have length less than or equal to \(maximumNameLength)")
        }
        guard name.unicodeScalars.allSatisfy(CognitoUsername.isAllowed) else {
            throw CognitoError.invalidParameter(
                prefix + "satisfy regular expression pattern: \(CognitoUsername.pattern)"
            )
        }
        // The value is sensitive: AWS's message does not quote it.
        if value.utf16.count > maximumValueLength {
            throw CognitoError.invalidParameter(
                "1 validation error detected: Value at '\(member).value' failed to satisfy constraint: Member must "
                    + "have length less than or equal to \(maximumValueLength)"
            )
        }
    }

    /// Refuses a write that takes a user from `before` to `after` past
    /// ``maximumCustomAttributes`` custom attributes. A user that had more (written before the
    /// limit) may still change the ones it has.
    ///
    /// - Throws: ``CognitoError`` `InvalidParameterException` saying the limit.
    static func checkCustomCount(before: [String: String], after: [String: String]) throws(CognitoError) {
        let count = after.keys.filter(isCustomAttribute).count
        guard count > maximumCustomAttributes, count > before.keys.filter(isCustomAttribute).count else { return }
        throw CognitoError.invalidParameter(
            "A user has at most \(maximumCustomAttributes) custom attributes, as a Cognito user pool's schema holds "
                + "at most \(maximumCustomAttributes); this would give it \(count). Reuse the names of the ones it has."
        )
    }

    /// Who writes attributes, which decides what may be written and how a refusal reads.
    enum AttributeWrite {
        /// `SignUp`: the user's client creates the user.
        case signUp
        /// `UpdateUserAttributes`: the signed-in user changes its own.
        case update
        /// `RespondToAuthChallenge` `NEW_PASSWORD_REQUIRED`: the user completes an account an
        /// administrator created.
        case newPasswordChallenge
        /// `AdminCreateUser`, the configured users and `stratus users add`.
        case administrator
    }

    /// Refuses attributes that `write` may not set, in Cognito's words: a name outside the
    /// schema is `InvalidParameterException` (`Attribute does not exist in the schema.`), `sub`
    /// and the verification flags are the pool's own.
    ///
    /// - Throws: ``CognitoError`` naming the first refused attributes.
    static func checkWritable(_ attributes: [String: String], _ write: AttributeWrite) throws(CognitoError) {
        let unknown = attributes.keys.filter { !isSchemaAttribute($0) && $0 != "sub" }.sorted()
        if !unknown.isEmpty {
            // Cognito's words, and for a custom name too long for a schema, why.
            let doesNotExist = { (name: String) in
                name.hasPrefix("custom:") && name.dropFirst("custom:".count).utf16.count > maximumCustomNameLength
                    ? "Attribute does not exist in the schema (a custom attribute's name has at most "
                        + "\(maximumCustomNameLength) characters after 'custom:').\n"
                    : "Attribute does not exist in the schema.\n"
            }
            switch write {
            case .signUp, .administrator:
                throw CognitoError.invalidParameter(
                    "Attributes did not conform to the schema: "
                        + unknown.map { "\($0): " + doesNotExist($0) }.joined()
                )
            case .update, .newPasswordChallenge:
                throw CognitoError.invalidParameter(unknown.map { "user.\($0): " + doesNotExist($0) }.joined())
            }
        }
        if let long = attributes.sorted(by: { $0.key < $1.key })
            .first(where: { $0.value.utf16.count > maximumValueLength })
        {
            throw CognitoError.invalidParameter(
                "The value of \(long.key) has \(long.value.utf16.count) characters; an attribute's value has at most "
                    + "\(maximumValueLength)."
            )
        }
        let owned = attributes.keys.filter {
            $0 == "sub" || (write != .administrator && verificationAttributes.contains($0))
        }.sorted()
        guard let first = owned.first else { return }
        switch write {
        case .signUp, .update:
            throw CognitoError.notAuthorized("A client attempted to write unauthorized attribute")
        case .newPasswordChallenge, .administrator:
            throw CognitoError.invalidParameter("Cannot modify the non-mutable attribute \(first)")
        }
    }

    /// Refuses attributes that `client` may not write (its `WriteAttributes`), as Cognito does:
    /// `NotAuthorizedException`. A client the pool no longer has writes none.
    ///
    /// - Throws: ``CognitoError`` `NotAuthorizedException`.
    static func checkClientWrites(
        _ attributes: [String: String],
        client: CognitoConfiguration.AppClient?
    ) throws(CognitoError) {
        guard attributes.keys.contains(where: { !(client?.writes($0) ?? false) }) else { return }
        throw CognitoError.notAuthorized("A client attempted to write unauthorized attribute")
    }

    /// The app client an access token was issued to (its `client_id`); `nil` for a token the pool
    /// did not sign or a client it no longer has.
    func client(ofAccessToken token: String) -> CognitoConfiguration.AppClient? {
        guard let clientId = signingKey.verifiedClaims(of: token)?["client_id"]?.stringValue else { return nil }
        return configuration.clients.first { $0.clientId == clientId }
    }

    /// The attributes whose verification flag a write sets: `email` and `phone_number`.
    static let verifiedAttributes = ["email", "phone_number"]

    /// Writes `attributes` into `user`. A new `email` or `phone_number` is unverified (its flag
    /// `false`) unless `attributes` set the flag too, which only an administrator may.
    ///
    /// - Returns: The attributes whose new value waits for a code, `email` first.
    static func apply(_ attributes: [String: String], to user: inout CognitoUser) -> [String] {
        let unverified = verifiedAttributes.filter { name in
            guard let value = attributes[name], value != user.attributes[name] else { return false }
            return attributes[name + "_verified"] == nil
        }
        for (name, value) in attributes { user.attributes[name] = value }
        for name in unverified { user.attributes[name + "_verified"] = "false" }
        return unverified
    }

    /// The stored attributes of `user` that belong to the schema, by name. Records written
    /// before the schema was enforced may hold others (`cognito:groups`, `username`); they
    /// reach neither tokens nor answers.
    static func schemaAttributes(of user: CognitoUser) -> [(name: String, value: String)] {
        user.attributes.filter { isSchemaAttribute($0.key) }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// An attribute's value as a token claim: the verification flags are booleans.
    static func claim(_ name: String, _ value: String) -> JSON {
        verificationAttributes.contains(name) ? .bool(value == "true") : .string(value)
    }
}
