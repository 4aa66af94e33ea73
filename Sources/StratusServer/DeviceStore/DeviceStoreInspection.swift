import Foundation

/// What a device's store holds, read from its SQLite file without writing to it: a DataStore
/// database, or an AppSync client's database (its offline mutation queue, query cache or
/// delta sync metadata).
///
/// The file is opened read-only and read in one transaction, so the answer is one consistent
/// snapshot even while the app writes to the file: SQLite's write-ahead log lets a reader see
/// the last commit without waiting for the writer, and a read-only connection never writes the
/// database, never checkpoints the log and never deletes it. `stratus inspect` prints it; the
/// console shows the same value.
///
/// ```swift
/// let inspection = try DeviceStoreInspection(fileAt: URL(filePath: "datastore.sqlite"))
/// if case .dataStore(let store) = inspection.contents {
///     print(store.outbox.count, "pending mutations")
/// }
/// print(inspection.json.text)  // {"inspectionFormat":1,"path":"…","kind":"dataStore",…}
/// ```
public struct DeviceStoreInspection: Sendable, Hashable {
    /// The version of the shape of ``json``, its `inspectionFormat` member: it rises only when a
    /// member changes meaning or goes away (a new member does not raise it).
    public static let jsonFormat = 1

    /// The path of the file read.
    public var path: String

    /// What the file holds.
    public var contents: Contents

    /// What kind of store a file is, with what it holds.
    public enum Contents: Sendable, Hashable {
        /// A DataStore database.
        case dataStore(DataStoreContents)
        /// A database of an AppSync client (`AWSAppSyncClient`).
        case appSyncClient(AppSyncClientContents)
    }

    public init(path: String, contents: Contents) {
        self.path = path
        self.contents = contents
    }
}

/// A stored JSON text: its value, or the text with why it is not JSON.
///
/// A damaged record is shown as it is stored, never replaced by a stand-in value.
public enum StoredJSON: Sendable, Hashable {
    /// The text read as JSON.
    case json(JSON)
    /// Text that is not JSON, with the parser's reason.
    case unreadable(text: String, problem: String)

    /// Reads `text`.
    init(_ text: String) {
        do {
            self = .json(try JSON(parsing: text))
        } catch {
            self = .unreadable(text: text, problem: error.description)
        }
    }

    /// The value as JSON text, or the stored text as it is.
    public var text: String {
        switch self {
        case .json(let value): value.text
        case .unreadable(let text, _): text
        }
    }
}

// MARK: - DataStore

extension DeviceStoreInspection {
    /// What a DataStore database holds.
    public struct DataStoreContents: Sendable, Hashable {
        /// The version of the file's layout (`_stratus_metadata`'s `format`).
        public var format: Int
        /// When DataStore created the file, as it recorded it.
        public var createdAt: String?
        /// The version of the model registration the tables were made for; `nil` before the
        /// first start with models.
        public var modelsVersion: String?
        /// Each model, by name.
        public var models: [ModelCount]
        /// The outbox: the pending mutations in the order they are sent.
        public var outbox: [OutboxMutation]
        /// Each model's sync state, by name.
        public var sync: [ModelSyncState]
        /// The backend's records held back: waiting for the record's own pending mutations
        /// (`deferred`), or for the parent they belong to (`orphan`).
        public var held: [HeldRecord]
    }

    /// How many records of a model the store holds.
    public struct ModelCount: Sendable, Hashable {
        /// The model's name.
        public var name: String
        /// The records in its table; `nil` when the file has no table for it (a model removed
        /// from the app whose pending mutations or tombstones remain).
        public var records: Int?
        /// The records known deleted (locally or by the backend), kept as tombstones in the
        /// sync metadata.
        public var deleted: Int
        /// Its mutations in the outbox.
        public var pending: Int
    }

    /// One mutation of the outbox.
    public struct OutboxMutation: Sendable, Hashable {
        /// Its place in the sending order, from 1.
        public var position: Int
        /// Its row's `sequence`.
        public var sequence: Int
        /// Its id, sent as the mutation's idempotency key.
        public var id: String
        /// The model's name.
        public var modelName: String
        /// The record's identifier.
        public var modelId: String
        /// What it does to the record.
        public var kind: MutationKind
        /// When it was made, as stored.
        public var createdAt: String
        /// Whether it was sent at least once: it may be on its way or answered but not yet
        /// settled, and later changes of its record queue behind it instead of merging into it.
        public var inFlight: Bool
        /// The backend's `_version` the mutation is sent with, when known.
        public var version: Int?
        /// The DataStore transaction it belongs to.
        public var transactionId: String?
        /// Its condition, as the GraphQL `condition` input.
        public var condition: StoredJSON?
        /// The record it sends.
        public var record: StoredJSON
    }

