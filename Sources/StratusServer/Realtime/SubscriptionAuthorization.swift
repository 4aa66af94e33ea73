import StratusCodegen

/// Which subscriptions a caller may start, and which events reach them: the model's `@auth`
/// rules for `listen` (read), or its `@aws_*` directives.
enum SubscriptionAuthorization {
    /// Refuses a `start` the caller's rules do not allow, or whose owner argument names another
    /// user: `Unauthorized`, `Not Authorized to access onCreatePost on type Subscription`.
    ///
    /// - Returns: what the subscription may read: every event, or those of the rows its rules
    ///   admit. The model and the caller do not change while it runs, so this holds for each of
    ///   its events.
    static func authorize(
        _ request: SubscriptionRequest,
        identity: Identity
    ) throws(RealtimeError) -> Authorization.Access {
        let unauthorized = RealtimeError(
            errorType: .unauthorized,
            message: "Not Authorized to access \(request.fieldName) on type Subscription"
        )
        let access = Authorization.access(.listen, on: request.model, for: identity)
        switch access {
        case .all:
            break
        case .denied:
            Authorization.noteRefusal(Authorization.denial(of: request.fieldName, on: request.model, for: identity))
            throw unauthorized
        case .rows(let rules):
            for rule in rules where rule.isOwner {
                guard let argument = request.equalityArguments[rule.field]?.stringValue else { continue }
                guard rule.values.contains(where: { $0.isExactly(argument) }) else {
                    Authorization.noteRefusal(
                        "The owner rule on '\(rule.field)' refused the subscription: its argument '\(argument)' is "
                            + "none of the caller's identities (\(rule.values.map { "'\($0)'" }.joined(separator: ", ")))."
                    )
                    throw unauthorized
                }
            }
        }
        return access
    }

    /// Whether a subscription granted `access` may read `item`, so that an event about it
    /// reaches the subscription: owner and dynamic group rules admit only the caller's rows.
    static func mayRead(item: StoredItem, access: Authorization.Access) -> Bool {
        switch access {
        case .all: return true
        case .denied: return false
        case .rows(let rules): return rules.contains { $0.admits(item.values) }
        }
    }
}
