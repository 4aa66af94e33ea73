#if os(Linux)
    import Foundation
    import HTTPTypes
    import HummingbirdWSClient
    import Logging
    import StratusBackend
    import StratusCodegen
    import StratusServer
    import Synchronization

    import Glibc

    /// `stratus serve` in this process on a free loopback port, and the means to send it one fuzzer
    /// input at a time over real sockets, waiting for its answer.
    final class FuzzServer: Sendable {
        static let apiKey = "da2-fuzz"

        /// The schema served: models with keys, indexes, relations, enums, embedded types and every
        /// scalar, so that inputs reach every resolver.
        static let schema = """
            enum Status { DRAFT PUBLISHED }
            type Address { street: String city: String tags: [String] }
            type Post @model {
              id: ID!
              title: String!
              rating: Int
              score: Float
              done: Boolean
              status: Status
              tags: [String]
              metadata: AWSJSON
              due: AWSDateTime
              day: AWSDate
              email: AWSEmail
              address: Address
              comments: [Comment] @hasMany
            }
            type Comment @model {
              id: ID!
              content: String
              post: Post @belongsTo
            }
            type Order @model {
              customerId: ID! @primaryKey(sortKeyFields: ["createdAt"])
              createdAt: AWSDateTime!
              total: Int @index(name: "byTotal", queryField: "ordersByTotal")
            }
            """

        let port: Int
        private let serving: Backend.Serving

        private init(serving: Backend.Serving) {
            self.port = serving.port
            self.serving = serving
        }

        /// Starts the server in a new temporary data directory.
        static func start() async throws -> FuzzServer {
            let directory = FileManager.default.temporaryDirectory.appending(path: "stratus-fuzz-\(UUID().uuidString)")
            let backend = try await Backend.open(
                Backend.Configuration(
                    schema: try SchemaParser().parse(schema),
                    store: .dataDirectory(directory),
                    authorization: ServerAuthorization(defaultMode: .apiKey, apiKeys: [APIKey(value: apiKey)]),
                    log: { _ in }
                )
            )
            return FuzzServer(serving: try await backend.start(port: 0))
        }

        /// Sends `input` and waits for the server's answer, at most `timeout`; returns the answer's
        /// first line (HTTP) or its messages (real-time), for a replay to show.
        @discardableResult
        func deliver(_ input: FuzzInput, timeout: Duration = .seconds(5)) -> String {
            switch input {
            case .post(let body):
                var request = Data(
                    "POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nx-api-key: \(Self.apiKey)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
                        .utf8
                )
                request.append(body)
                return exchange(request, halfClose: false, timeout: timeout)
            case .get(let query):
                let request = Data(
                    "GET /graphql?\(Self.requestLineSafe(query)) HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: \(Self.apiKey)\r\nConnection: close\r\n\r\n"
                        .utf8
                )
                return exchange(request, halfClose: false, timeout: timeout)
            case .raw(let bytes):
                return exchange(bytes, halfClose: true, timeout: timeout)
            case .realtime(let message):
                return realtime(String(decoding: message, as: UTF8.self), timeout: timeout)
            }
        }

        /// The bytes of `data` that can stand in a request line as they are, the others
        /// percent-encoded.
        static func requestLineSafe(_ data: Data) -> String {
            var text = ""
            for byte in data {
                if byte > 0x20, byte < 0x7F, byte != UInt8(ascii: "#") {
                    text.unicodeScalars.append(UnicodeScalar(byte))
                } else {
                    text += String(format: "%%%02X", byte)
                }
            }
            return text
        }

        /// A new connection to the server. It closes with a reset, leaving no TIME_WAIT behind:
        /// at a thousand connections a second, TIME_WAIT would use up the ephemeral ports.
        /// Connecting is retried for two seconds before the server counts as gone.
        private func connectedSocket() -> Int32 {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var failure: Int32 = 0
            for _ in 0..<200 {
                let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                guard socket >= 0 else { fatalError("No socket: errno \(errno)") }
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                setsockopt(socket, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                let connected = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
                if connected == 0 { return socket }
                failure = errno
                close(socket)
                usleep(10_000)
            }
            fatalError("The server accepts no connection: errno \(failure)")
        }

        /// Writes `request` on a new connection and reads until the server closes it or `timeout`.
        private func exchange(_ request: Data, halfClose: Bool, timeout: Duration) -> String {
            let socket = connectedSocket()
            defer { close(socket) }
            var receiveTimeout = timeval(tv_sec: 0, tv_usec: 100_000)
            setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &receiveTimeout, socklen_t(MemoryLayout<timeval>.size))
            request.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Glibc.send(
                        socket,
                        buffer.baseAddress! + offset,
                        buffer.count - offset,
                        Int32(MSG_NOSIGNAL)
                    )
                    if written <= 0 { return }
                    offset += written
                }
            }
            if halfClose { shutdown(socket, Int32(SHUT_WR)) }
            let deadline = ContinuousClock.now + timeout
            var buffer = [UInt8](repeating: 0, count: 65_536)
            var answer: [UInt8] = []
            func firstLine() -> String {
                let line = answer.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
                return answer.isEmpty ? "closed without an answer" : String(decoding: line, as: UTF8.self)
            }
            while ContinuousClock.now < deadline {
                let read = recv(socket, &buffer, buffer.count, 0)
                if read == 0 { return firstLine() }
                if read > 0, answer.count < 256 { answer += buffer[..<min(read, 256)] }
                if read < 0, errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR { return firstLine() }
            }
            return answer.isEmpty ? "no answer within \(timeout)" : firstLine() + " (not closed)"
        }

        static let sentinelId = "stratus-fuzz-sentinel"
        static let sentinel = #"{"id":"stratus-fuzz-sentinel","type":"start","payload":{}}"#

        /// Opens a real-time connection, initializes it, sends `message` and a sentinel the server
        /// always answers, and waits for that answer or for the server to close.
        private func realtime(_ message: String, timeout: Duration) -> String {
            let header = Data(#"{"host":"127.0.0.1","x-api-key":"\#(Self.apiKey)"}"#.utf8).base64EncodedString()
            let url = "ws://127.0.0.1:\(port)/graphql/realtime?header=\(header)&payload=e30="
            let done = DispatchSemaphore(value: 0)
            let answers = Mutex<[String]>([])
            let exchange = Task {
                defer { done.signal() }
                var headers = HTTPFields()
                headers[.secWebSocketProtocol] = "graphql-ws"
                do {
                    _ = try await WebSocketClient.connect(
                        url: url,
                        configuration: WebSocketClientConfiguration(maxFrameSize: 1 << 22, additionalHeaders: headers),
                        logger: Logger(label: "stratus.fuzz")
                    ) { inbound, outbound, _ in
                        // The sentinel, an invalid start, is always answered, after the message.
                        try await outbound.writeTextMessage(#"{"type":"connection_init"}"#)
                        try await outbound.writeTextMessage(message)
                        try await outbound.writeTextMessage(Self.sentinel)
                        for try await frame in inbound.messages(maxSize: 1 << 24) {
                            guard case .text(let text) = frame else { continue }
                            answers.withLock { $0.append(text) }
                            if text.contains(Self.sentinelId) { break }
                        }
                        try await outbound.close(.normalClosure, reason: nil)
                    }
                } catch {
                    answers.withLock { $0.append("failed: \(error)") }
                }
            }
            let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
            if done.wait(timeout: .now() + seconds) == .timedOut {
                exchange.cancel()
                done.wait()
                answers.withLock { $0.append("no answer within \(timeout)") }
            }
            return answers.withLock { $0.map { String($0.prefix(160)) }.joined(separator: " | ") }
        }
    }
#endif
