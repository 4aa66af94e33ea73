import Foundation
import GRDB

/// How the client opens its SQLite databases: the query cache (``ApolloStore``), the offline
/// mutation queue (``OfflineMutationStore``) and the subscription metadata
/// (``SubscriptionMetadataStore``).
///
/// Each store has a connection of its own, and the three may share one file: the
/// `databaseURL:` configuration puts them all in it, as the AppSync SDK did (their tables,
/// `records`, `optimistic_layers`, `mutations` and `sync_operations`, do not meet). A file is
/// in WAL mode, so that one store's readers never wait for another's writer, and synchronous
/// `FULL`, so that a commit is on disk when it returns (one `fsync`, of the log). A connection
/// that finds the file locked by another (another store of the client, `stratus queue list`)
/// waits for it up to 10 seconds rather than failing.
enum ClientDatabase {
    /// A connection to the file at `url`, created with its directory when needed, or to a new
    /// in-memory database when `url` is `nil`.
    ///
    /// - Throws: `FileManager`'s error when the directory cannot be created; `DatabaseError`
    ///   when the file cannot be opened or put in WAL mode.
    static func open(_ url: URL?) throws -> DatabaseQueue {
        guard let url else { return try DatabaseQueue() }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let database = try DatabaseQueue(path: url.path, configuration: configuration(readonly: false))
        try database.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL")
        }
        return database
    }

    /// The configuration of every connection: a lock held by another connection is waited for.
    static func configuration(readonly: Bool) -> Configuration {
        var configuration = Configuration()
        configuration.readonly = readonly
        configuration.busyMode = .timeout(10)
        return configuration
    }
}
