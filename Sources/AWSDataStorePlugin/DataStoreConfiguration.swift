import Amplify
import Foundation
import Metrics
import Tracing

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

    /// How long a sync stays fresh: within this time of the last sync, a model syncs only
    /// what changed since (a delta sync); after it, everything again (a base sync). 24 hours by
    /// default; `syncIntervalInMinutes` in the configuration file's DataStore section sets it
    /// when the code keeps the default.
    public var syncInterval: TimeInterval = 86_400

    /// The device's clock, which the sync reads as "now" when it compares the last sync's time
    /// with ``syncInterval``; `Date()` by default. A clock that is off changes only which sync
    /// runs: the times of what was synced are the server's.
    public var clock: @Sendable () -> Date = { Date() }

    /// The most records a base sync reads per model; 10,000 by default, Amplify's default.
    /// `syncMaxRecords` in the configuration file's DataStore section sets it when the code
    /// keeps the default (see ``AWSDataStorePlugin/configure(using:)``).
    public var syncMaxRecords: Int = 10_000

    /// The records a sync query asks for per page (its `limit`); 1,000 by default, Amplify's
    /// default. `syncPageSize` in the configuration file's DataStore section sets it when the
    /// code keeps the default (see ``AWSDataStorePlugin/configure(using:)``).
    public var syncPageSize: Int = 1_000

    /// Which records of each model to sync (selective sync); every record of models without one.
    public var syncExpressions: [DataStoreSyncExpression] = []

    /// Which authorization modes sync uses: the API's default (``AuthModeStrategyType/default``),
    /// or each model's `@auth` providers in turn (``AuthModeStrategyType/multiAuth``).
    public var authModeStrategy: AuthModeStrategyType = .default

    /// The most outbox changes in flight at once, each for a different record; 4 by default.
    /// Changes to the same record are always sent one after another, in order.
    public var outboxConcurrency: Int = 4

    /// How the outbox sends the changes of a transaction: one mutation each, as AppSync's API
    /// allows (``TransactionSync/eachChange``, the default), or all in one request the backend
    /// applies all or nothing (``TransactionSync/atomic``, `stratus serve` only).
    public var transactionSync: TransactionSync = .eachChange

    /// How the outbox sends the changes of a DataStore transaction.
    public enum TransactionSync: Sendable, Hashable {
        /// One mutation per change, in the transaction's order, each answered before the next is
        /// sent. A refusal undoes that change alone.
        case eachChange
        /// All of the transaction's changes in one request sent with `Stratus-Transaction: atomic`,
        /// which `stratus serve` applies all or nothing. AppSync does not know that header and
        /// would apply the changes one by one: use it only with `stratus serve`.
        case atomic
    }

    /// Settles a change the backend refused as a conflict (`ConflictUnhandled`): called with the
    /// local and the backend's record, it answers through the resolver. By default the
    /// backend's record is kept (``DataStoreConflictHandlerResolution/applyRemote``).
    public var conflictHandler: DataStoreConflictHandler = { _, resolve in resolve(.applyRemote) }

    /// Receives the errors of sync that no caller can be told of: an outbox change the backend
    /// refused for good, a record the backend sent that does not fit its model. By default they
    /// go to ``log``.
    public var errorHandler: DataStoreErrorHandler?

    /// Whether signing out (or deleting the user) removes every record and the outbox, as
    /// `clear()` does; `true` by default.
    ///
    /// It applies when an Auth plugin is added and the models need a signed-in user (an `@auth`
    /// rule with user pools): DataStore then syncs only while a user is signed in, stops on the
    /// Hub's `Auth.signedOut`, `Auth.userDeleted` and `Auth.sessionExpired`, and starts again on
    /// `Auth.signedIn`. Changes not yet sent when the user signs out are discarded with the
    /// rest and reported to ``errorHandler``; after an expired session they are kept until the
    /// next sign-in, and sent if the same user signs in. With `false`, local data and the
    /// outbox stay, and the next user to sign in sends the changes left behind.
    public var clearsLocalDataOnSignOut = true

    /// Where DataStore reports the device's health (the outbox's depth and the age of its oldest
    /// change, sync lag, reconnections, mutations sent and refused; see <doc:DeviceHealth>);
    /// `nil` uses swift-metrics' `MetricsSystem.factory` as it is when the store opens. Until the
    /// application bootstraps a metrics backend that is the no-op factory, and DataStore measures
    /// nothing.
    ///
    /// ```swift
    /// var configuration = DataStoreConfiguration()
    /// configuration.metricsFactory = prometheus  // or MetricsSystem.bootstrap(prometheus)
    /// ```
    public var metricsFactory: (any MetricsFactory)?

    /// What makes DataStore's spans; `nil` uses swift-distributed-tracing's
    /// `InstrumentationSystem.tracer` as it is when the store opens (the no-op tracer until the
    /// application bootstraps one: then DataStore makes no span and stores no trace).
    ///
    /// A save, a delete or a transaction is a span (`DataStore.save Post`), and its outbox events
    /// keep its trace context in the database: when the outbox sends one, even after the app
    /// restarted, the send is a span of that trace (`DataStore.send createPost`), parent of the
    /// API plugin's request span when the API plugin traces too, so that one trace runs from the
    /// save to the backend's commit and on to the subscribers' deliveries. Each model's sync is a
    /// span too (`DataStore.sync Post`). See <doc:DeviceHealth>.
    ///
    /// ```swift
    /// var configuration = DataStoreConfiguration()
    /// configuration.tracer = tracer  // or InstrumentationSystem.bootstrap(tracer)
    /// ```
    public var tracer: (any Tracer)?

    /// The default configuration.
    public init() {}

    /// A configuration with the given sync settings, as Amplify's `.custom(...)` makes it.
    ///
    /// ```swift
    /// let configuration = DataStoreConfiguration.custom(
    ///     syncMaxRecords: 50_000,
    ///     syncExpressions: [.syncExpression(Post.schema, where: { Post.keys.rating > 3 })]
    /// )
    /// ```
    public static func custom(
        errorHandler: DataStoreErrorHandler? = nil,
        conflictHandler: DataStoreConflictHandler? = nil,
        syncInterval: TimeInterval = 86_400,
        syncMaxRecords: Int = 10_000,
        syncPageSize: Int = 1_000,
        syncExpressions: [DataStoreSyncExpression] = [],
        authModeStrategy: AuthModeStrategyType = .default,
        databaseURL: URL? = nil
    ) -> DataStoreConfiguration {
        var configuration = DataStoreConfiguration(databaseURL: databaseURL)
        configuration.errorHandler = errorHandler
        if let conflictHandler { configuration.conflictHandler = conflictHandler }
        configuration.syncInterval = syncInterval
        configuration.syncMaxRecords = syncMaxRecords
        configuration.syncPageSize = syncPageSize
        configuration.syncExpressions = syncExpressions
        configuration.authModeStrategy = authModeStrategy
        return configuration
    }

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

