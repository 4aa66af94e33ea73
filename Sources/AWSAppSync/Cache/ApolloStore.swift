import AWSWire
import Amplify
import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// The normalized cache of an ``AWSAppSyncClient``: records in one SQLite table, read and
/// written in transactions.
///
/// Every response the client receives is written in one SQLite transaction; so is every
/// ``withinReadWriteTransaction(_:)``, which rolls back entirely when its body throws.
/// Watchers hear of a change once it is committed.
///
/// ```swift
/// appSyncClient?.store?.withinReadWriteTransaction { transaction in
///     try transaction.update(query: ListTodosQuery()) { (data: inout ListTodosQuery.Data) in
///         data.listTodos?.items?.append(ListTodosQuery.Data.ListTodo.Item(id: "1", name: "Milk"))
///     }
/// }
/// ```
public final class ApolloStore: Sendable {
    private let database: DatabaseQueue
    private let keyForObject: Mutex<CacheKeyForObject?>
    private let observers = Mutex<[UUID: @Sendable (Set<String>, UUID?) -> Void]>([:])
    /// Whether optimistic layers exist: reads merge them only then.
    let layers: Mutex<Bool>
    /// The size limit and time to live, with what eviction needs to know.
    let bounds: CacheBounds?

    /// A store in the SQLite file at `url`, created if needed, or in memory when `url` is `nil`.
    ///
    /// - Throws: ``AWSAppSyncClientError`` (``AWSAppSyncClientError/Code/cache``) when the file
    ///   cannot be opened or is not a cache database.
    public convenience init(databaseURL url: URL? = nil) throws {
        try self.init(databaseURL: url, sizeLimit: nil, timeToLive: nil)
    }

    /// A store that keeps its records under `sizeLimit` bytes and drops those not read or
    /// written for `timeToLive` seconds, least recently used first, except those live watchers
    /// read.
    init(databaseURL url: URL?, sizeLimit: Int?, timeToLive: TimeInterval?) throws {
        do {
            database = try ClientDatabase.open(url)
            try database.write { db in
                try Self.prepareRecordsTable(db)
                try OptimisticLayers.createTable(db)
                try CacheBounds.createColumns(db)
            }
            let layered = try database.read(OptimisticLayers.exist)
            layers = Mutex(layered)
            if sizeLimit != nil || timeToLive != nil {
                bounds = CacheBounds(
                    sizeLimit: sizeLimit,
                    timeToLive: timeToLive,
                    bytes: try database.read(CacheBounds.storedBytes)
                )
            } else {
                bounds = nil
            }
        } catch {
            throw AWSAppSyncClientError(
                .cache,
                "Cannot open the query cache at '\(url?.path ?? ":memory:")': \(sentence: error) "
                    + "Pass another file in the cache configuration, or delete this one."
            )
        }
        keyForObject = Mutex(nil)
    }

    /// The function that keys response objects; `nil` keys every object by its path.
    var cacheKeyForObject: CacheKeyForObject? {
        get { keyForObject.withLock { $0 } }
        set { keyForObject.withLock { $0 = newValue } }
    }

    /// Runs `body` in a read transaction: it sees the cache as one consistent state.
    ///
    /// - Returns: What `body` returned, or the error it or the database threw.
    @discardableResult
    public func withinReadTransaction<T>(_ body: (ReadTransaction) throws -> T) -> Result<T, any Error> {
        let keyForObject = cacheKeyForObject
        do {
            return .success(
                try database.read { db in
                    try body(ReadTransaction(db: db, cacheKeyForObject: keyForObject, layered: layers.withLock { $0 }))
                }
            )
        } catch {
            return .failure(error)
        }
    }

    /// Runs `body` in a read-write transaction, committed when it returns and rolled back when
    /// it throws; watchers whose data changed hear of it after the commit.
    ///
    /// - Returns: What `body` returned, or the error it or the database threw.
    @discardableResult
    public func withinReadWriteTransaction<T>(_ body: (ReadWriteTransaction) throws -> T) -> Result<T, any Error> {
        withinReadWriteTransaction(origin: nil, body)
    }

    func withinReadWriteTransaction<T>(
        origin: UUID?,
        layer: String? = nil,
        _ body: (ReadWriteTransaction) throws -> T
    ) -> Result<T, any Error> {
        let keyForObject = cacheKeyForObject
        var changed: Set<String> = []
        let result: Result<T, any Error>
        do {
            result = .success(
                try database.write { db in
                    let transaction = ReadWriteTransaction(
                        db: db,
                        cacheKeyForObject: keyForObject,
                        layered: layers.withLock { $0 },
                        layer: layer
                    )
                    let value = try body(transaction)
                    if transaction.layersChanged {
                        let exist = try OptimisticLayers.exist(db)
                        layers.withLock { $0 = exist }
                    }
                    if let bounds { try bounds.settle(db, addedBytes: transaction.addedBytes) }
                    changed = transaction.changedKeys
                    return value
                }
            )
        } catch {
            return .failure(error)
        }
        if !changed.isEmpty { notify(changed, origin: origin) }
        return result
    }

