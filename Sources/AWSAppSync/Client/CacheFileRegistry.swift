import AWSWire
import Amplify
import Foundation
import Synchronization

/// The database files of the live clients of this process, and who may share them.
///
/// Two clients may share a query cache only when they talk to the same API with the same auth
/// mode, or the cache would mix what different callers may see. An offline mutation queue is
/// never shared: each client sends every mutation it finds in its queue, so two clients on one
/// queue would both send each mutation.
enum CacheFileRegistry {
    struct Registration: Sendable {
        let queries: String?
        let offlineMutations: String?
        let token: UUID
    }

    private struct Owner {
        let endpoint: URL
        let mode: AWSAuthorizationType
        let key: String
        var tokens: Set<UUID>
    }

    private struct Files {
        var queries: [String: Owner] = [:]
        var offlineMutations: [String: Owner] = [:]
    }

    private static let files = Mutex(Files())

    /// Registers a client of `configuration` on its files.
    ///
    /// - Throws: ``AWSAppSyncClientError`` (``AWSAppSyncClientError/Code/configuration``) when
    ///   a live client of another API or auth mode uses the query cache's file, or any live
    ///   client uses the offline mutation queue's file.
    static func register(_ configuration: AWSAppSyncClientConfiguration) throws -> Registration {
        let service = configuration.appSyncServiceConfig
        let registration = Registration(
            queries: configuration.cacheConfiguration?.queries.map(\.standardizedFileURL.path),
            offlineMutations: configuration.cacheConfiguration?.offlineMutations.map(\.standardizedFileURL.path),
            token: UUID()
        )
        let owner = Owner(endpoint: service.endpoint, mode: service.authType, key: service.key, tokens: [])
        try files.withLock { files in
            if let path = registration.queries, let current = files.queries[path],
                current.endpoint != service.endpoint || current.mode != service.authType
            {
                throw AWSAppSyncClientError(
                    .configuration,
                    "The cache file '\(path)' is in use by a live client of AppSync.\(current.key) "
                        + "(\(current.mode.rawValue) at \(current.endpoint.absoluteString)), so a client of "
                        + "AppSync.\(service.key) (\(service.authType.rawValue) at \(service.endpoint.absoluteString)) "
                        + "cannot use it. Give each auth mode its own ClientDatabasePrefix and pass "
                        + "useClientDatabasePrefix: true, or another databaseURL."
                )
            }
            if let path = registration.offlineMutations, let current = files.offlineMutations[path] {
                throw AWSAppSyncClientError(
                    .configuration,
                    "The offline mutation queue '\(path)' is in use by a live client of AppSync.\(current.key), "
                        + "which sends every mutation queued there: a second client on it would send each one again. "
                        + "Use that client, or give this one its own databaseURL (or cache directory)."
                )
            }
            if let path = registration.queries {
                files.queries[path, default: owner].tokens.insert(registration.token)
            }
            if let path = registration.offlineMutations {
                files.offlineMutations[path, default: owner].tokens.insert(registration.token)
            }
        }
        return registration
    }

    /// Frees the files of a client that is gone.
    static func unregister(_ registration: Registration) {
        files.withLock { files in
            if let path = registration.queries {
                files.queries[path]?.tokens.remove(registration.token)
                if files.queries[path]?.tokens.isEmpty == true { files.queries[path] = nil }
            }
            if let path = registration.offlineMutations {
                files.offlineMutations[path]?.tokens.remove(registration.token)
                if files.offlineMutations[path]?.tokens.isEmpty == true { files.offlineMutations[path] = nil }
            }
        }
    }
}
