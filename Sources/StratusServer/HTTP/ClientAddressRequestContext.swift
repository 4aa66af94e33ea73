import Hummingbird
import NIOCore

/// The context of the HTTP routes: Hummingbird's basic one, and the address of the client the
/// connection came from, by which the local Cognito limits calls without credentials and counts
/// failed sign-ins.
struct ClientAddressRequestContext: Hummingbird.RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    /// The address of the connection's peer.
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
