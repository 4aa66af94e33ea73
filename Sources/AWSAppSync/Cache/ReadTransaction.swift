import Amplify
import Foundation
import GRDB
import GRDBSQLite

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
    package func record(_ key: CacheKey) throws -> [String: JSONValue]? {
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
    ///
    /// A list a layer wrote shows what the layer added and removed over the list under it as
    /// it is now (see ``ReadWriteTransaction/rebased(_:previous:stored:)``): items written to
    /// the records meanwhile, such as a subscription's, show at once, not only once the layer
    /// is committed.
    private func loadLayers(of keys: [CacheKey]) throws {
        let placeholders = Array(repeating: "?", count: keys.count).joined(separator: ",")
        let statement = try db.cachedStatement(
            sql: """
                SELECT key, record, previous FROM optimistic_layers WHERE key IN (\(placeholders))
                ORDER BY sequence
                """
        )
        let rows = try Row.fetchCursor(statement, arguments: StatementArguments(keys))
        while let row = try rows.next() {
            let key: String = row[0]
            let fields = try OptimisticLayers.fields(row[1], key: key)
            let previousText: String? = row[2]
            let previous = try previousText.map { try OptimisticLayers.fields($0, key: key) }
            let current: [String: JSONValue]? = loaded[key] ?? nil
            if overlay[key] == nil { base[key] = .some(current) }
            overlay[key, default: [:]].merge(fields) { $1 }
            var shown = current ?? [:]
            for (field, value) in fields {
                shown[field] = ReadWriteTransaction.rebased(
                    value,
                    previous: previous.map { $0[field] },
                    stored: shown[field]
                )
            }
            loaded[key] = shown
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
