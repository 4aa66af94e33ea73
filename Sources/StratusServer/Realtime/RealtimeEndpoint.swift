import AWSWire
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import NIOWebSocket
import Synchronization

/// The request context of WebSocket upgrades: it keeps the channel, so that `data` messages
/// can be written in batches with one flush, and a connection whose client stopped reading can
/// be closed without writing to it.
struct RealtimeRequestContext: Hummingbird.RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<RealtimeRequestContext>
    /// The connection's channel, which takes `WebSocketFrame`s once upgraded.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        webSocket = WebSocketHandlerReference()
        channel = source.channel
    }
}

/// `GET /graphql/realtime`: AppSync's real-time protocol, the `graphql-ws` dialect of
/// subscriptions over a WebSocket.
struct RealtimeEndpoint: Sendable {
    /// The server subscriptions start on; a schema reload replaces it, and the subscriptions
    /// started before keep hearing the writes, the servers sharing their broadcasters.
    let current: CurrentServer
    let authorizer: RequestAuthenticator
    let limits: RealtimeLimits
    let log: @Sendable (String) -> Void
    /// The bytes waiting in the connections, added up.
    let queues: RealtimeQueueGauge
    /// Where each subscription `start` is kept once answered; `nil` keeps none.
    let history: RequestHistory?
    /// What is told of each connection and subscription; `nil` tells nothing.
    let monitor: LiveMonitor?
    /// Where connections with messages waiting are written, one task per event loop and tick.
    let writeQueues = PerEventLoop<RealtimeWriteQueue>()
    /// What delivers the published events to the subscribed connections, one per event loop.
    let fanouts = PerEventLoop<RealtimeFanout>()
    /// What closes idle connections and sends `ka`, one task per event loop.
    let watchers = PerEventLoop<RealtimeWatcher>()

    /// The subprotocol the server answers.
    static let subprotocol = "graphql-ws"

    /// Upgrades every request, answering `graphql-ws` when the client offers it.
    static func shouldUpgrade(_ request: Request) -> RouterShouldUpgrade {
        guard offeredSubprotocols(request).contains(subprotocol) else { return .upgrade([:]) }
        return .upgrade([.secWebSocketProtocol: subprotocol])
    }

    static func offeredSubprotocols(_ request: Request) -> [String] {
        request.headers[values: .secWebSocketProtocol].flatMap {
            $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// Serves one connection until the client or the server closes it.
    func serve(
        inbound: WebSocketInboundStream,
        outbound: WebSocketOutboundWriter,
        context: WebSocketRouterContext<RealtimeRequestContext>
    ) async throws {
        let request = context.request
        if let authority = request.head.authority, !authorizer.hosts.allows(authority) {
            let error = RealtimeError(
                errorType: .badRequest,
                message: authorizer.hosts.refusal(of: authority),
                errorCode: 421
            )
            let refusal: JSON = ["type": "connection_error", "payload": error.payload]
            try await outbound.writeTextMessage(refusal.text)
            try await outbound.close(.policyViolation, reason: "Misdirected request")
            return
        }
        let metrics = queues.metrics
        metrics?.connectionOpened()
        let opened = ContinuousClock.now
        defer { metrics?.connectionClosed(after: .now - opened) }
        let graphQLPath = Self.graphQLPath(of: request.uri.path)
        let channel = context.requestContext.channel
        let writeQueue = writeQueues.value(for: channel.eventLoop) { RealtimeWriteQueue(eventLoop: $0) }
        let writer = await RealtimeFrameWriter.make(for: channel)
        let connection = RealtimeConnection(limits: limits, gauge: queues) { connection in
            writeQueue.schedule(connection, on: writer)
        }
        defer { connection.release() }
        let (connectionIdentity, connectionToken) = await authorizeConnection(request, graphQLPath: graphQLPath)
        let connected = try? connectionIdentity.get()
        let liveID = monitor?.opened(
            authorizationMode: connected?.authorizationMode.rawValue,
            identity: connected?.summary(apiKey: ConnectionCredentials.headers(of: request)["x-api-key"]?.stringValue)
        )
        defer { if let liveID { monitor?.closed(liveID) } }
        let events = current.server.events
        let fanout = fanouts.value(for: channel.eventLoop) { RealtimeFanout.make(eventLoop: $0, events: events) }
        defer { fanout.remove(connection) }
        let subscriber = Subscriber(
            connection: connection,
            writer: writer,
            fanout: fanout,
            connectionToken: connectionToken,
            liveID: liveID
        )
        defer { subscriber.handWritten.stopAll() }
        // The tokens in use expire and can be revoked: checked at their expiry and now and then.
        let handWritten = subscriber.handWritten
        let credentials = Task { [self] in
            await watchCredentials(
                of: connection,
                connectionToken: connectionToken,
                fanout: fanout,
                handWritten: handWritten
            )
        }
        defer { credentials.cancel() }
        let limits = limits
        let watcher = watchers.value(for: channel.eventLoop) { RealtimeWatcher(eventLoop: $0, limits: limits) }
        watcher.add(connection, channel: channel)
        defer { watcher.remove(connection) }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await Self.end(connection, outbound: outbound, limits: limits, metrics: metrics)
            }
            group.addTask {
                do {
                    for try await message in inbound.messages(maxSize: limits.maxMessageBytes) {
                        connection.noteTraffic()
                        guard case .text(let text) = message else { continue }
                        await handle(
                            text,
                            subscriber: subscriber,
                            connectionIdentity: connectionIdentity,
                            graphQLPath: graphQLPath
                        )
                    }
                } catch  where !Task.isCancelled {
                    log("A real-time connection ended on an error: \(error)")
                } catch {
                    // The server is shutting down, or the connection already ended.
                }
            }
            _ = await group.next()
            group.cancelAll()
        }
    }

