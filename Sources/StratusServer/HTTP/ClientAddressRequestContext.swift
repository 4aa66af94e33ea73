import Hummingbird
import NIOCore

/// The context of the HTTP routes: Hummingbird's basic one, and the address of the client the
/// connection came from, by which the local Cognito limits calls without credentials and counts
/// failed sign-ins.
public struct ClientAddressRequestContext: Hummingbird.RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The address of the connection's peer.
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
