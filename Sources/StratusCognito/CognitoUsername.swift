import Foundation

/// Cognito's rule for usernames: 1 to 128 characters, each a letter, a mark, a symbol, a number
/// or punctuation (`[\p{L}\p{M}\p{S}\p{N}\p{P}]+`): no spaces, no control characters, no NUL.
///
/// The local pool adds one rule of its own: no `::`. Cognito allows `:` (it is punctuation), but
/// the API writes an owner as `<sub>::<username>`, and a username such as `<sub of ann>::ann`
/// would equal ann's owner value.
enum CognitoUsername {
    /// The pattern Cognito states in its validation message.
    static let pattern = #"[\p{L}\p{M}\p{S}\p{N}\p{P}]+"#

    /// The longest username, in UTF-16 code units as Cognito counts them.
    static let maximumLength = 128

    /// Whether `name` follows Cognito's pattern, so that a user may have it: a name that does not
    /// (a NUL, a control character) names nobody and is never looked up. Users named with `::`
    /// before it was refused can still be found, signed in and deleted.
    static func isValid(_ name: String) -> Bool {
        violation(of: name, member: "username") == nil
    }

    /// Refuses `name` for a new user unless it follows Cognito's pattern, with Cognito's
    /// validation message naming `member` (the request's member, `username` for `SignUp`), or
    /// contains `::`.
    ///
    /// - Throws: ``CognitoError`` `InvalidParameterException`.
    static func check(_ name: String, member: String = "username") throws(CognitoError) {
        if let message = violation(of: name, member: member) { throw CognitoError.invalidParameter(message) }
        if name.contains("::") {
            throw CognitoError.invalidParameter(
                "Username must not contain '::': the API writes an owner as <sub>::<username>, "
                    + "so such a username could pass for another user's. Choose a username without '::'."
            )
        }
        if hasTheFormOfAUserId(name) {
            throw CognitoError.invalidParameter(
                "Username '\(name)' has the form of a user id (a UUID, as the sub of every user is): the API takes "
                    + "a user's sub for its owner, so such a username could pass for another user. Choose a "
                    + "username that is not a UUID."
            )
        }
    }

    /// Whether `name` is written as a UUID (`8e530d35-38f8-492b-b04e-3b61542aeaf9`, in either
    /// case), as every user's `sub` is. A pool that names its users by their `sub`
    /// (``CognitoConfiguration/usernameAttributes``) makes such names itself; nobody chooses one.
    static func hasTheFormOfAUserId(_ name: String) -> Bool {
        let groups = name.split(separator: "-", omittingEmptySubsequences: false)
        return groups.map(\.count) == [8, 4, 4, 4, 12] && groups.allSatisfy { $0.allSatisfy(\.isHexDigit) }
    }

    private static func violation(of name: String, member: String) -> String? {
        let prefix =
            "1 validation error detected: Value '\(printable(name))' at '\(member)' failed to satisfy constraint: "
        if name.isEmpty { return prefix + "Member must have length greater than or equal to 1" }
        if name.utf16.count > maximumLength {
            return prefix + "Member must have length less than or equal to \(maximumLength)"
        }
        guard name.unicodeScalars.allSatisfy(isAllowed) else {
            return prefix + "Member must satisfy regular expression pattern: \(pattern)"
        }
        return nil
    }

    /// Whether `scalar` is a letter, a mark, a symbol, a number or punctuation: what Cognito's
    /// names (of users and of attributes) are made of.
    static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .nonspacingMark, .spacingMark, .enclosingMark,
            .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol,
            .decimalNumber, .letterNumber, .otherNumber,
            .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
            .finalPunctuation, .otherPunctuation:
            return true
        default:
            return false
        }
    }

    /// `name` with its control characters written as `\u0000`, so that a message quoting it
    /// shows what was sent.
    static func printable(_ name: String) -> String {
        var text = ""
        for scalar in name.unicodeScalars {
            if scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format {
                text += String(format: "\\u%04X", scalar.value)
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }
}
