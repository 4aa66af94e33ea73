#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A free port on the loopback address, as the kernel picks one for a socket bound to port 0;
/// for a process of one's own (nginx, another server) that must be told its port before it
/// starts. The port is free when this returns, and may be taken again before it is used.
///
/// - Throws: ``FreePortError`` when no socket could be bound.
public func freeLoopbackPort() throws -> Int {
    #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard descriptor >= 0 else { throw FreePortError(errno: errno) }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
            bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
        }
    }
    guard bound else { throw FreePortError(errno: errno) }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// No loopback port could be found.
public struct FreePortError: Error, CustomStringConvertible {
    /// The system's error number.
    public let errno: Int32
    public var description: String { "Could not find a free loopback port (errno \(errno))." }
}
