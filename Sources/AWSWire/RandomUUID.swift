import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension UUID {
    /// A random (version 4) UUID, with its 122 random bits from one `arc4random_buf` call.
    ///
    /// `UUID()` on Linux opens, reads and closes `/dev/urandom` for each UUID: three system
    /// calls, about four times the cost of this one `getrandom`. The outbox and the sync engine
    /// make one per saved and per received record, and the server one per created item.
    package static func systemRandom() -> UUID {
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { raw in
            arc4random_buf(raw.baseAddress!, raw.count)
            // RFC 9562: version 4 in the high nibble of byte 6, variant 0b10 in byte 8.
            raw[6] = raw[6] & 0x0F | 0x40
            raw[8] = raw[8] & 0x3F | 0x80
        }
        return UUID(uuid: uuid)
    }
}
