import Amplify

/// What one session knows of its subscriptions: which are connected, which were left out, and
/// whether a sync query is due.
struct SubscriptionSession {
    /// How many subscriptions the session started.
    let subscriptions: Int
    private var connected = Set<Int>()
    private var unavailable = Set<Int>()
    /// Whether a sync query is due: at the start, and after a connection was lost.
    private(set) var needsSync = true
    /// Whether the session ever caught up.
    private(set) var becameReady = false
    /// The records delivered while a sync query is due, in order.
    var held: [(String, JSONValue)] = []

    init(subscriptions: Int) {
        self.subscriptions = subscriptions
    }

    /// What a connection's new state means for the session.
    enum ConnectionChange {
        case none
        /// The connection went down: a sync query is due.
        case lost
    }

    /// Records subscription `id`'s connection state.
    mutating func connection(_ id: Int, _ state: SubscriptionConnectionState) -> ConnectionChange {
        switch state {
        case .connected:
            connected.insert(id)
        case .connecting:
            connected.remove(id)
        case .disconnected:
            connected.remove(id)
            needsSync = true
            return .lost
        }
        return .none
    }

    /// Leaves subscription `id` out, refused for good; `false` when it was left out already.
    mutating func leaveOut(_ id: Int) -> Bool {
        guard unavailable.insert(id).inserted else { return false }
        connected.remove(id)
        return true
    }

    /// Whether every subscription is connected or left out.
    var allSettled: Bool { connected.count + unavailable.count == subscriptions }

    /// Whether a subscription is connected.
    var hasConnection: Bool { !connected.isEmpty }

    /// The session caught up: the held records were applied.
    mutating func ready() {
        held = []
        needsSync = false
        becameReady = true
    }
}
