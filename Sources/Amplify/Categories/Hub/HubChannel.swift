/// A channel of ``HubCategory``: the category whose events it carries.
///
/// ```swift
/// let token = Amplify.Hub.listen(to: .auth) { payload in print(payload.eventName) }
/// ```
public enum HubChannel: Sendable, Hashable, CustomStringConvertible {
    /// The API category's events.
    case api
    /// The Auth category's events: `Auth.signedIn`, `Auth.signedOut`, `Auth.sessionExpired`,
    /// `Auth.userDeleted`.
    case auth
    /// DataStore's events.
    case dataStore
    /// An application's own channel.
    case custom(String)

    public var description: String {
        switch self {
        case .api: "api"
        case .auth: "auth"
        case .dataStore: "dataStore"
        case .custom(let name): name
        }
    }
}
