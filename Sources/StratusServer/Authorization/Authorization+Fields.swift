import StratusCodegen

/// Field-level `@auth` rules and `@aws_*` directives: what a caller may read of a field, and
/// which input fields a write may set (backend.md §5).
///
/// Writes follow the Amplify transformer's access matrix. Each model rule is a role (one per
/// static group) with its operations on every field; a field's own rules first take every
/// role's access to that field away, then give it back to the roles they name, adding roles
/// that only they name. A create or update is then allowed on the fields the caller's matching
/// roles may write; an input field outside them is refused with `Unauthorized on [field]`. A
/// delete needs a role that may delete every field.
extension Authorization {
    /// What `identity` may read of `field` for `operation`: every item, the items some rules
    /// admit, or none. A field without its own rules or directives is what the model's access
    /// gives, which the caller has already passed.
    static func readAccess(
        to field: StratusCodegen.Field,
        of model: ModelType,
        for identity: Identity,
        operation: Operation
    ) -> Access {
        let directives =
            field.awsAuth.isEmpty ? typeModes(awsAuth: [], rules: field.authRules) : field.awsAuth
        guard allows(directives, identity) else { return .denied }
        return field.authRules.isEmpty
            ? .all : access(operation, rules: field.authRules, model: model, identity: identity)
    }

    /// The reach of a write of `kind` on a model whose fields have rules of their own: the roles
    /// that may create (or update, or remove) some field, and for a delete those that may delete
    /// every field. Which input fields it may set is ``FieldAccessMatrix``'s to say.
    static func writeAccess(
        _ kind: WriteEvent.Kind,
        to model: ModelType,
        _ matrix: FieldAccessMatrix,
        for identity: Identity
    ) -> Access {
        let rules: [AuthRuleDefinition] =
            switch kind {
            case .create: matrix.rules(for: .create)
            case .update: matrix.rules(for: .update) + matrix.rules(for: .delete)
            case .delete: matrix.rules(for: .delete, everyField: true)
            }
        guard !rules.isEmpty else { return .denied }
        return access(kind.operation, rules: rules, model: model, identity: identity)
    }

    /// `true` when a field has rules or directives of its own.
    static func isGuarded(_ field: StratusCodegen.Field) -> Bool {
        !field.awsAuth.isEmpty || !field.authRules.isEmpty
    }
}

/// The Amplify transformer's access matrix of a model whose fields have `@auth` rules of their
/// own: for each role, the operations it may do on each field.
struct FieldAccessMatrix: Sendable {
    /// A rule of the model or of a field, standing for one role: a static group rule names
    /// one group.
    struct Role: Sendable {
        /// The rule that admits a caller to the role, with every operation: which operations
        /// the role has is ``operations``'s business.
        var rule: AuthRuleDefinition
        /// The role's operations on each field; a field it may not touch is absent.
        var operations: [String: Set<AuthRuleDefinition.Operation>]
    }

    let roles: [Role]
    /// Every field of the model.
    let fieldNames: [String]

    /// The matrix of `model`; `nil` when no field has rules of its own, where the model's rules
    /// alone decide.
    init?(model: ModelType) {
        guard model.fields.contains(where: { !$0.authRules.isEmpty }) else { return nil }
        self.init(building: model)
    }

    /// The matrix of any model with `@auth` rules.
    init(building model: ModelType) {
        let names = model.fields.map(\.name)
        var roles: [Role] = []
        func index(of rule: AuthRuleDefinition) -> Int {
            if let found = roles.firstIndex(where: { Self.sameRole($0.rule, rule) }) { return found }
            var general = rule
            general.operations = AuthRuleDefinition.Operation.allCases
            roles.append(Role(rule: general, operations: [:]))
            return roles.count - 1
        }
        for rule in model.authRules.flatMap(Self.roleRules) {
            let operations = Self.expanded(rule.operations)
            let role = index(of: rule)
            for name in names { roles[role].operations[name] = operations }
        }
        for field in model.fields where !field.authRules.isEmpty {
            for role in roles.indices { roles[role].operations[field.name] = nil }
            for rule in field.authRules.flatMap(Self.roleRules) {
                let role = index(of: rule)
                roles[role].operations[field.name] = Self.expanded(rule.operations)
            }
        }
        self.roles = roles
        fieldNames = names
    }

    /// The rules of the roles that may do `operation` on some field, or on every field when
    /// `everyField` is set (a delete): the rules that decide which items the caller may write.
    func rules(for operation: AuthRuleDefinition.Operation, everyField: Bool = false) -> [AuthRuleDefinition] {
        roles.filter { role in
            everyField
                ? fieldNames.allSatisfy { role.operations[$0]?.contains(operation) == true }
                : role.operations.values.contains { $0.contains(operation) }
        }
        .map(\.rule)
    }

