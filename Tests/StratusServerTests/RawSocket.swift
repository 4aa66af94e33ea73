import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A plain TCP connection to a local server for tests that send what no HTTP client would: a
/// garbage request line, half a request, an oversized header.
final class RawSocket: Sendable {
    private let descriptor: Int32

    /// Connects to `127.0.0.1:port`.
    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RawSocketError("socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(descriptor)
            throw RawSocketError("connect() failed: errno \(errno)")
        }
    }

    deinit {
        close(descriptor)
    }

    /// Sends `text` whole; a connection the server closed meanwhile is not an error.
    func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let sent = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return }
            bytes = bytes.dropFirst(sent)
        }
    }

    /// What the server sent until it closed the connection, or `nil` when it was still open
    /// after `timeout`; read on a thread of its own, so that waiting blocks no task (nor a
    /// thread of Dispatch's pool, which on Linux runs the tasks and grows slowly when blocked).
    func answer(within timeout: Duration) async -> String? {
        await withCheckedContinuation { continuation in
            Thread {
                continuation.resume(returning: self.readUntilClosed(timeout: timeout))
            }.start()
        }
    }

    /// What the server sent until it closed the connection, or `nil` when it was still open
    /// after `timeout`. A reset after the server's answer counts as a close.
    private func readUntilClosed(timeout: Duration) -> String? {
        let deadline = ContinuousClock.now + timeout
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return nil }
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(seconds * 1000 + attoseconds / 1_000_000_000_000_000) + 1
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, milliseconds) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return String(decoding: received, as: UTF8.self) }
            received += buffer[..<count]
        }
    }
}

struct RawSocketError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
