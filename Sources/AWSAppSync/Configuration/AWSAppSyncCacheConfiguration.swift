import Amplify
import Foundation

/// Where the AppSync client keeps its SQLite databases: the normalized query cache
/// (`queries.db`), the offline mutation queue (`offlineMutations.db`) and the subscription
/// metadata (`subscriptionMetadataCache.db`).
///
/// By default the files are in the `appsync` directory of the user's cache directory:
/// `$XDG_CACHE_HOME/appsync`, or `~/.cache/appsync` when `XDG_CACHE_HOME` is not set, on Linux;
/// `~/Library/Caches/appsync` on Apple platforms. With `useClientDatabasePrefix`, each name
/// starts with the service configuration's `ClientDatabasePrefix` and an underscore
/// (`friendly_name_AWS_IAM_queries.db`), so that clients of several auth modes keep apart.
/// A client created without a cache configuration keeps its cache in memory.
///
/// ```swift
/// let serviceConfig = try AWSAppSyncServiceConfig(forKey: "friendly_name_AWS_IAM")
/// let cacheConfig = try AWSAppSyncCacheConfiguration(useClientDatabasePrefix: true, appSyncServiceConfig: serviceConfig)
/// cacheConfig.queries  // …/appsync/friendly_name_AWS_IAM_queries.db
/// ```
public struct AWSAppSyncCacheConfiguration: Sendable, Hashable {
    /// The normalized query cache, `nil` to keep it in memory.
    public let queries: URL?
    /// The offline mutation queue, `nil` to keep it in memory.
    public let offlineMutations: URL?
    /// The subscription metadata, `nil` to keep it in memory.
    public let subscriptionMetadataCache: URL?
    /// The most bytes the query cache's records may take (keys and stored records); `nil` for no
    /// limit. Past it, the least recently used records are evicted down to nine tenths of it,
    /// except those a live watcher read.
    ///
    /// ```swift
    /// var cacheConfiguration = try AWSAppSyncCacheConfiguration()
    /// cacheConfiguration.sizeLimit = 10_000_000
    /// cacheConfiguration.timeToLive = 7 * 86_400
    /// ```
    public var sizeLimit: Int?
    /// How many seconds a record of the query cache is kept after it was last read or written;
    /// `nil` to keep records until evicted for size. Records a live watcher read are kept.
    public var timeToLive: TimeInterval?

    /// A configuration that keeps every cache in memory.
    public static let inMemory = AWSAppSyncCacheConfiguration(
        offlineMutations: nil,
        queries: nil,
        subscriptionMetadataCache: nil
    )

    /// A configuration with each file given explicitly (`nil` keeps that cache in memory).
    public init(offlineMutations: URL?, queries: URL?, subscriptionMetadataCache: URL?) {
        self.offlineMutations = offlineMutations
        self.queries = queries
        self.subscriptionMetadataCache = subscriptionMetadataCache
    }

    /// The three files in `rootDirectory`, or in the default directory when it is `nil`; the
    /// directory is created if it does not exist.
    ///
    /// - Throws: ``AWSAppSyncClientError`` (``AWSAppSyncClientError/Code/configuration``)
    ///   when the directory cannot be created.
    public init(withRootDirectory rootDirectory: URL? = nil) throws {
        try self.init(prefix: nil, rootDirectory: rootDirectory, environment: ProcessInfo.processInfo.environment)
    }

    /// The three files, named after `appSyncServiceConfig`'s `ClientDatabasePrefix` when
    /// `useClientDatabasePrefix` is true, in `rootDirectory` or the default directory.
    ///
    /// - Throws: ``AWSAppSyncClientError`` when `useClientDatabasePrefix` is true and the
    ///   configuration has no `ClientDatabasePrefix`, or the directory cannot be created.
    public init(
        useClientDatabasePrefix: Bool,
        appSyncServiceConfig: AWSAppSyncServiceConfig,
        rootDirectory: URL? = nil
    ) throws {
        var prefix: String?
        if useClientDatabasePrefix {
            guard let configured = appSyncServiceConfig.clientDatabasePrefix else {
                throw AWSAppSyncClientError(
                    .configuration,
                    "useClientDatabasePrefix is true, but AppSync.\(appSyncServiceConfig.key).ClientDatabasePrefix "
                        + "is missing from awsconfiguration.json. Add it, such as "
                        + "\"ClientDatabasePrefix\": \"myapi_\(appSyncServiceConfig.authType.rawValue)\", "
                        + "or pass useClientDatabasePrefix: false."
                )
            }
            prefix = configured
        }
        try self.init(prefix: prefix, rootDirectory: rootDirectory, environment: ProcessInfo.processInfo.environment)
    }

    /// The files for `prefix` in `rootDirectory`, or the default directory of `environment`.
    init(prefix: String?, rootDirectory: URL?, environment: [String: String]) throws {
        let directory = rootDirectory ?? Self.defaultDirectory(environment: environment)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw AWSAppSyncClientError(
                .configuration,
                "Cannot create the cache directory '\(directory.path)': \(sentence: error) "
                    + "Pass a writable directory with AWSAppSyncCacheConfiguration(withRootDirectory:)."
            )
        }
        func file(_ name: String) -> URL {
            directory.appendingPathComponent(prefix.map { "\($0)_\(name)" } ?? name)
        }
        self.init(
            offlineMutations: file("offlineMutations.db"),
            queries: file("queries.db"),
            subscriptionMetadataCache: file("subscriptionMetadataCache.db")
        )
    }

    /// `appsync` in the user's cache directory: `$XDG_CACHE_HOME`, else `~/.cache` on Linux.
    static func defaultDirectory(environment: [String: String]) -> URL {
        let base = UserDirectories.cache(environment: environment)
        return base.appendingPathComponent("appsync", isDirectory: true)
    }
}
