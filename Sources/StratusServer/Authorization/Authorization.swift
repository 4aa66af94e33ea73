import StratusCodegen

/// What a caller may do, from the schema's `@auth` rules and `@aws_*` directives (backend.md §5).
///
/// A model with neither admits only the API's default mode, as AppSync does (an additional
/// mode needs a directive or a rule that names it); the fields and embedded types without them
/// are what their model admits. A model's rules
/// decide, for each operation, whether the caller may act on every item, on some items (owner
/// and dynamic group rules: rows whose owner or groups field names the caller), or on none.
enum Authorization {
    /// The reach of an operation for one caller.
    enum Access: Sendable, Equatable {
        /// Not allowed at all.
        case denied
        /// Allowed on every item.
        case all
        /// Allowed on the items at least one of these rules admits.
        case rows([RowRule])
    }

    /// An owner or dynamic-group rule for one caller: the field and the values it must hold.
    struct RowRule: Sendable, Equatable {
        /// The owner field or the groups field.
        var field: String
        /// The caller's identities (owner) or groups (dynamic groups).
        var values: [String]
        /// `true` when the field holds a list.
        var isList: Bool
        /// `true` for an owner rule.
        var isOwner: Bool

        /// `true` when `item` holds one of ``values`` in ``field``.
        func admits(_ item: JSONObject) -> Bool {
            switch item[field] {
            case .string(let value): values.contains { $0.isExactly(value) }
            case .array(let elements):
                elements.contains { element in
                    element.stringValue.map { value in values.contains { $0.isExactly(value) } } ?? false
                }
            default: false
            }
        }

        /// Why the rule refused an item, as a request history shows it.
        var refusal: String {
            let kind = isOwner ? "owner" : "dynamic group"
            let whose = isOwner ? "identities" : "groups"
            let listed = values.map { "'\($0)'" }.joined(separator: ", ")
            return
                "The \(kind) rule on '\(field)' refused the item: it holds none of the caller's \(whose) (\(listed))."
        }

        /// The same test as a storage predicate.
        var predicate: ItemPredicate {
            .any(values.map { .field(field, isList ? .contains(.string($0)) : .compare(.eq, .string($0))) })
        }
    }

    /// The operations of the rules an API operation needs.
    enum Operation: Sendable {
        case create, update, delete, get, list, sync, listen, search

        var ruleOperations: [AuthRuleDefinition.Operation] {
            switch self {
            case .create: [.create]
            case .update: [.update]
            case .delete: [.delete]
            case .get: [.read, .get]
            case .list: [.read, .list]
            case .sync: [.read, .sync]
            case .listen: [.read, .listen]
            case .search: [.read, .search]
            }
        }
    }

    /// The error AppSync returns for a field the caller may not reach.
    static func unauthorized(field: String, type: String) -> ResolverError {
        ResolverError(errorType: .unauthorized, message: "Not Authorized to access \(field) on type \(type)")
    }

    /// Notes why a rule refused the request in its history entry, when it has one
    /// (``RequestLogEntry/isRecorded``); `reason` is made only then.
    static func noteRefusal(_ reason: @autoclosure () -> String) {
        guard let entry = RequestLogEntry.current, entry.isRecorded else { return }
        entry.note(ruleRefusal: reason())
    }

    /// Why `model` refused `identity` the root field `field` (its reach was ``Access/denied``).
    static func denial(of field: String, on model: ModelType, for identity: Identity) -> String {
        let mode = identity.authorizationMode.rawValue
        guard model.authRules.isEmpty else {
            return "No @auth rule of \(model.name) admits \(mode) callers to \(field)."
        }
        guard model.awsAuth.isEmpty else {
            return "No @aws_* directive of \(model.name) admits \(mode) callers to \(field)."
        }
        return "\(model.name) has no @auth rule nor @aws_* directive: only the API's default mode may reach \(field)."
    }

    /// The reach of `operation` on `model` for `identity`: the model's `@auth` rules when it has
    /// some, else its `@aws_*` directives (none: the API's default mode alone).
    static func access(_ operation: Operation, on model: ModelType, for identity: Identity) -> Access {
        guard !model.authRules.isEmpty else { return admits(model.awsAuth, identity) ? .all : .denied }
        return access(operation, rules: model.authRules, model: model, identity: identity)
    }

    static func access(
        _ operation: Operation,
        rules: [AuthRuleDefinition],
        model: ModelType,
        identity: Identity
    ) -> Access {
        guard !rules.isEmpty else { return .all }
        var rows: [RowRule] = []
        for rule in rules where mode(of: rule.provider) == identity.authorizationMode {
            guard rule.operations.contains(where: operation.ruleOperations.contains) else { continue }
            switch rule.allow {
            case .public, .private:
                // Identity pool credentials stand for a role: `public` rules admit guests (the
                // unauthenticated role), `private` rules signed-in users (the authenticated role).
                if let role = identity.claims["cognitoIdentityAuthType"]?.stringValue,
                    (rule.allow == .public) != (role == "unauthenticated")
                {
                    continue
                }
                return .all
            case .custom:
                return .all
            case .groups:
                let callerGroups = groups(of: identity, claim: rule.groupClaim ?? "cognito:groups")
                if let field = rule.groupsField {
                    guard !callerGroups.isEmpty else { continue }
                    let isList = model.field(named: field)?.type.isList ?? true
                    rows.append(RowRule(field: field, values: callerGroups, isList: isList, isOwner: false))
                } else if callerGroups.contains(where: { group in rule.groups.contains { $0.isExactly(group) } }) {
                    return .all
                }
            case .owner:
                let field = rule.ownerField ?? "owner"
                let claim =
                    rule.identityClaim
                    ?? (identity.authorizationMode == .amazonCognitoUserPools ? "sub::username" : "sub")
                let identities = ownerIdentities(of: identity, claim: claim)
                guard !identities.isEmpty else { continue }
                let isList = model.field(named: field)?.type.isList ?? false
                rows.append(RowRule(field: field, values: identities, isList: isList, isOwner: true))
            }
        }
        return rows.isEmpty ? .denied : .rows(rows)
    }