/// Receives an error of sync that no caller can be told of.
public typealias DataStoreErrorHandler = @Sendable (DataStoreError) -> Void

extension DataStoreConfiguration {
    /// The settings the configuration file's DataStore section may give.
    static let fileSettings = ["syncIntervalInMinutes", "syncMaxRecords", "syncPageSize"]

    /// This configuration with the settings of the configuration file's section applied where
    /// it keeps the default; see ``AWSDataStorePlugin/configure(using:)``.
    func applying(section: JSONValue?) throws(DataStoreError) -> DataStoreConfiguration {
        guard let section, section != .null else { return self }
        guard case .object(let settings) = section else {
            throw DataStoreError(
                .configuration,
                "The DataStore section of the configuration (awsDataStorePlugin) is \(section.canonicalText ?? "\(section)"), not an object. "
                    + "Give it an object such as {\"syncPageSize\": 500}, or {}."
            )
        }
        let defaults = DataStoreConfiguration()
        var result = self
        for (name, value) in settings.sorted(by: { $0.key < $1.key }) {
            guard Self.fileSettings.contains(name) else {
                throw DataStoreError(
                    .configuration,
                    "The DataStore section of the configuration (awsDataStorePlugin) sets '\(name)', which it "
                        + "does not know. It may set \(Self.fileSettings.joined(separator: ", ")); set the others "
                        + "in the DataStoreConfiguration given to AWSDataStorePlugin."
                )
            }
            guard let number = value.intValue, number > 0 else {
                throw DataStoreError(
                    .configuration,
                    "The DataStore section of the configuration (awsDataStorePlugin) sets '\(name)' to "
                        + "\(value.canonicalText ?? "\(value)"). Give it a positive integer."
                )
            }
            switch name {
            case "syncIntervalInMinutes":
                result.apply(name, TimeInterval(number) * 60, to: \.syncInterval, defaults)
            case "syncMaxRecords":
                result.apply(name, number, to: \.syncMaxRecords, defaults)
            default:
                result.apply(name, number, to: \.syncPageSize, defaults)
            }
        }
        return result
    }

    /// Sets `keyPath` to the file's `value` when the code keeps the default; logs which value
    /// applies when the code set another.
    private mutating func apply<Value: Equatable & Sendable>(
        _ name: String,
        _ value: Value,
        to keyPath: WritableKeyPath<DataStoreConfiguration, Value>,
        _ defaults: DataStoreConfiguration
    ) {
        if self[keyPath: keyPath] == defaults[keyPath: keyPath] {
            self[keyPath: keyPath] = value
        } else if self[keyPath: keyPath] != value {
            log(
                LogEntry(
                    level: .warning,
                    message: "The configuration file sets \(name) to \(value), and the code's DataStoreConfiguration "
                        + "to \(self[keyPath: keyPath]); the code's value applies."
                )
            )
        }
    }
}
