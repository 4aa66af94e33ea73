/// One `@auth` rule.
public struct AuthRule: Sendable, Hashable {
    /// Who the rule allows.
    public enum Strategy: String, Sendable, Hashable {
        case owner
        case groups
        case `private`
        case `public`
        case custom
    }

    /// Which identity provider the rule applies to.
    public enum Provider: String, Sendable, Hashable {
        case apiKey
        case iam
        case oidc
        case userPools
        case function
        case identityPool
    }

    public var allow: Strategy
    public var ownerField: String?
    public var identityClaim: String?
    public var groupClaim: String?
    public var groups: [String]
    public var groupsField: String?
    public var provider: Provider?
    public var operations: [ModelOperation]

    public init(
        allow: Strategy,
        ownerField: String? = nil,
        identityClaim: String? = nil,
        groupClaim: String? = nil,
        groups: [String] = [],
        groupsField: String? = nil,
        provider: Provider? = nil,
        operations: [ModelOperation] = ModelOperation.allCases
    ) {
        self.allow = allow
        self.ownerField = ownerField
        self.identityClaim = identityClaim
        self.groupClaim = groupClaim
        self.groups = groups
        self.groupsField = groupsField
        self.provider = provider
        self.operations = operations
    }
}

/// An operation an auth rule may allow.
public enum ModelOperation: String, Sendable, Hashable, CaseIterable {
    case create
    case update
    case delete
    case read
}

/// Builds an ``AuthRule``; the spelling generated schemas use.
public func rule(
    allow: AuthRule.Strategy,
    ownerField: String? = nil,
    identityClaim: String? = nil,
    groupClaim: String? = nil,
    groups: [String] = [],
    groupsField: String? = nil,
    provider: AuthRule.Provider? = nil,
    operations: [ModelOperation] = ModelOperation.allCases
) -> AuthRule {
    AuthRule(
        allow: allow,
        ownerField: ownerField,
        identityClaim: identityClaim,
        groupClaim: groupClaim,
        groups: groups,
        groupsField: groupsField,
        provider: provider,
        operations: operations
    )
}
