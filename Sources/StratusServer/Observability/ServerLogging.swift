import Foundation
import Logging
import Synchronization

/// The level of each subsystem's log lines, as `stratus serve --log-level` sets them:
/// `warning` for every subsystem, `functions=debug` for one, or both, comma-separated
/// (`warning,functions=debug`).
///
/// The subsystems are ``subsystems``: `serve` (the command's own lines), `server` (failures of
/// the GraphQL server), `http` (the HTTP and WebSocket listener), `cognito` (the local Cognito),
/// `functions` (the runtime of hand-written functions), `postgres` (the PostgreSQL client) and
/// `requests` (the line per request of `--log-requests`). A subsystem the levels do not name
/// logs at its own default.
public struct LogLevels: Sendable, Hashable {
    /// The subsystems a level may name.
    public static let subsystems = [
        "serve", "server", "http", "cognito", "functions", "postgres", "journal", "requests",
    ]

    /// The level of every subsystem the levels do not name; `nil` for each one's own default.
    public var all: Logger.Level?
    /// The level of each named subsystem.
    public var named: [String: Logger.Level]

    /// Each subsystem at its own default.
    public init() {
        all = nil
        named = [:]
    }

    /// The levels of a `--log-level` value.
    ///
    /// - Throws: ``LogLevelsError`` naming the unknown level or subsystem and the known ones.
    public init(parsing text: String) throws(LogLevelsError) {
        self.init()
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let entry = part.trimmingCharacters(in: .whitespaces)
            let pieces = entry.split(separator: "=", maxSplits: 1).map(String.init)
            let levelText = pieces.count == 2 ? pieces[1] : entry
            guard let level = Logger.Level(rawValue: levelText.lowercased()) else {
                throw LogLevelsError(
                    "'\(levelText)' is not a level. Give one of "
                        + Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
                        + ", for every subsystem or as SUBSYSTEM=LEVEL."
                )
            }
            if pieces.count == 2 {
                guard Self.subsystems.contains(pieces[0]) else {
                    throw LogLevelsError(
                        "'\(pieces[0])' is not a subsystem. Give one of "
                            + Self.subsystems.joined(separator: ", ") + "."
                    )
                }
                named[pieces[0]] = level
            } else {
                all = level
            }
        }
    }

    /// The level of `subsystem`, or `otherwise` when the levels do not set one.
    public func level(of subsystem: String, otherwise: Logger.Level) -> Logger.Level {
        named[subsystem] ?? all ?? otherwise
    }

    /// Whether a line of `level` from `subsystem` is written, `otherwise` being its default level.
    public func writes(_ level: Logger.Level, from subsystem: String, otherwise: Logger.Level = .info) -> Bool {
        level >= self.level(of: subsystem, otherwise: otherwise)
    }

    private static let process = Mutex(LogLevels())

    /// The levels of this process, which the server's loggers read as they are made.
    public static var current: LogLevels {
        get { process.withLock { $0 } }
        set { process.withLock { $0 = newValue } }
    }

    /// A logger labelled `stratus.<subsystem>` at the process's level for `subsystem`, or
    /// `otherwise`.
    static func logger(_ subsystem: String, otherwise: Logger.Level) -> Logger {
        var logger = Logger(label: "stratus." + subsystem)
        logger.logLevel = current.level(of: subsystem, otherwise: otherwise)
        return logger
    }
}

/// A `--log-level` value that names an unknown level or subsystem.
public struct LogLevelsError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Writes swift-log's records on standard error as the server writes its own lines
/// (``LogFormat``): the message alone, or one JSON object per line with the time, the level
/// and the subsystem (the logger's label without `stratus.`).
public struct ServerLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    private let subsystem: String
    private let format: LogFormat

    /// A handler for the logger `label`, writing in `format`.
    public init(label: String, format: LogFormat) {
        subsystem = label.hasPrefix("stratus.") ? String(label.dropFirst("stratus.".count)) : label
        self.format = format
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var message = "\(event.message)"
        let all = metadata.merging(event.metadata ?? [:]) { _, new in new }
        if !all.isEmpty {
            message += " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        let line = format.line(message, level: event.level.rawValue, subsystem: subsystem)
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
