import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether a TCP port can be listened on, checked before anything is created on disk.
enum PortCheck {
    /// Whether another socket listens on `port` of `host`: binding a socket there fails with
    /// `EADDRINUSE`. Port 0, an address that does not resolve and any other failure answer
    /// `false`, leaving the server's own bind to report them.
    static func isInUse(host: String, port: Int) -> Bool {
        guard port > 0 else { return false }
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var results: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &results) == 0, let first = results else { return false }
        defer { freeaddrinfo(results) }
        let probe = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard probe >= 0 else { return false }
        defer { close(probe) }
        // As the server binds: a port whose last connections linger in TIME_WAIT is free.
        var one: Int32 = 1
        setsockopt(probe, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        return bind(probe, first.pointee.ai_addr, first.pointee.ai_addrlen) != 0 && errno == EADDRINUSE
    }
}
