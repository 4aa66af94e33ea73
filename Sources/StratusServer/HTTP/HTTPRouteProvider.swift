import Hummingbird

/// Routes another service adds to the API's port, such as the local Cognito's `POST /` and its
/// keys: ``StratusHTTPServer`` mounts them behind its host check.
public protocol HTTPRouteProvider: Sendable {
    /// Adds the routes to `router`.
    func addRoutes(to router: Router<ClientAddressRequestContext>)
    /// The server listens at `origin` (`http://127.0.0.1:<port>`); called once the port is bound,
    /// before the server says it is ready.
    func serverListens(at origin: String)
}
