import Foundation
import StratusServer

/// The pool as the API trusts it: its tokens by their issuer, keys and clients, and the identity
/// pool's credentials.
extension CognitoUserPool: TrustedUserPool, TrustedCredentialIssuer {
    public var userPoolId: String { configuration.userPoolId }
    public var region: String { configuration.region }
    public var appClientIds: [String] { configuration.clients.map(\.clientId) }

    /// A store of the pool's state in the same place as `server`'s data: the data directory's
    /// `cognito.sqlite`, or a table of its PostgreSQL database, so that servers sharing the
    /// database share the users, their tokens and the signing key.
    ///
    /// - Throws: ``ServerError`` when the store cannot be opened or migrated.
    package static func store(besides server: StratusServer) async throws(ServerError) -> any CognitoStore {
        do {
            if let client = server.databaseClient {
                let cognito = PostgresCognitoStore(client: client)
                try await cognito.migrate()
                return cognito
            }
            guard let dataDirectory = server.dataDirectory else {
                throw ServerError.cognito("The server has no data directory.")
            }
            return try store(in: dataDirectory)
        } catch let error as ServerError {
            throw error
        } catch {
            throw ServerError.cognito("The user pool's state in \(server.storeDescription) cannot be opened: \(error)")
        }
    }
}

extension ClientConfigurationFiles.CognitoEntry {
    /// The entry of a pool served at `endpoint`, with its first app client.
    public init(_ pool: CognitoUserPool, endpoint: URL) {
        let configuration = pool.configuration
        self.init(
            userPoolId: configuration.userPoolId,
            appClientId: configuration.clients.first?.clientId ?? "",
            appClientSecret: configuration.clients.first?.clientSecret,
            identityPoolId: configuration.identityPoolId,
            region: configuration.region,
            endpoint: endpoint
        )
    }
}

extension StratusHTTPServer {
    /// `server` on the network with the local Cognito `cognito` on the same port (`POST /` with an
    /// `X-Amz-Target`, and the pool's keys): the API trusts the pool's tokens and the identity
    /// pool's credentials besides what `authorization` configures.
    public init(
        server: StratusServer,
        authorization: ServerAuthorization,
        limits: ServerLimits = ServerLimits(),
        realtimeLimits: RealtimeLimits = RealtimeLimits(),
        restAPIs: [RESTAPI] = [],
        cognito: CognitoUserPool?,
        allowedHosts: [String] = [],
        clock: @escaping @Sendable () -> Date = { Date() },
        log: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) },
        requestLog: (@Sendable (String) -> Void)? = nil,
        routes: [any HTTPRouteProvider] = [],
        metrics: ServerMetrics? = nil,
        requestLogFormat: LogFormat = .text,
        tracing: ServerTracing? = nil,
        requestHistory: RequestHistory? = nil,
        liveMonitor: LiveMonitor? = nil
    ) {
        var trusting = authorization
        var routes = routes
        if let cognito {
            trusting.localUserPool = cognito
            trusting.credentialIssuer = cognito
            routes.append(
                CognitoEndpoint(
                    pool: cognito,
                    iamCredentials: authorization.iamCredentials,
                    maxRequestBytes: limits.maxRequestBytes,
                    clock: clock
                )
            )
        }
        self.init(
            server: server,
            authorization: trusting,
            limits: limits,
            realtimeLimits: realtimeLimits,
            restAPIs: restAPIs,
            routes: routes,
            allowedHosts: allowedHosts,
            clock: clock,
            log: log,
            requestLog: requestLog,
            metrics: metrics,
            requestLogFormat: requestLogFormat,
            tracing: tracing,
            requestHistory: requestHistory,
            liveMonitor: liveMonitor
        )
    }
}
