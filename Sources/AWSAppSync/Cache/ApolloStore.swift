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
    /// key are not kept: they would only grow the cache. Returns the `record.field` keys of
    /// what the response holds.
    @discardableResult
    func publish<Operation: GraphQLOperation>(
        data: Operation.Data,
        for operation: Operation,
        origin: UUID?,
        removingLayer layer: String? = nil
    ) throws -> Set<String> {
        try withinReadWriteTransaction(origin: origin) { transaction in
            if let layer { try transaction.removeLayer(layer) }
            return try transaction.write(snapshot: data.snapshot, for: operation)
        }.get()
    }

    /// Writes the `data` of a mutation's response read with `selections` (a replayed
    /// mutation's, whose generated type is not at hand) in one transaction, removing the
    /// mutation's optimistic layer in it; returns the `record.field` keys the response holds.
    @discardableResult
    func publish(
        mutationData data: Snapshot,
        selections: [any GraphQLSelection],
        removingLayer layer: String
    ) throws -> Set<String> {
        try withinReadWriteTransaction(origin: nil) { transaction in
            try transaction.removeLayer(layer)
            return try transaction.write(
                snapshot: data,
                selections: selections,
                variables: nil,
                root: CacheRoot.mutation
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

/// A read of the cache inside ``ApolloStore/withinReadTransaction(_:)``; valid only during the
/// transaction's body.
public class ReadTransaction {
    let db: Database
    let cacheKeyForObject: CacheKeyForObject?
    /// Records read or written in this transaction as queries see them, optimistic layers
    /// included (`nil`: known to be absent).
    var loaded: [CacheKey: [String: JSONValue]?] = [:]
    /// Whether optimistic layers exist, so that reads merge them.
    var layered: Bool
    /// For records with optimistic fields: the stored record under them (`nil`: none).
    var base: [CacheKey: [String: JSONValue]?] = [:]
    /// For records with optimistic fields: those fields, the layers merged in order.
    var overlay: [CacheKey: [String: JSONValue]] = [:]
    /// The stored size of the records loaded from the table (key and record, in bytes), which
    /// writes need to count the bytes they add; reads do not keep it.
    var storedSizes: [CacheKey: Int] = [:]
    /// Whether this transaction writes: it keeps ``storedSizes``, and reads what it wrote
    /// through ``loaded``.
    var writes: Bool { false }
    /// When not `nil`, the keys of the records handed over are added to it (what eviction
    /// counts as read).
    var handedOverKeys: [CacheKey]?

    init(db: Database, cacheKeyForObject: CacheKeyForObject?, layered: Bool) {
        self.db = db
        self.cacheKeyForObject = cacheKeyForObject
        self.layered = layered
    }

    /// The data of `query` in the cache.
    ///
    /// - Throws: ``AWSAppSyncClientError`` (``AWSAppSyncClientError/Code/cacheMiss``) naming
    ///   the first record or field the cache lacks; the database's errors.
    public func read<Query: GraphQLQuery>(query: Query) throws -> Query.Data {
        guard let (data, _) = try readWithDependencies(query: query, tracking: false) else {
            throw AWSAppSyncClientError(
                .cacheMiss,
                "The cache does not hold the data of \(Query.operationName). Fetch it first, or write it with write(data:forQuery:)."
            )
        }
        return data
    }

    /// The data of `query` and, when `tracking`, the `record.field` keys it read; `nil` for a
    /// miss, including a record written for another shape of the same field, to be fetched
    /// again.
    func readWithDependencies<Query: GraphQLQuery>(
        query: Query,
        tracking: Bool = true
    ) throws -> (data: Query.Data, dependentKeys: Set<String>)? {
        var reader = CacheReader(
            variables: query.variables,
            tracksDependencies: tracking,
            load: { [unowned self] key in try self.record(key) },
            prefetch: { [unowned self] keys in
                // With no write or optimistic layer to see, the records a list refers to go
                // straight to the reader, in the list's order, rather than into `loaded`.
                guard self.writes || self.layered else { return try self.records(keys) }
                try self.prefetch(keys)
                return nil
            }
        )
        do {
            // The reader checks what it reads against the selections as reading a response
            // does, so its object is the data's snapshot as it stands.
            let object = try reader.readObject(key: CacheRoot.key(for: Query.self), selections: Query.Data.selections)
            return (Query.Data(snapshot: object), reader.dependentKeys)
        } catch is CacheMiss {
            return nil
        }
    }

    /// The record `key`, from this transaction's reads and writes or from the table.
    func record(_ key: CacheKey) throws -> [String: JSONValue]? {
        if let known = loaded[key] { return known }
        try prefetch([key])
        return loaded[key] ?? nil
    }

    /// Loads the records of `keys` not loaded yet into ``loaded``, with their optimistic
    /// layers.
    func prefetch(_ keys: [CacheKey]) throws {
        let missing = keys.filter { loaded[$0] == nil }
        guard !missing.isEmpty else { return }
        loaded.reserveCapacity(loaded.count + missing.count)
        let writes = writes
        var found = 0
        try forEachRecord(of: missing) { position, fields, size in
            let key = missing[position]
            if writes { storedSizes[key] = key.utf8.count + size }
            loaded[key] = fields
            found += 1
        }
        // Keys not found are known to be absent (`.some(nil)`); when every key was found,
        // which is the common case, there is none to look for.
        if found < missing.count {
            for key in missing where loaded[key] == nil { loaded[key] = .some(nil) }
        }
        if layered {
            for start in stride(from: 0, to: missing.count, by: Self.batch) {
                try loadLayers(of: Array(missing[start..<min(start + Self.batch, missing.count)]))
            }
        }
    }

    /// The records of `keys` in their order (`nil`: absent), with no record kept in
    /// ``loaded``.
    func records(_ keys: [CacheKey]) throws -> [[String: JSONValue]?] {
        var records = [[String: JSONValue]?](repeating: nil, count: keys.count)
        try forEachRecord(of: keys) { position, fields, _ in
            records[position] = fields
            handedOverKeys?.append(keys[position])
        }
        return records
    }

    /// Calls `body` with the position in `keys`, the fields and the stored size of each record
    /// found, reading a few hundred keys per statement: a list's items take a handful of
    /// statements rather than one each. Each row carries the position of its key, so that no
    /// record is looked up by key on this side. The records are decoded from SQLite's own
    /// buffers, and the keys bound and the rows stepped with SQLite's own calls: GRDB's
    /// arguments and row cursor took a tenth of an 18,000-item list's read.
    private func forEachRecord(
        of keys: [CacheKey],
        _ body: (Int, [String: JSONValue], Int) throws -> Void
    ) throws {
        for start in stride(from: 0, to: keys.count, by: Self.batch) {
            let end = min(start + Self.batch, keys.count)
            let statement = try db.cachedStatement(sql: Self.positionedSelect(count: end - start))
            let handle = statement.sqliteStatement
            sqlite3_reset(handle)
            defer { sqlite3_reset(handle) }
            for (offset, key) in keys[start..<end].enumerated() {
                var key = key
                let code = key.withUTF8 { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { text in
                        guard let first = text.baseAddress else {
                            return sqlite3_bind_text(handle, Int32(offset + 1), "", 0, Self.transient)
                        }
                        return sqlite3_bind_text(handle, Int32(offset + 1), first, Int32(text.count), Self.transient)
                    }
                }
                guard code == SQLITE_OK else { throw databaseError(code, statement) }
            }
            while true {
                let code = sqlite3_step(handle)
                if code == SQLITE_DONE { break }
                guard code == SQLITE_ROW else { throw databaseError(code, statement) }
                let position = start + Int(sqlite3_column_int64(handle, 0))
                let (fields, size) = try Self.decodedRecord(in: statement, column: 1, key: keys[position])
                try body(position, fields, size)
            }
        }
    }

    /// The SQL that reads the records of `count` keys bound in order, each row with the
    /// position of its key.
    private static func positionedSelect(count: Int) -> String {
        count == batch ? fullBatchSelect : makePositionedSelect(count: count)
    }

    private static let fullBatchSelect = makePositionedSelect(count: batch)

    private static func makePositionedSelect(count: Int) -> String {
        let wanted = (0..<count).map { "(\($0), ?)" }.joined(separator: ",")
        return """
            WITH wanted(position, key) AS (VALUES \(wanted))
            SELECT wanted.position, records.record FROM wanted CROSS JOIN records WHERE records.key = wanted.key
            """
    }

    /// SQLite copies a text bound with this destructor.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private func databaseError(_ code: Int32, _ statement: Statement) -> DatabaseError {
        DatabaseError(
            resultCode: ResultCode(rawValue: code),
            message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
            sql: statement.sql
        )
    }

    /// Merges the optimistic layers of `keys` over their loaded records, oldest layer first.
    private func loadLayers(of keys: [CacheKey]) throws {
        let placeholders = Array(repeating: "?", count: keys.count).joined(separator: ",")
        let statement = try db.cachedStatement(
            sql: "SELECT key, record FROM optimistic_layers WHERE key IN (\(placeholders)) ORDER BY sequence"
        )
        let rows = try Row.fetchCursor(statement, arguments: StatementArguments(keys))
        while let row = try rows.next() {
            let key: String = row[0]
            let fields = try OptimisticLayers.fields(row[1], key: key)
            let current: [String: JSONValue]? = loaded[key] ?? nil
            if overlay[key] == nil { base[key] = .some(current) }
            overlay[key, default: [:]].merge(fields) { $1 }
            loaded[key] = (current ?? [:]).merging(fields) { $1 }
        }
    }

    /// How many keys one statement reads.
    private static let batch = 500

    /// The record in `column` of the row `statement` stands on, decoded from SQLite's own
    /// buffer, and its size in bytes.
    ///
    /// - Throws: ``AWSAppSyncClientError`` (``AWSAppSyncClientError/Code/cache``) naming the
    ///   record when its bytes are not a record of ``CacheRecordFormat``.
    static func decodedRecord(
        in statement: Statement,
        column: Int32,
        key: CacheKey
    ) throws -> (fields: [String: JSONValue], size: Int) {
        let pointer = sqlite3_column_blob(statement.sqliteStatement, column)
        let size = Int(sqlite3_column_bytes(statement.sqliteStatement, column))
        do {
            return (try CacheRecordFormat.decode(UnsafeRawBufferPointer(start: pointer, count: size)), size)
        } catch {
            throw AWSAppSyncClientError(
                .cache,
                "The cache record '\(key)' cannot be read: \(sentence: error) Clear the cache; it was not written by "
                    + "this client."
            )
        }
    }
}

/// A read and write of the cache inside ``ApolloStore/withinReadWriteTransaction(_:)``; valid
/// only during the transaction's body.
public final class ReadWriteTransaction: ReadTransaction {
    /// The `record.field` keys whose values this transaction changed.
    private(set) var changedKeys: Set<String> = []
    /// The optimistic layer this transaction writes to (a queued mutation's id), or `nil` to
    /// write the records themselves.
    let layer: String?
    /// Whether this transaction added or removed optimistic layers.
    private(set) var layersChanged = false
    /// How many bytes the records written add to the table (negative when they shrank).
    private(set) var addedBytes = 0

    override var writes: Bool { true }

    init(db: Database, cacheKeyForObject: CacheKeyForObject?, layered: Bool, layer: String?) {
        self.layer = layer
        super.init(db: db, cacheKeyForObject: cacheKeyForObject, layered: layered || layer != nil)
    }

    /// Reads `query`'s data, lets `body` change it, and writes it back.
    ///
    /// ```swift
    /// try transaction.update(query: ListTodosQuery()) { (data: inout ListTodosQuery.Data) in
    ///     data.listTodos?.items?.removeAll { $0?.id == id }
    /// }
    /// ```
    ///
    /// - Throws: ``AWSAppSyncClientError`` (``AWSAppSyncClientError/Code/cacheMiss``) when the
    ///   cache does not hold the query's data; what `body` throws; the database's errors.
    public func update<Query: GraphQLQuery>(query: Query, _ body: (inout Query.Data) throws -> Void) throws {
        var data = try read(query: query)
        try body(&data)
        try write(data: data, forQuery: query)
    }

    /// Writes `data` as the response of `query`.
    ///
    /// - Throws: ``JSONDecodingError`` when `data` lacks a selected field or has one of another
    ///   type; the database's errors.
    public func write<Query: GraphQLQuery>(data: Query.Data, forQuery query: Query) throws {
        let object = try data.jsonObject(variables: query.variables)
        try write(snapshot: object, for: query)
    }

    /// Writes a response object of `operation` and returns the `record.field` keys it holds.
    @discardableResult
    func write<Operation: GraphQLOperation>(snapshot: Snapshot, for operation: Operation) throws -> Set<String> {
        try write(
            snapshot: snapshot,
            selections: Operation.Data.selections,
            variables: operation.variables,
            root: CacheRoot.key(for: Operation.self)
        )
    }

    /// Writes a response object read with `selections` under `root` and returns the
    /// `record.field` keys it holds.
    @discardableResult
    func write(
        snapshot: Snapshot,
        selections: [any GraphQLSelection],
        variables: GraphQLMap?,
        root: CacheKey
    ) throws -> Set<String> {
        var normalizer = CacheNormalizer(variables: variables, cacheKeyForObject: cacheKeyForObject)
        normalizer.normalize(snapshot, selections: selections, key: root)
        let kept = normalizer.records.filter { key, _ in
            root == CacheRoot.query || (key != root && !key.hasPrefix(root + "."))
        }
        try prefetch(Array(kept.keys))
        var keys: Set<String> = []
        for (key, fields) in kept {
            try merge(fields, into: key)
            for field in fields.keys { keys.insert("\(key).\(field)") }
        }
        return keys
    }

    /// Sets `fields` on the record `key`, keeping its other fields; writes only what changed.
    ///
    /// In an optimistic transaction the fields go to its layer; otherwise to the record, under
    /// the layers of queued mutations, which keep showing their values until they are removed.
    private func merge(_ fields: [String: JSONValue], into key: CacheKey) throws {
        let view = try self.record(key) ?? [:]
        if let layer {
            let changedFields = fields.filter { view[$0.key] != $0.value }
            guard !changedFields.isEmpty else { return }
            var layerRecord = try OptimisticLayers.record(db, layer: layer, key: key) ?? [:]
            layerRecord.merge(changedFields) { $1 }
            try OptimisticLayers.write(db, layer: layer, key: key, record: try Self.text(of: layerRecord, key: key))
            if overlay[key] == nil { base[key] = .some(try self.storedRecord(key)) }
            overlay[key, default: [:]].merge(changedFields) { $1 }
            loaded[key] = view.merging(changedFields) { $1 }
            for field in changedFields.keys { changedKeys.insert("\(key).\(field)") }
            layersChanged = true
            return
        }
        let shadow = overlay[key]
        var record = shadow == nil ? view : (base[key] ?? nil) ?? [:]
        var changed = false
        for (field, value) in fields where record[field] != value {
            record[field] = value
            if shadow?[field] == nil { changedKeys.insert("\(key).\(field)") }
            changed = true
        }
        guard changed else { return }
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO records (key, record, accessed) VALUES (?, ?, ?)
                ON CONFLICT(key) DO UPDATE SET record = excluded.record, accessed = excluded.accessed
                """
        )
        let stored = try Self.stored(record, key: key)
        try statement.execute(arguments: [key, stored, CacheBounds.now()])
        let size = key.utf8.count + stored.count
        addedBytes += size - (storedSizes[key] ?? 0)
        storedSizes[key] = size
        if let shadow {
            base[key] = record
            loaded[key] = record.merging(shadow) { $1 }
        } else {
            loaded[key] = record
        }
    }

    /// The record `key` as stored, without optimistic layers.
    private func storedRecord(_ key: CacheKey) throws -> [String: JSONValue]? {
        if let known = base[key] { return known }
        let statement = try db.cachedStatement(sql: "SELECT record FROM records WHERE key = ?")
        let rows = try Row.fetchCursor(statement, arguments: [key])
        guard try rows.next() != nil else { return nil }
        return try Self.decodedRecord(in: statement, column: 0, key: key).fields
    }

    /// The stored bytes of a record.
    static func stored(_ record: [String: JSONValue], key: CacheKey) throws -> Data {
        guard let bytes = CacheRecordFormat.encode(record) else { throw nonFiniteNumber(key) }
        return Data(bytes)
    }

    private static func nonFiniteNumber(_ key: CacheKey) -> AWSAppSyncClientError {
        AWSAppSyncClientError(
            .cache,
            "The record '\(key)' holds an infinite or NaN number, which JSON cannot hold. Fix the value written."
        )
    }

    /// The stored text of an optimistic layer's fields.
    static func text(of record: [String: JSONValue], key: CacheKey) throws -> String {
        var writer = JSONTextWriter(sortsKeys: true, doubleStyle: .keepsFraction)
        JSONValue.object(record).write(to: &writer)
        guard !writer.wroteNonFiniteNumber else { throw nonFiniteNumber(key) }
        return writer.text
    }

    /// Removes the optimistic layer of the queued mutation `layer`: the fields it set show the
    /// records' own values again.
    func removeLayer(_ layer: String) throws {
        let removed = try OptimisticLayers.remove(db, layer: layer)
        guard !removed.isEmpty else { return }
        layersChanged = true
        for (key, fields) in removed {
            for field in fields.keys { changedKeys.insert("\(key).\(field)") }
            loaded[key] = nil
            base[key] = nil
            overlay[key] = nil
        }
    }
}
