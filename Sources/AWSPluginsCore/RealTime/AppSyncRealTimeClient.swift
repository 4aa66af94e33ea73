import Amplify
import Foundation
import HummingbirdWSClient
import Logging
import Synchronization

/// One WebSocket connection to an AppSync real-time endpoint, shared by every subscription made
/// through it, that survives drops.
///
/// The connection opens with the first subscription and closes after the last one stops. When
/// it drops (network loss, server restart, no `ka` within `connectionTimeoutMs`), every live
/// subscription hears `.connection(.disconnected)`; the client reconnects with jittered
/// exponential backoff and sends `start` again for each. Only the server's refusal of the
/// connection or of a subscription ends a subscription with an error.
///
/// ```swift
/// let client = AppSyncRealTimeClient(graphQLURL: url, authorizer: authorizer)
/// let events = await client.subscribe(data: #"{"query":"subscription { onCreatePost { id } }","variables":{}}"#)
/// for try await event in events { print(event) }
/// ```
public actor AppSyncRealTimeClient {
    public let graphQLURL: URL
    public let configuration: AppSyncRealTimeConfiguration
    private let authorizer: any AppSyncRealTimeAuthorizer
    private let logger: Logger

    private struct Subscription {
        let data: String
        let continuation: AsyncThrowingStream<AppSyncRealTimeEvent, any Error>.Continuation
        /// The connection generation the `start` was sent on, if any.
        var startedOn: Int?
        var acknowledged = false
    }

    private var subscriptions: [String: Subscription] = [:]
    private var loop: Task<Void, Never>?
    /// Counts connections, so that messages of an old one are told apart.
    private var generation = 0
    private var outbound: AsyncStream<String>.Continuation?
    private var acknowledged = false
    private var connectionTimeout: Duration
    private var lastActivity = ContinuousClock.now
    private var connectedAt = ContinuousClock.now
    private var fatalError: AppSyncRealTimeError?
    private var closeRequested = false
    /// Whether a connection of the current run of the loop was acknowledged: the next
    /// acknowledgement is a reconnection (``AppSyncRealTimeConfiguration/reconnected``).
    private var acknowledgedBefore = false

    public init(
        graphQLURL: URL,
        authorizer: any AppSyncRealTimeAuthorizer,
        configuration: AppSyncRealTimeConfiguration = AppSyncRealTimeConfiguration(),
        logger: Logger = Logger(label: "stratus.realtime")
    ) {
        self.graphQLURL = graphQLURL
        self.authorizer = authorizer
        self.configuration = configuration
        self.logger = logger
        self.connectionTimeout = configuration.defaultConnectionTimeout
    }

    /// The number of live subscriptions.
    public var subscriptionCount: Int { subscriptions.count }

    /// Starts a subscription whose `start` carries `data` (`{"query":…,"variables":…}`).
    ///
    /// The stream first reports `.connection(.connecting)`, then `.connection(.connected)` once
    /// the server acknowledged the subscription. Ending the iteration (or cancelling its task)
    /// stops the subscription.
    public func subscribe(data: String) -> AsyncThrowingStream<AppSyncRealTimeEvent, any Error> {
        let id = UUID().uuidString.lowercased()
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: AppSyncRealTimeEvent.self)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id) }
        }
        subscriptions[id] = Subscription(data: data, continuation: continuation)
        continuation.yield(.connection(.connecting))
        if acknowledged {
            Task { await self.start(id) }
        }
        // A connection that was to close after its last subscription serves this one instead.
        closeRequested = false
        if loop == nil {
            loop = Task { await self.run() }
        }
        return stream
    }

    /// Stops a subscription: `stop` to the server, and the connection closed after the last one.
    private func unsubscribe(_ id: String) {
        guard let subscription = subscriptions.removeValue(forKey: id) else { return }
        subscription.continuation.finish()
        if subscription.startedOn == generation, acknowledged {
            send(Self.message(["type": "stop", "id": .string(id)]))
        }
        if subscriptions.isEmpty {
            closeRequested = true
        }
    }

    // MARK: - The connection loop

    private func run() async {
        var failures = 0
        acknowledgedBefore = false
        while !subscriptions.isEmpty, !Task.isCancelled {
            let wasAcknowledged = await connectOnce()
            markDisconnected()
            if let fatalError {
                finishAll(throwing: fatalError)
                self.fatalError = nil
                break
            }
            guard !subscriptions.isEmpty, !closeRequested else { break }
            failures = wasAcknowledged ? 1 : failures + 1
            let delay = configuration.delay(beforeAttempt: failures, random: Double.random(in: 0...1))
            logger.debug("reconnecting in \(delay)")
            // `Task.sleep` throws only `CancellationError`, which the loop's condition sees.
            try? await Task.sleep(for: delay)
            for subscription in subscriptions.values {
                subscription.continuation.yield(.connection(.connecting))
            }
        }
        loop = nil
        if !subscriptions.isEmpty, !Task.isCancelled {
            // A subscription arrived while the loop was ending.
            closeRequested = false
            loop = Task { await self.run() }
        }
    }

    /// Connects, serves the connection until it ends, and says whether it was acknowledged.
    private func connectOnce() async -> Bool {
        generation += 1
        let current = generation
        acknowledged = false
        closeRequested = false
        connectedAt = .now
        lastActivity = .now
        let header: [String: String]
        do {
            header = try await authorizer.connectionAuthorization(graphQLURL: graphQLURL)
        } catch {
            fatalError = AppSyncRealTimeError(
                kind: .authorization,
                errors: [GraphQLError(message: String(describing: error))]
            )
            return false
        }
        var components = URLComponents(url: graphQLURL.appSyncRealTimeURL, resolvingAgainstBaseURL: false)
        components?.queryItems = [
            URLQueryItem(name: "header", value: Self.base64JSON(header)),
            URLQueryItem(name: "payload", value: "e30="),
        ]
        guard let url = components?.url else { return false }
        var webSocketConfiguration = WebSocketClientConfiguration(maxFrameSize: 1 << 22)
        webSocketConfiguration.additionalHeaders[.secWebSocketProtocol] = "graphql-ws"
        let (writes, writer) = AsyncStream.makeStream(of: String.self)
        outbound = writer
        defer {
            writer.finish()
            if generation == current { outbound = nil }
        }
        // The attempt ends when the connection closes, or when the server does not acknowledge
        // it in time; a connection stuck in its handshake is then left behind, and closes itself
        // if it ever opens, as it belongs to an older generation.
        let acknowledgementTimeout = configuration.acknowledgementTimeout
        let logger = logger
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = Once()
            Task {
                do {
                    try await WebSocketClient.connect(
                        url: url.absoluteString,
                        configuration: webSocketConfiguration,
                        logger: logger
                    ) { inbound, socket, _ in
                        try await socket.write(.text(#"{"type":"connection_init"}"#))
                        try await withThrowingTaskGroup(of: Void.self) { group in
                            group.addTask {
                                for await text in writes {
                                    try await socket.write(.text(text))
                                }
                            }
                            group.addTask {
                                while await self.isAlive(current) {
                                    try await Task.sleep(for: .milliseconds(200))
                                }
                                try await socket.close(.normalClosure, reason: nil)
                                throw CancellationError()
                            }
                            for try await message in inbound.messages(maxSize: 1 << 22) {
                                guard case .text(let text) = message else { continue }
                                await self.receive(text, generation: current)
                            }
                            group.cancelAll()
                        }
                    }
                } catch {
                    logger.debug("real-time connection ended: \(error)")
                }
                if once.claim() { continuation.resume() }
            }
            Task {
                // Cancelled or not, the wait is over: the check below decides.
                try? await Task.sleep(for: acknowledgementTimeout + .milliseconds(500))
                if self.abandonUnacknowledged(current), once.claim() { continuation.resume() }
            }
        }
        return acknowledged || subscriptions.values.contains { $0.acknowledged }
    }

    /// Gives up on connection `current` when the server has not acknowledged it; `true` when it
    /// did give up.
    private func abandonUnacknowledged(_ current: Int) -> Bool {
        guard current == generation, !acknowledged else { return false }
        logger.debug("no connection_ack within \(configuration.acknowledgementTimeout); reconnecting")
        generation += 1
        return true
    }

    /// `false` once the connection must close: no subscription left, no `ka` in time, no
    /// acknowledgement in time, or a fatal error.
    private func isAlive(_ current: Int) -> Bool {
        guard current == generation, !closeRequested, fatalError == nil else { return false }
        if acknowledged {
            return ContinuousClock.now - lastActivity < connectionTimeout
        }
        return ContinuousClock.now - connectedAt < configuration.acknowledgementTimeout
    }

    private func markDisconnected() {
        acknowledged = false
        for id in subscriptions.keys {
            subscriptions[id]?.startedOn = nil
            subscriptions[id]?.acknowledged = false
            subscriptions[id]?.continuation.yield(.connection(.disconnected))
        }
    }

    private func finishAll(throwing error: AppSyncRealTimeError) {
        let ended = subscriptions
        subscriptions = [:]
        for subscription in ended.values {
            subscription.continuation.finish(throwing: error)
        }
    }

    // MARK: - Messages

    private func receive(_ text: String, generation current: Int) async {
        guard current == generation else { return }
        lastActivity = .now
        let message: JSONValue
        do {
            message = try JSONValue(parsing: text)
        } catch {
            logger.warning("unreadable real-time message (\(error)): \(text.prefix(200))")
            return
        }
        guard case .string(let type)? = message["type"] else {
            logger.warning("real-time message without a type: \(text.prefix(200))")
            return
        }
        let id = message["id"]?.stringValue
        switch type {
        case "connection_ack":
            acknowledged = true
            if acknowledgedBefore { configuration.reconnected?() }
            acknowledgedBefore = true
            if let milliseconds = message.value(at: "payload.connectionTimeoutMs")?.intValue, milliseconds > 0 {
                connectionTimeout = .milliseconds(milliseconds)
            } else {
                connectionTimeout = configuration.defaultConnectionTimeout
            }
            for id in subscriptions.keys {
                await start(id)
            }
        case "ka":
            break
        case "start_ack":
            guard let id, subscriptions[id] != nil else { return }
            subscriptions[id]?.acknowledged = true
            subscriptions[id]?.continuation.yield(.connection(.connected))
        case "data":
            guard let id, let subscription = subscriptions[id] else { return }
            subscription.continuation.yield(.data(message["payload"] ?? .null))
        case "error":
            let errors = Self.errors(in: message)
            guard let id else {
                logger.warning("real-time error without an id: \(text.prefix(500))")
                return
            }
            guard let subscription = subscriptions.removeValue(forKey: id) else { return }
            subscription.continuation.finish(throwing: AppSyncRealTimeError(kind: .subscriptionRefused, errors: errors))
            if subscriptions.isEmpty { closeRequested = true }
        case "complete":
            guard let id, let subscription = subscriptions.removeValue(forKey: id) else { return }
            subscription.continuation.finish()
            if subscriptions.isEmpty { closeRequested = true }
        case "connection_error":
            fatalError = AppSyncRealTimeError(kind: .connectionRefused, errors: Self.errors(in: message))
        default:
            logger.debug("ignored real-time message of type \(type)")
        }
    }

    /// Sends the `start` of subscription `id` on the current connection.
    private func start(_ id: String) async {
        guard let subscription = subscriptions[id], subscription.startedOn != generation, acknowledged else { return }
        let current = generation
        subscriptions[id]?.startedOn = current
        let authorization: [String: String]
        do {
            authorization = try await authorizer.startAuthorization(graphQLURL: graphQLURL, data: subscription.data)
        } catch {
            guard let removed = subscriptions.removeValue(forKey: id) else { return }
            removed.continuation.finish(
                throwing: AppSyncRealTimeError(
                    kind: .authorization,
                    errors: [GraphQLError(message: String(describing: error))]
                )
            )
            return
        }
        guard current == generation, subscriptions[id] != nil else { return }
        send(
            Self.message([
                "id": .string(id),
                "type": "start",
                "payload": [
                    "data": .string(subscription.data),
                    "extensions": ["authorization": .object(authorization.mapValues { .string($0) })],
                ],
            ])
        )
    }

    private func send(_ text: String) {
        outbound?.yield(text)
    }

    /// The text of a protocol message: compact JSON with sorted keys.
    private static func message(_ object: [String: JSONValue]) -> String {
        text(of: .object(object))
    }

    /// The base64 of a JSON object of strings, as the connection URL's `header` carries it.
    private static func base64JSON(_ object: [String: String]) -> String {
        Data(text(of: .object(object.mapValues { .string($0) })).utf8).base64EncodedString()
    }

    /// The canonical text of a message the client builds from strings and objects only, which
    /// always has one: only an infinite or NaN number has none.
    private static func text(of json: JSONValue) -> String {
        guard let text = json.canonicalText else {
            preconditionFailure("A real-time message holds a number JSON cannot write: \(json)")
        }
        return text
    }

    /// The `errors` of an `error` or `connection_error` message, each read as every client reads
    /// AppSync's errors; an entry that is not a GraphQL error is kept as a message quoting it.
    private static func errors(in message: JSONValue) -> [GraphQLError] {
        guard case .array(let errors)? = message.value(at: "payload.errors") else {
            return [
                GraphQLError(message: "The server sent \(message["type"]?.stringValue ?? "an error") without errors.")
            ]
        }
        return errors.enumerated().map { index, entry in
            do {
                return try GraphQLError(appSyncError: entry, at: ["payload", "errors", String(index)])
            } catch {
                // Parsed JSON always has a canonical text; the description only stands in for
                // the quote of a value built in code.
                let sent = entry.canonicalText ?? "\(entry)"
                return GraphQLError(message: "\(error) The server sent: \(sent)")
            }
        }
    }
}

/// Lets the first of several racing tasks act.
private final class Once: Sendable {
    private let claimed = Mutex(false)

    func claim() -> Bool {
        claimed.withLock { claimed in
            defer { claimed = true }
            return !claimed
        }
    }
}
