import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import StratusServer
import Synchronization
import Testing

/// A WebSocket client of the real-time endpoint for tests: it sends text messages and collects
/// the server's, which ``next(timeout:)`` hands out in order.
final class RealtimeSocket: Sendable {
    private enum Outgoing: Sendable {
        case text(String)
        case close
    }

    private struct Mailbox {
        var messages: [String] = []
        var closed = false
    }

    /// The messages received, shared with the connection's task.
    private final class Inbox: Sendable {
        let state = Mutex(Mailbox())
    }

    private let inbox: Inbox
    private let outgoing: AsyncStream<Outgoing>.Continuation
    private let task: Task<Void, Never>

    /// Connects to `url`, offering `subprotocols`, with `headers` on the upgrade request.
    init(url: String, subprotocols: [String] = ["graphql-ws"], headers: HTTPFields = [:]) {
        let (stream, outgoing) = AsyncStream.makeStream(of: Outgoing.self)
        self.outgoing = outgoing
        var additional = headers
        if !subprotocols.isEmpty {
            additional[.secWebSocketProtocol] = subprotocols.joined(separator: ", ")
        }
        let configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 22, additionalHeaders: additional)
        let inbox = Inbox()
        self.inbox = inbox
        task = Task {
            _ = try? await WebSocketClient.connect(
                url: url,
                configuration: configuration,
                logger: Logger(label: "stratus.tests.ws")
            ) { inbound, outbound, _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await message in stream {
                            switch message {
                            case .text(let text):
                                try await outbound.writeTextMessage(text)
                            case .close:
                                try await outbound.close(.normalClosure, reason: nil)
                                return
                            }
                        }
                    }
                    group.addTask {
                        for try await message in inbound.messages(maxSize: 1 << 24) {
                            guard case .text(let text) = message else { continue }
                            inbox.state.withLock { $0.messages.append(text) }
                        }
                    }
                    _ = try await group.next()
                    group.cancelAll()
                }
            }
            inbox.state.withLock { $0.closed = true }
        }
    }

    /// Sends a text message.
    func send(_ text: String) {
        outgoing.yield(.text(text))
    }

    /// Sends a message given as JSON.
    func send(_ message: JSON) {
        send(message.text)
    }

    /// The next message from the server, `ka` messages skipped unless `keepAlives`; `nil` once
    /// the connection is closed.
    func next(timeout: Duration = .seconds(30), keepAlives: Bool = false) async throws -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (message, closed): (String?, Bool) = inbox.state.withLock { mailbox in
                while !mailbox.messages.isEmpty {
                    let message = mailbox.messages.removeFirst()
                    if keepAlives || message != #"{"type":"ka"}"# { return (message, false) }
                }
                return (nil, mailbox.closed)
            }
            if let message { return message }
            if closed { return nil }
            guard ContinuousClock.now < deadline else {
                throw RealtimeSocketTimeout()
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Whether the connection is closed within `timeout`.
    func waitUntilClosed(timeout: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if inbox.state.withLock({ $0.closed }) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// Closes the connection and waits for the client to finish.
    func close() async {
        outgoing.yield(.close)
        outgoing.finish()
        await task.value
    }

    deinit {
        outgoing.finish()
        task.cancel()
    }
}

struct RealtimeSocketTimeout: Error, CustomStringConvertible {
    var description: String { "No message from the server in time." }
}