    /// Deletes every record and optimistic layer.
    func clear() throws {
        try database.write { db in
            try db.execute(sql: "DELETE FROM records; DELETE FROM optimistic_layers")
            layers.withLock { $0 = false }
            bounds?.bytes.withLock { $0 = 0 }
        }
    }

    /// Reads `query` from the cache: its data and, when `tracking`, the `record.field` keys it
    /// read (what a watcher depends on; empty otherwise), or `nil` when a record or field is
    /// missing or does not fit the selections.
    func load<Query: GraphQLQuery>(
        query: Query,
        tracking: Bool = true
    ) throws -> (data: Query.Data, dependentKeys: Set<String>)? {
        try withinReadTransaction { transaction in
            if bounds != nil { transaction.handedOverKeys = [] }
            let loaded = try transaction.readWithDependencies(query: query, tracking: tracking)
            bounds?.touch(
                transaction.loaded.compactMap { $0.value == nil ? nil : $0.key } + (transaction.handedOverKeys ?? [])
            )
            return loaded
        }.get()
    }

    /// Keeps the records whose fields `dependentKeys` name (`record.field`) while `watcher`
    /// lives: eviction leaves them.
    func pin(_ watcher: UUID, dependentKeys: Set<String>) {
        bounds?.pin(watcher, records: Set(dependentKeys.compactMap(CacheBounds.recordKey(ofDependency:))))
    }

    /// Lets eviction take the records `watcher` read.
    func unpin(_ watcher: UUID) {
        bounds?.pin(watcher, records: nil)
    }

    /// The bytes the records take, as eviction counts them (keys and stored records).
    var storedBytes: Int? { bounds?.bytes.withLock { $0 } }

    /// Writes the data of an operation's response in one transaction.
    ///
    /// Objects under `MUTATION_ROOT` and `SUBSCRIPTION_ROOT` that `cacheKeyForObject` gives no
    /// key are not kept: they would only grow the cache, and neither is a record whose
    /// `_version` is below the cached one's: the server answered before a change the cache
    /// already holds. Returns the `record.field` keys of what the response holds.
    ///
    /// - Parameter layer: The optimistic layer of the mutation answered, ended in the same
    ///   transaction: ``LayerEnding/commit`` when the server accepted it, ``LayerEnding/remove``
    ///   otherwise.
    @discardableResult
    func publish<Operation: GraphQLOperation>(
        data: Operation.Data,
        for operation: Operation,
        origin: UUID?,
        endingLayer layer: (id: String, ending: LayerEnding)? = nil
    ) throws -> Set<String> {
        try withinReadWriteTransaction(origin: origin) { transaction in
            if let layer { try transaction.end(layer: layer.id, layer.ending) }
            return try transaction.write(snapshot: data.snapshot, for: operation, keepingNewerVersions: true)
        }.get()
    }

    /// Writes the `data` of a mutation's response read with `selections` (a replayed
    /// mutation's, whose generated type is not at hand) in one transaction, ending the
    /// mutation's optimistic layer in it; returns the `record.field` keys the response holds.
    @discardableResult
    func publish(
        mutationData data: Snapshot,
        selections: [any GraphQLSelection],
        endingLayer layer: String,
        _ ending: LayerEnding
    ) throws -> Set<String> {
        try withinReadWriteTransaction(origin: nil) { transaction in
            try transaction.end(layer: layer, ending)
            return try transaction.write(
                snapshot: data,
                selections: selections,
                variables: nil,
                root: CacheRoot.mutation,
                keepingNewerVersions: true
            )
        }.get()
    }

    /// Calls `observer` after each commit with the `record.field` keys that changed and the
    /// origin of the write; returns the token to remove it with.
    func addObserver(_ observer: @escaping @Sendable (Set<String>, UUID?) -> Void) -> UUID {
        let token = UUID()
        observers.withLock { $0[token] = observer }
        return token
    }

    func removeObserver(_ token: UUID) {
        observers.withLock { _ = $0.removeValue(forKey: token) }
    }

    private func notify(_ changed: Set<String>, origin: UUID?) {
        for observer in observers.withLock({ Array($0.values) }) {
            observer(changed, origin)
        }
    }
}
