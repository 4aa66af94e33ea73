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

    /// Connects to `127.0.0.1:port`; `receiveBufferBytes` makes the kernel keep little of what
    /// the server sends while the test does not read.
    init(port: Int, receiveBufferBytes: Int32? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RawSocketError("socket() failed: errno \(errno)") }
        if var size = receiveBufferBytes {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
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

    /// Sends `bytes` whole.
    func write(bytes: [UInt8]) {
        var rest = bytes[...]
        while !rest.isEmpty {
            let sent = rest.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return }
            rest = rest.dropFirst(sent)
        }
    }

    /// Sends a text message as a WebSocket client frames it: final, masked.
    func writeWebSocketText(_ text: String) {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        write(bytes: frame)
    }

    /// Reads until what was read holds `marker` `occurrences` times, and returns it; `nil` when
    /// it does not within `timeout` or the server closes first. Bytes after the last marker of
    /// the last read are kept in what is returned, not for the next read.
    func read(until marker: String, occurrences: Int = 1, within timeout: Duration) async -> String? {
        await withCheckedContinuation { continuation in
            Thread {
                let deadline = ContinuousClock.now + timeout
                var received: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 4096)
                while ContinuousClock.now < deadline {
                    var entry = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
                    guard poll(&entry, 1, 50) > 0 else { continue }
                    let count = buffer.withUnsafeMutableBytes { recv(self.descriptor, $0.baseAddress, $0.count, 0) }
                    guard count > 0 else { break }
                    received += buffer[..<count]
                    let text = String(decoding: received, as: UTF8.self)
                    if text.components(separatedBy: marker).count - 1 >= occurrences {
                        continuation.resume(returning: text)
                        return
                    }
                }
                continuation.resume(returning: nil)
            }.start()
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