    /// The owner fields each owner role may update, by the role's owner field: a role that may
    /// update an owner field can hand the item to someone else, which the transformer warns of.
    var reassignableOwnerFields: [(role: String, fields: [String])] {
        let ownerFields = Set(roles.compactMap { $0.rule.allow == .owner ? ($0.rule.ownerField ?? "owner") : nil })
        return roles.compactMap { role in
            guard role.rule.allow == .owner else { return nil }
            let fields = fieldNames.filter {
                ownerFields.contains($0) && role.operations[$0]?.contains(.update) == true
            }
            return fields.isEmpty ? nil : (role.rule.ownerField ?? "owner", fields)
        }
    }

    /// The input fields of a create that the caller's roles do not let it set, in input order;
    /// `nil` when no role admits it at all. `item` holds the values the create writes (its owner
    /// fields filled), which owner and dynamic group roles are checked against.
    func deniedFields(
        creating input: JSONObject,
        item: JSONObject,
        model: ModelType,
        identity: Identity,
        alwaysAllowed: Set<String>
    ) -> [String]? {
        var allowed: Set<String> = []
        for role in matchingRoles(model: model, identity: identity, item: item) {
            let fields = fields(of: role, allowing: .create)
            if fields.count == fieldNames.count { return [] }
            allowed.formUnion(fields)
        }
        guard !allowed.isEmpty else { return nil }
        allowed.formUnion(alwaysAllowed)
        return input.keys.filter { !allowed.contains($0) }
    }

    /// The input fields of an update that the caller's roles do not let it set (or, for a
    /// `null`, remove), in input order; `nil` when no role admits it at all. `item` is the
    /// stored item, which owner and dynamic group roles are checked against.
    func deniedFields(
        updating input: JSONObject,
        item: JSONObject,
        model: ModelType,
        identity: Identity,
        alwaysAllowed: Set<String>
    ) -> [String]? {
        var allowed: Set<String> = []
        var nullAllowed: Set<String> = []
        for role in matchingRoles(model: model, identity: identity, item: item) {
            let updatable = fields(of: role, allowing: .update)
            let removable = fields(of: role, allowing: .delete)
            if updatable.count == fieldNames.count, removable.count == fieldNames.count { return [] }
            allowed.formUnion(updatable)
            nullAllowed.formUnion(removable)
        }
        guard !allowed.isEmpty || !nullAllowed.isEmpty else { return nil }
        allowed.formUnion(alwaysAllowed)
        nullAllowed.formUnion(alwaysAllowed)
        var denied: [String] = []
        for (name, value) in input {
            let refused = value.isNull ? !nullAllowed.contains(name) : !allowed.contains(name)
            if refused, !denied.contains(name) { denied.append(name) }
        }
        return denied
    }

    /// The roles whose rule admits `identity` to `item`.
    private func matchingRoles(model: ModelType, identity: Identity, item: JSONObject) -> [Role] {
        roles.filter { role in
            switch Authorization.access(.create, rules: [role.rule], model: model, identity: identity) {
            case .all: true
            case .denied: false
            case .rows(let rules): rules.contains { $0.admits(item) }
            }
        }
    }

    private func fields(of role: Role, allowing operation: AuthRuleDefinition.Operation) -> Set<String> {
        Set(role.operations.compactMap { $0.value.contains(operation) ? $0.key : nil })
    }

    /// A rule per role: a static group rule with several groups is a role per group.
    private static func roleRules(_ rule: AuthRuleDefinition) -> [AuthRuleDefinition] {
        guard rule.allow == .groups, rule.groupsField == nil, rule.groups.count > 1 else { return [rule] }
        return rule.groups.map { group in
            var single = rule
            single.groups = [group]
            return single
        }
    }

    /// Whether two rules stand for the same role, as the transformer names roles: provider and
    /// strategy, and the group, owner field or groups field with the claim.
    private static func sameRole(_ first: AuthRuleDefinition, _ second: AuthRuleDefinition) -> Bool {
        guard Authorization.mode(of: first.provider) == Authorization.mode(of: second.provider),
            first.allow == second.allow
        else { return false }
        switch first.allow {
        case .groups:
            return first.groups == second.groups && first.groupsField == second.groupsField
                && (first.groupClaim ?? "cognito:groups") == (second.groupClaim ?? "cognito:groups")
        case .owner:
            return (first.ownerField ?? "owner") == (second.ownerField ?? "owner")
                && first.identityClaim == second.identityClaim
        case .public, .private, .custom:
            return true
        }
    }

    /// A rule's operations with `read` standing for each read operation.
    private static func expanded(_ operations: [AuthRuleDefinition.Operation]) -> Set<AuthRuleDefinition.Operation> {
        var result = Set(operations)
        if result.contains(.read) { result.formUnion([.get, .list, .sync, .listen, .search]) }
        return result
    }
}