    /// What an outbox mutation does to its record.
    public enum MutationKind: String, Sendable, Hashable {
        case create
        case update
        case delete
    }

    /// When a model last synced and what its next sync is.
    public struct ModelSyncState: Sendable, Hashable {
        /// The model's name.
        public var modelName: String
        /// The backend's `startedAt` of the last sync, in milliseconds since 1970; `nil` when the
        /// model never synced.
        public var lastSync: Int?
        /// The sync expression of the last sync (the GraphQL filter, as JSON text).
        public var syncExpression: String?
        /// Whether a schema change asked for a base sync that is not done yet.
        public var baseSyncAfterSchemaChange: Bool
        /// The next sync.
        public var nextSync: NextSync
    }

    /// What the next sync of a model is, and why.
    public struct NextSync: Sendable, Hashable {
        /// A delta sync asks for the changes since the last sync; a base sync for every record.
        public enum Kind: String, Sendable, Hashable {
            case delta
            case base
        }

        public var kind: Kind
        /// Why, in a sentence.
        public var reason: String
    }

    /// A backend's record the store holds back.
    public struct HeldRecord: Sendable, Hashable {
        /// Why it is held.
        public enum Kind: String, Sendable, Hashable {
            /// Its record has pending mutations: the local change wins until the backend has it.
            case deferred
            /// The parent it belongs to is not stored yet.
            case orphan
        }

        public var kind: Kind
        /// The model's name.
        public var modelName: String
        /// The record's identifier.
        public var modelId: String
        /// For an orphan, the parent it waits for.
        public var parent: RecordName?
        /// The backend's `_version` of the record.
        public var version: Int?
        /// The record.
        public var record: StoredJSON
    }

    /// A record, by its model's name and its identifier.
    public struct RecordName: Sendable, Hashable {
        /// The model's name.
        public var modelName: String
        /// The record's identifier (its key values joined with `#`).
        public var modelId: String
    }
}

// MARK: - AppSync client

extension DeviceStoreInspection {
    /// What a database of an AppSync client holds. The client keeps its offline mutation queue,
    /// its query cache and its delta sync metadata in three files (`offlineMutations.db`,
    /// `queries.db`, `subscriptionMetadataCache.db`), or all in one (`databaseURL:`); each part
    /// is `nil` when the file does not hold it.
    public struct AppSyncClientContents: Sendable, Hashable {
        /// The offline mutation queue, in sending order.
        public var offlineQueue: [OfflineMutation]?
        /// The query cache.
        public var cache: QueryCache?
        /// When each delta sync operation last caught up.
        public var deltaSync: [DeltaSyncOperation]?
    }

    /// A mutation of the AppSync client's offline queue.
    ///
    /// The queue does not record whether a mutation is on its way: the client sends the first
    /// ones after a start, and `attempts` counts the failed tries.
    public struct OfflineMutation: Sendable, Hashable {
        /// Its place in the sending order, from 1.
        public var position: Int
        /// Its row's `sequence`.
        public var sequence: Int
        /// Its id, sent as the `Idempotency-Key` header.
        public var id: String
        /// The operation's name (`CreateTodo`).
        public var operationName: String
        /// The record it writes (its `input.id` or `id` variable), when its variables name one.
        public var recordKey: String?
        /// When it was queued.
        public var createdAt: Date
        /// How many attempts failed.
        public var attempts: Int
        /// The error of the last failed attempt.
        public var lastError: String?
        /// The request body: `{"query": …, "variables": …}`.
        public var request: StoredJSON
    }

    /// The query cache of an AppSync client.
    public struct QueryCache: Sendable, Hashable {
        /// The version of the cache file's layout (its `user_version`).
        public var fileVersion: Int
        /// The normalized records.
        public var records: Int
        /// The optimistic layers, in the order their mutations were made.
        public var optimisticLayers: [OptimisticLayer]
    }

    /// The optimistic layer of a queued mutation: the records its optimistic update wrote, kept
    /// apart from the cache's records until the server answers.
    public struct OptimisticLayer: Sendable, Hashable {
        /// The mutation's id.
        public var mutation: String
        /// How many records the layer holds.
        public var records: Int
    }

    /// A delta sync operation and when it last caught up.
    public struct DeltaSyncOperation: Sendable, Hashable {
        /// The operation's key.
        public var operation: String
        /// When it last caught up with the server.
        public var lastSync: Date
    }
}
