import StratusCodegen

/// Which subscriptions a caller may start, and which events reach them: the model's `@auth`
/// rules for `listen` (read), or its `@aws_*` directives.
enum SubscriptionAuthorization {
    /// Refuses a `start` the caller's rules do not allow, or whose owner argument names another
    /// user: `Unauthorized`, `Not Authorized to access onCreatePost on type Subscription`.
    static func authorize(_ request: SubscriptionRequest, identity: Identity) throws(RealtimeError) {
        let unauthorized = RealtimeError(
            errorType: "Unauthorized",
            message: "Not Authorized to access \(request.fieldName) on type Subscription"
        )
        switch Authorization.access(.listen, on: request.model, for: identity) {
        case .all:
            return
        case .denied:
            throw unauthorized
        case .rows(let rules):
            for rule in rules where rule.isOwner {
                guard let argument = request.equalityArguments[rule.field]?.stringValue else { continue }
                guard rule.values.contains(argument) else { throw unauthorized }
            }
        }
    }

    /// Whether `identity` may read `item` of `model`, so that an event about it reaches a
    /// subscription of that identity: owner and dynamic group rules admit only the caller's rows.
    static func mayRead(item: StoredItem, model: ModelType, identity: Identity) -> Bool {
        switch Authorization.access(.listen, on: model, for: identity) {
        case .all: return true
        case .denied: return false
        case .rows(let rules): return rules.contains { $0.admits(item.values) }
        }
    }
}