    // MARK: - Messages

    /// A connection, with what starts and stops its subscriptions.
    private struct Subscriber {
        let connection: RealtimeConnection
        let writer: RealtimeFrameWriter
        let fanout: RealtimeFanout
        /// The token the connection was authorized with, when it expires or can be revoked.
        let connectionToken: RealtimeToken?
        /// Its subscriptions to hand-written subscription fields.
        let handWritten = HandWrittenStarts()
        /// Its number in the live monitor, when there is one.
        let liveID: Int?
    }

    private func handle(
        _ text: String,
        subscriber: Subscriber,
        connectionIdentity: Result<Identity, RealtimeError>,
        graphQLPath: String
    ) async {
        let connection = subscriber.connection
        // A message that is not a JSON object with a type is refused as malformed.
        guard let message = try? JSON(parsing: text), case .object(let object) = message,
            let type = object["type"]?.stringValue
        else {
            connection.send(["type": "error", "payload": RealtimeError.malformed.payload])
            return
        }
        switch type {
        case "connection_init":
            switch connectionIdentity {
            case .success:
                queues.metrics?.connected(true)
                connection.acknowledge()
            case .failure(let error):
                queues.metrics?.connected(false)
                connection.send(["type": "connection_error", "payload": error.payload])
                connection.close(code: 1000, reason: "Unauthorized")
            }
        case "start":
            let id = object["id"]?.stringValue ?? ""
            let start = {
                await self.start(
                    id: id,
                    payload: object["payload"],
                    size: text.utf8.count,
                    subscriber: subscriber,
                    connectionIdentity: connectionIdentity,
                    graphQLPath: graphQLPath
                )
            }
            guard let history else {
                _ = await start()
                return
            }
            // Noted in an entry of its own, as an HTTP request is, and kept once answered.
            let entry = RequestLogEntry(isRecorded: true)
            let started = ContinuousClock.now
            let failure = await RequestLogEntry.$current.withValue(entry) { await start() }
            if let failure { entry.note(errors: failure.payload["errors"]?.arrayValue ?? []) }
            let status = failure.map { $0.errorType == .unauthorizedException ? 401 : 400 } ?? 200
            history.add(
                entry.record(
                    transport: .realtime,
                    method: "start",
                    path: graphQLPath,
                    id: id,
                    status: status,
                    duration: .now - started
                )
            )
        case "stop":
            queues.metrics?.unsubscribed()
            if subscriber.handWritten.stop(id: object["id"]?.stringValue ?? "", on: connection) { return }
            if let stopped = connection.stop(id: object["id"]?.stringValue ?? "") {
                subscriber.fanout.unsubscribe(connection, from: stopped.topic)
                if let liveID = subscriber.liveID { monitor?.stopped(object["id"]?.stringValue ?? "", on: liveID) }
            }
        case "ka", "connection_terminate":
            break
        default:
            let error = RealtimeError(
                errorType: .unsupportedOperation,
                message: "The message type '\(type)' is not part of the protocol."
            )
            connection.send(["type": "error", "payload": error.payload])
        }
    }

