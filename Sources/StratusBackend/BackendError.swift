import StratusServer

/// A backend that cannot start: which part failed, and why.
public enum BackendError: Error, Sendable, CustomStringConvertible {
    /// The store cannot be opened: unreachable, held by another server, or written for a schema
    /// this one cannot follow (``ServerError/refusedSchemaChanges``).
    case store(ServerError)
    /// The data directory's `api-key` file cannot be read, is not text, or cannot be written.
    case apiKeyFile(String)
    /// The database's shared API key cannot be read or stored.
    case sharedAPIKey(store: String, ServerError)
    /// The local Cognito's state cannot be opened or set up.
    case cognito(ServerError)
    /// The console's admin secret cannot be read or stored, or the one given is empty.
    case consoleSecret(String)
    /// The local OpenID Connect provider's key cannot be read, made or stored.
    case localOpenIDConnect(String)
    /// The HTTP server stopped before it listened, such as on a port in use.
    case stoppedBeforeListening(String)
    /// A schema reload was asked of a backend whose data is in a database (described by
    /// `store`), which only a restart serves a changed schema on.
    case reloadNeedsDataDirectory(store: String)

    public var description: String {
        switch self {
        case .store(let error): "\(error)"
        case .apiKeyFile(let detail): detail
        case .sharedAPIKey(let store, let error): "Cannot read or store the API key in \(store): \(error)"
        case .cognito(let error): "Cannot start the local Cognito: \(error)"
        case .consoleSecret(let detail): detail
        case .localOpenIDConnect(let detail): detail
        case .stoppedBeforeListening(let outcome): "The local backend stopped before it listened: \(outcome)"
        case .reloadNeedsDataDirectory(let store):
            "The schema reloads only on a data directory; the data is in the database \(store). "
                + "Restart the server to serve the changed schema."
        }
    }
}
