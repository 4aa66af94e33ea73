/// An event sent on a ``HubChannel``: its name, and what the sender attached.
///
/// ```swift
/// Amplify.Hub.dispatch(to: .custom("orders"), payload: HubPayload(eventName: "Orders.placed", data: orderID))
/// ```
public struct HubPayload: Sendable {
    /// The event's name, such as `Auth.signedIn` (``EventName/Auth/signedIn``).
    public let eventName: String
    /// What the event is about, when the sender says (an operation, a request).
    public let context: (any Sendable)?
    /// The event's data, whose type each event name documents.
    public let data: (any Sendable)?

    /// Creates a payload.
    public init(eventName: String, context: (any Sendable)? = nil, data: (any Sendable)? = nil) {
        self.eventName = eventName
        self.context = context
        self.data = data
    }

    /// The names of the events the categories send, grouped by category.
    public enum EventName {
        /// The events of the Auth category, on the ``HubChannel/auth`` channel.
        public enum Auth {
            /// A user signed in; the data is the signed-in `AuthUser`.
            public static let signedIn = "Auth.signedIn"
            /// The user signed out.
            public static let signedOut = "Auth.signedOut"
            /// The session's tokens expired and could not be refreshed: the user must sign in again.
            public static let sessionExpired = "Auth.sessionExpired"
            /// The user's account was deleted.
            public static let userDeleted = "Auth.userDeleted"
        }
    }
}