    /// Starts the subscription of a `start` message, or sends its error; the error, or `nil`
    /// once it started.
    private func start(
        id: String,
        payload: JSON?,
        size: Int,
        subscriber: Subscriber,
        connectionIdentity: Result<Identity, RealtimeError>,
        graphQLPath: String
    ) async -> RealtimeError? {
        let connection = subscriber.connection
        do throws(RealtimeError) {
            guard case .success(let identity) = connectionIdentity else { throw RealtimeError.unauthorized }
            guard connection.isAcknowledged else { throw RealtimeError.notInitialized }
            try await start(
                id: id,
                payload: payload,
                size: size,
                subscriber: subscriber,
                connectionIdentity: identity,
                graphQLPath: graphQLPath
            )
            queues.metrics?.subscribed(true)
            return nil
        } catch {
            queues.metrics?.subscribed(false)
            connection.send(["id": .string(id), "type": "error", "payload": error.payload])
            return error
        }
    }

    private func start(
        id: String,
        payload: JSON?,
        size: Int,
        subscriber: Subscriber,
        connectionIdentity: Identity,
        graphQLPath: String
    ) async throws(RealtimeError) {
        guard !id.isEmpty, let data = payload?["data"]?.stringValue else { throw .malformed }
        guard size <= limits.maxPayloadBytes else { throw .payloadTooLarge(limits.maxPayloadBytes) }
        let identity: Identity
        var token: RealtimeToken?
        if case .object(let headers)? = payload?["extensions"]?["authorization"] {
            do throws(HTTPRejection) {
                identity = try await authorizer.identity(
                    for: RequestAuthenticator.SignedParts(path: graphQLPath, headers: headers, body: Data(data.utf8))
                )
            } catch {
                throw RealtimeError(errorType: error.errorType, message: error.message)
            }
            token = RealtimeToken(headers: headers, identity: identity)
        } else {
            // The connection's token may have expired or been revoked since it connected.
            if let connectionToken = subscriber.connectionToken, let rejection = await check(connectionToken) {
                end(subscriber.connection, refusing: rejection)
                return
            }
            identity = connectionIdentity
        }
        let entry = RequestLogEntry.current
        entry?.note(authorizationMode: identity.authorizationMode.rawValue)
        entry?.note(
            identity: identity.summary(apiKey: payload?["extensions"]?["authorization"]?["x-api-key"]?.stringValue)
        )
        // Variables that cannot be read refuse the start, as they refuse an HTTP request: read
        // as none, they would widen the subscription's filter.
        guard let object = (try? JSON(parsing: data))?.objectValue, let operation = GraphQLEndpoint.Operation(object)
        else { throw .malformed }
        let server = await current.lease()
        defer { current.release() }
        if let entry {
            let summary = server.operationSummary(of: operation.query, operationName: operation.operationName)
            entry.note(
                operationType: summary.map { "\($0.type)" },
                operationName: summary?.name ?? operation.operationName
            )
            if size <= RequestHistory.maxKeptBodyBytes {
                entry.note(query: operation.query, variables: operation.variables)
            }
        }
        if let handWritten = try server.handWrittenSubscription(
            query: operation.query,
            variables: operation.variables,
            operationName: operation.operationName,
            identity: identity
        ) {
            try subscriber.handWritten.start(
                id: id,
                handWritten,
                on: subscriber.connection,
                events: server.handWrittenEvents,
                broadcaster: server.events,
                credentials: token
            )
            return
        }
        let request = try server.subscriptionRequest(
            query: operation.query,
            variables: operation.variables,
            operationName: operation.operationName,
            identity: identity
        )
        let access = try SubscriptionAuthorization.authorize(request, identity: identity)
        // The connection hears the topic before the subscription exists, so no event committed
        // after the subscription starts can miss it; until then the connection ignores them, and
        // the subscription ignores those published before it was registered.
        let connection = subscriber.connection
        let after = subscriber.fanout.subscribe(connection, writer: subscriber.writer, to: request.topic)
        do {
            // The live monitor hears of it before the client can hear start_ack.
            try connection.start(id: id, request: request, access: access, after: after, token: token) {
                if let liveID = subscriber.liveID { monitor?.started(id, request, on: liveID, identity: identity) }
            }
        } catch {
            subscriber.fanout.unsubscribe(connection, from: request.topic)
            throw error
        }
    }

    // MARK: - Connection authorization