    /// The authorization mode a rule's provider stands for.
    static func mode(of provider: AuthRuleDefinition.Provider) -> Identity.AuthorizationMode {
        switch provider {
        case .apiKey: .apiKey
        case .iam, .identityPool: .awsIAM
        case .oidc: .openIDConnect
        case .userPools: .amazonCognitoUserPools
        case .function: .function
        }
    }

    static func mode(of directive: AWSAuthDirective.Mode) -> Identity.AuthorizationMode {
        switch directive {
        case .apiKey: .apiKey
        case .iam: .awsIAM
        case .oidc: .openIDConnect
        case .lambda: .function
        case .userPools: .amazonCognitoUserPools
        }
    }

    /// The groups a caller's claims put it in.
    static func groups(of identity: Identity, claim: String) -> [String] {
        switch identity.claims[claim] {
        case .array(let values): values.compactMap(\.stringValue)
        case .string(let value): value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        default: []
        }
    }

    /// The values an owner field may hold for the caller, the one a create writes first.
    ///
    /// `sub::username` gives `<sub>::<username>`, then `<sub>` and `<username>` alone, which
    /// items written under the older single-claim default hold. A claim value that itself holds
    /// `::` never stands alone: a user named `<sub>::<name>` would otherwise own the items of
    /// the user whose claims those are.
    static func ownerIdentities(of identity: Identity, claim: String) -> [String] {
        func value(_ name: String) -> String? {
            if name == "username" {
                return identity.claims["username"]?.stringValue ?? identity.claims["cognito:username"]?.stringValue
            }
            return identity.claims[name]?.stringValue
        }
        let parts = claim.components(separatedBy: "::")
        if parts.count > 1 {
            let values = parts.compactMap(value)
            let sub = value("sub")
            // A username that has the form of a user id stands alone only when it is the caller's
            // own (pools that sign in by email use the sub as the username): a user named after
            // another user's sub, which every owner value shows, would otherwise own that user's
            // items stored under the bare sub.
            let alone = values.filter { part in
                !part.contains("::") && (!Self.isUserIdShaped(part) || sub.map(part.isExactly) ?? false)
            }
            guard values.count == parts.count else { return alone }
            return [values.joined(separator: "::")] + alone
        }
        return value(claim).map { [$0] } ?? []
    }

    /// `true` for a value of the form of a Cognito `sub`: a UUID.
    static func isUserIdShaped(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        guard bytes.count == 36 else { return false }
        return bytes.indices.allSatisfy { index in
            [8, 13, 18, 23].contains(index)
                ? bytes[index] == UInt8(ascii: "-")
                : (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index])
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(bytes[index] | 0x20)
        }
    }

    // MARK: - Fields

    /// The modes and groups allowed on a type's fields when the field says nothing itself.
    static func typeModes(awsAuth: [AWSAuthDirective], rules: [AuthRuleDefinition]) -> [AWSAuthDirective] {
        awsAuth
            + rules.map { rule in
                let mode: AWSAuthDirective.Mode =
                    switch mode(of: rule.provider) {
                    case .apiKey: .apiKey
                    case .awsIAM: .iam
                    case .openIDConnect: .oidc
                    case .function: .lambda
                    default: .userPools
                    }
                return AWSAuthDirective(mode: mode)
            }
    }

    /// `true` when `identity` may reach a model or a root field (a hand-written query, mutation
    /// or subscription) guarded by `directives`: with none, only in the API's default mode, as
    /// AppSync admits a type without directives.
    static func admits(_ directives: [AWSAuthDirective], _ identity: Identity) -> Bool {
        directives.isEmpty ? identity.isDefaultMode : allows(directives, identity)
    }

    /// `true` when `identity` may reach a field guarded by `directives`; an empty list guards
    /// nothing (the model or root field holding it decides).
    static func allows(_ directives: [AWSAuthDirective], _ identity: Identity) -> Bool {
        guard !directives.isEmpty else { return true }
        return directives.contains { directive in
            guard mode(of: directive.mode) == identity.authorizationMode else { return false }
            guard !directive.cognitoGroups.isEmpty else { return true }
            return groups(of: identity, claim: "cognito:groups").contains { group in
                directive.cognitoGroups.contains { $0.isExactly(group) }
            }
        }
    }
}

extension String {
    /// `true` when both hold the same UTF-8 bytes: how the store, DynamoDB and Amplify's
    /// resolvers compare identities. Swift's `==` takes canonically equivalent text as equal
    /// (`"\u{212A}ate" == "Kate"`, a Kelvin sign for a K), which would let one user pass for
    /// another whose name is spelt with other code points.
    func isExactly(_ other: String) -> Bool {
        utf8.elementsEqual(other.utf8)
    }
}
