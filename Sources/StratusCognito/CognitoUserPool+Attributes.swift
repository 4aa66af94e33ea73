import AWSPluginsCore
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

    /// Whether `name` is an attribute of the pool's schema: standard, a verification flag, or
    /// `custom:*`.
    static func isSchemaAttribute(_ name: String) -> Bool {
        standardAttributes.contains(name) || verificationAttributes.contains(name)
            || (name.hasPrefix("custom:") && name.count > "custom:".count)
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
            switch write {
            case .signUp, .administrator:
                throw CognitoError.invalidParameter(
                    "Attributes did not conform to the schema: "
                        + unknown.map { "\($0): Attribute does not exist in the schema.\n" }.joined()
                )
            case .update, .newPasswordChallenge:
                throw CognitoError.invalidParameter(
                    unknown.map { "user.\($0): Attribute does not exist in the schema.\n" }.joined()
                )
            }
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