    /// Who opened the connection, from the first carrier of credentials the request has: the
    /// `header` query parameter, a `header-` subprotocol, or the upgrade request's own headers;
    /// and the token it did so with, when that token expires or can be revoked.
    private func authorizeConnection(
        _ request: Request,
        graphQLPath: String
    ) async -> (Result<Identity, RealtimeError>, RealtimeToken?) {
        let headers = ConnectionCredentials.headers(of: request)
        do throws(HTTPRejection) {
            let identity = try await authorizer.identity(
                for: RequestAuthenticator.SignedParts(
                    path: graphQLPath + "/connect",
                    headers: headers,
                    body: Data("{}".utf8)
                )
            )
            return (.success(identity), RealtimeToken(headers: headers, identity: identity))
        } catch {
            return (.failure(RealtimeError(connectionRefusal: error)), nil)
        }
    }

    /// The GraphQL endpoint's path for a real-time path: `/graphql` for `/graphql/realtime`.
    static func graphQLPath(of path: String) -> String {
        path.hasSuffix("/realtime") ? String(path.dropLast("/realtime".count)) : path
    }

    // MARK: - Writing and watching

    /// Writes `batch`, the messages taken from `connection`'s queue, with `writer`, then flushes
    /// once: a client that reads slower than events come gets several messages per write. Runs
    /// on the channel's event loop, where the connection's `wake` and its loop's
    /// ``RealtimeFanout`` take the messages.
    static func write(
        _ batch: [RealtimeConnection.Outbound],
        of connection: RealtimeConnection,
        to writer: RealtimeFrameWriter
    ) {
        guard !batch.isEmpty else { return }
        let written = writer.channel.eventLoop.makePromise(of: Void.self)
        var ending: RealtimeConnection.Ending?
        if case .close(let code, let reason) = batch.last { ending = .close(code: code, reason: reason) }
        let bytes = batch.reduce(0) { $0 + $1.size }
        writer.write(batch, promise: written)
        written.futureResult.whenComplete { [ending] _ in
            connection.written(batch.count, bytes: bytes)
            if let ending { connection.end(ending) }
        }
    }

    /// Closes the WebSocket when the connection ends: after its last messages on a close, or
    /// with the slow-consumer error when its queue overflowed.
    private static func end(
        _ connection: RealtimeConnection,
        outbound: WebSocketOutboundWriter,
        limits: RealtimeLimits,
        metrics: ServerMetrics?
    ) async {
        for await ending in connection.endings {
            do {
                switch ending {
                case .close(let code, let reason):
                    try await outbound.close(.init(codeNumber: Int(code)), reason: reason)
                case .slowConsumer:
                    metrics?.slowConsumerClosed()
                    let waited =
                        connection.overflow == .bytes
                        ? "\(limits.maxQueuedBytes) bytes" : "\(limits.maxQueuedMessages) messages"
                    let error = RealtimeError(
                        errorType: .slowConsumer,
                        message: "The client read too slowly: more than \(waited) waited. Reconnect and read faster."
                    )
                    let message: JSON = ["type": "connection_error", "payload": error.payload]
                    try await outbound.writeTextMessage(message.text)
                    try await outbound.close(.policyViolation, reason: "Slow consumer")
                }
            } catch {
                // The connection already ended.
            }
            return
        }
    }
}

/// Where a connection request carries its credentials.
enum ConnectionCredentials {
    /// The header object of the connection: the base64 JSON of the `header` query parameter, of
    /// a `header-` subprotocol (base64url without padding), or the upgrade's headers.
    static func headers(of request: Request) -> JSONObject {
        if let parameter = request.uri.queryParameters["header"], let object = decode(String(parameter)) {
            return object
        }
        for offered in RealtimeEndpoint.offeredSubprotocols(request) where offered.hasPrefix("header-") {
            if let object = decode(String(offered.dropFirst("header-".count))) { return object }
        }
        var object = JSONObject()
        if let authority = request.head.authority { object["host"] = .string(authority) }
        for field in request.headers where object[field.name.canonicalName] == nil {
            object[field.name.canonicalName] = .string(field.value)
        }
        return object
    }

    /// Decodes base64 or base64url JSON leniently: line breaks ignored, padding optional, and a
    /// `+` a query decoder turned into a space restored.
    static func decode(_ text: String) -> JSONObject? {
        let cleaned = String(
            text.compactMap { character -> Character? in
                switch character {
                case "\n", "\r", "\t": return nil
                case " ": return "+"
                default: return character
                }
            }
        )
        // Text that is not base64url JSON is no object: the caller refuses it.
        guard let data = Base64URL.decode(cleaned), let json = try? JSON(parsing: data) else { return nil }
        return json.objectValue
    }
}
