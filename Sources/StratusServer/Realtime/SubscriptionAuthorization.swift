import StratusCodegen

/// Which events a subscriber may receive.
enum SubscriptionAuthorization {
    /// Whether `identity` may read `item` of `model`, so that an event about it reaches a
    /// subscription of that identity.
    ///
    /// The `@auth` rules that filter events (owner and group rules) are not applied yet: every
    /// event reaches every subscriber whose connection and `start` were authorized.
    static func mayRead(item: StoredItem, model: ModelType, identity: Identity) -> Bool {
        true
    }
}
