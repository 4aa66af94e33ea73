/// What the server writes to its log for one failure, bounded.
///
/// A failure's description may quote what the client sent: a store's error quotes the SQL of a
/// filter, which a client can make hundreds of kilobytes long, and a client repeating such a
/// request would fill the log and the disk under it. A line keeps its first ``maximumBytes``
/// bytes and says how long it was.
enum LogLine {
    /// The most UTF-8 bytes of a message that are logged.
    static let maximumBytes = 4_096

    /// `message`, or its first ``maximumBytes`` bytes (whole characters) followed by a note of
    /// its full length: `… (truncated: the message has 270123 bytes)`.
    static func bounded(_ message: String) -> String {
        let bytes = message.utf8.count
        guard bytes > maximumBytes else { return message }
        var kept = 0
        let prefix = message.prefix { character in
            kept += character.utf8.count
            return kept <= maximumBytes
        }
        return prefix + "… (truncated: the message has \(bytes) bytes)"
    }

    /// A log that bounds each message it is given, then writes it with `log`.
    static func bounding(_ log: @escaping @Sendable (String) -> Void) -> @Sendable (String) -> Void {
        { message in log(bounded(message)) }
    }
}
