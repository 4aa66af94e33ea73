import Amplify
import Foundation

/// How the DataStore plugin stores its data.
///
/// ```swift
/// var configuration = DataStoreConfiguration()
/// configuration.databaseURL = URL(fileURLWithPath: "/var/lib/myapp/datastore.sqlite")
/// try Amplify.add(plugin: AWSDataStorePlugin(modelRegistration: AmplifyModels(), configuration: configuration))
/// ```
public struct DataStoreConfiguration: Sendable {
    /// When a save is safe on disk.
    public enum Durability: Sendable, Hashable {
        /// Every save survives a crash of the app and a loss of power once it returns (SQLite's
        /// `synchronous = FULL`). The default.
        case full
        /// Every save survives a crash of the app once it returns; a loss of power may lose the
        /// latest saves, never the database (SQLite's `synchronous = NORMAL`). Saves are faster.
        case normal
    }

    /// One message of the plugin's log.
    public struct LogEntry: Sendable, Hashable, CustomStringConvertible {
        /// How much the message matters.
        public enum Level: String, Sendable, Hashable {
            /// What the plugin did: a table created or migrated.
            case info
            /// What needs attention: data a migration discards, a record that refers to a missing parent.
            case warning
            /// A failure the plugin could not report to a caller.
            case error
        }

        /// How much the message matters.
        public var level: Level
        /// What happened, naming the model and the field.
        public var message: String

        /// A message of `level`.
        public init(level: Level, message: String) {
            self.level = level
            self.message = message
        }

        public var description: String { "[DataStore] \(level.rawValue): \(message)" }
    }

    /// The database file; `nil` (the default) for ``defaultDatabaseURL(environment:)``.
    public var databaseURL: URL?

    /// When a save is safe on disk; ``Durability/full`` by default.
    public var durability: Durability = .full

    /// Whether opening the database checks every page (`PRAGMA quick_check`) and refuses a
    /// corrupted file; `true` by default. The check reads the whole file once per launch.
    public var checksIntegrityOnOpen = true

    /// Receives the plugin's log: migrations, and exactly what a migration discards. By default
    /// messages go to standard error.
    public var log: @Sendable (LogEntry) -> Void = { entry in
        FileHandle.standardError.write(Data((entry.description + "\n").utf8))
    }

    /// The default configuration.
    public init() {}

    /// The default configuration, with the database at `databaseURL`.
    public init(databaseURL: URL?) {
        self.databaseURL = databaseURL
    }

    /// The default configuration.
    public static var `default`: DataStoreConfiguration { DataStoreConfiguration() }

    /// The default database file: `datastore.sqlite` in a folder named after the app in the
    /// user's application-support directory.
    ///
    /// On Linux that directory is `$XDG_DATA_HOME`, or `~/.local/share` when it is not set
    /// (the XDG base directory specification); on Apple platforms, `Application Support`. The
    /// app's folder is named after the bundle identifier, or the process name without one.
    ///
    /// ```text
    /// ~/.local/share/myapp/DataStore/datastore.sqlite
    /// ```
    public static func defaultDatabaseURL(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        let appName = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
        return applicationSupportDirectory(environment: environment)
            .appendingPathComponent(appName, isDirectory: true)
            .appendingPathComponent("DataStore", isDirectory: true)
            .appendingPathComponent("datastore.sqlite")
    }

    static func applicationSupportDirectory(environment: [String: String]) -> URL {
        UserDirectories.data(environment: environment)
    }
}
