import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
    private let streamSocket = Int32(SOCK_STREAM.rawValue)
#elseif canImport(Darwin)
    import Darwin
    private let streamSocket = SOCK_STREAM
#endif

/// A minimal HTTP/1.1 server on 127.0.0.1 and a port the system picks, for testing the
/// URLSession transport over a real connection: one connection at a time, `Connection: close`.
final class LoopbackHTTPServer: Sendable {
    /// A request as it arrived.
    struct Request: Sendable {
        var method: String
        /// The path and query, as sent.
        var target: String
        /// The header fields, in order, as sent.
        var headers: [(name: String, value: String)]
        var body: Data

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// A response to send.
    struct Response: Sendable {
        var status: Int
        var headers: [String: String] = [:]
        var body: String = ""
    }

    typealias Handler = @Sendable (_ request: Request, _ index: Int) -> Response

    /// The port the server listens on.
    let port: Int
    private let listener: Int32
    private let handler: Handler
    private let received = Mutex<[Request]>([])

    /// Starts a server that answers the `index`-th request (from 0) with `handler`.
    init(_ handler: @escaping Handler) throws {
        let listener = socket(AF_INET, streamSocket, 0)
        guard listener >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        guard bound == 0, listen(listener, 16) == 0 else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        var actual = sockaddr_in()
        var actualLength = length
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &actualLength) }
        }
        self.port = Int(UInt16(bigEndian: actual.sin_port))
        self.listener = listener
        self.handler = handler
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// The requests received so far.
    var requests: [Request] { received.withLock { $0 } }

    /// Stops accepting connections.
    ///
    /// The listener is only shut down here; the accepting thread closes it when its `accept`
    /// fails. Closing it here would let another test's socket take its descriptor number while
    /// that thread still calls `accept` on it, and take that socket's connections.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                close(listener)
                return
            }
            serve(client)
            close(client)
        }
    }

    private func serve(_ client: Int32) {
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 4096)
        let separator = Data("\r\n\r\n".utf8)
        func readMore() -> Bool {
            let count = read(client, &chunk, chunk.count)
            guard count > 0 else { return false }
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }
        while buffer.range(of: separator) == nil {
            guard readMore() else { return }
        }
        let headEnd = buffer.range(of: separator)!
        let head = String(decoding: buffer[..<headEnd.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ").map(String.init)
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let length = headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? 0
        while buffer.count - headEnd.upperBound < length {
            guard readMore() else { return }
        }
        let body = Data(buffer[headEnd.upperBound..<(headEnd.upperBound + length)])
        let request = Request(method: requestLine[0], target: requestLine[1], headers: headers, body: body)
        let index = received.withLock { requests in
            requests.append(request)
            return requests.count - 1
        }
        let response = handler(request, index)
        let bodyBytes = Data(response.body.utf8)
        var text = "HTTP/1.1 \(response.status) Status\r\n"
        for (name, value) in response.headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(bodyBytes.count)\r\nConnection: close\r\n\r\n"
        let bytes = [UInt8](Data(text.utf8) + bodyBytes)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            written += count
        }
    }
}
