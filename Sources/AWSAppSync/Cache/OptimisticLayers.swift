import Amplify
import GRDB

/// The optimistic layers of the cache: per queued mutation, the fields its `optimisticUpdate`
/// wrote, kept apart from the records and merged over them when they are read.
///
/// A layer lives as long as its mutation is queued. When the server accepts the mutation, the
/// layer becomes part of the records (see ``ReadWriteTransaction/commitLayer(_:)``) and the
/// server's answer is written over it, as if the update had been written to the records at
/// once; a failure or a cancel removes it, so that readers see the records' own values again.
///
/// Each layer row keeps, beside the fields written, the values those fields showed before the
/// layer first wrote them (`previous`): committing a list merges what the layer added and
/// removed into what the records hold by then, rather than putting back the list as it was.
enum OptimisticLayers {
    /// The fields a layer wrote to one record, and the values they showed before.
    struct Entry {
        var fields: [String: JSONValue]
        /// The values the fields showed before the layer wrote them (a field absent here was
        /// absent); `nil` for a layer written by a version that did not keep them.
        var previous: [String: JSONValue]?
    }

    static func createTable(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS optimistic_layers (
                    sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                    mutation TEXT NOT NULL,
                    key TEXT NOT NULL,
                    record TEXT NOT NULL,
                    previous TEXT,
                    UNIQUE (mutation, key)
                );
                CREATE INDEX IF NOT EXISTS optimistic_layers_key ON optimistic_layers (key);
                """
        )
        if try !db.columns(in: "optimistic_layers").contains(where: { $0.name == "previous" }) {
            try db.execute(sql: "ALTER TABLE optimistic_layers ADD COLUMN previous TEXT")
        }
    }

    /// Whether any layer exists.
    static func exist(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM optimistic_layers)") ?? false
    }

    /// The ids of the mutations that have a layer.
    static func mutations(_ db: Database) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT DISTINCT mutation FROM optimistic_layers"))
    }

    /// What the layer of `layer` holds for the record `key`.
    static func entry(_ db: Database, layer: String, key: CacheKey) throws -> Entry? {
        let statement = try db.cachedStatement(
            sql: "SELECT record, previous FROM optimistic_layers WHERE mutation = ? AND key = ?"
        )
        guard let row = try Row.fetchOne(statement, arguments: [layer, key]) else { return nil }
        return try entry(row, key: key)
    }

    static func write(_ db: Database, layer: String, key: CacheKey, entry: Entry) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO optimistic_layers (mutation, key, record, previous) VALUES (?, ?, ?, ?)
                ON CONFLICT (mutation, key) DO UPDATE SET record = excluded.record, previous = excluded.previous
                """
        )
        let previous = try entry.previous.map { try ReadWriteTransaction.text(of: $0, key: key) }
        try statement.execute(
            arguments: [layer, key, try ReadWriteTransaction.text(of: entry.fields, key: key), previous]
        )
    }

    /// Removes the layer of `layer` and returns what it held, by record.
    static func remove(_ db: Database, layer: String) throws -> [CacheKey: Entry] {
        var removed: [CacheKey: Entry] = [:]
        let rows = try Row.fetchAll(
            db,
            sql: "SELECT key, record, previous FROM optimistic_layers WHERE mutation = ?",
            arguments: [layer]
        )
        for row in rows {
            let key: String = row[0]
            removed[key] = try entry(row, key: key)
        }
        try db.execute(sql: "DELETE FROM optimistic_layers WHERE mutation = ?", arguments: [layer])
        return removed
    }

    private static func entry(_ row: Row, key: CacheKey) throws -> Entry {
        let previous: String? = row["previous"]
        return Entry(
            fields: try fields(row["record"], key: key),
            previous: try previous.map { try fields($0, key: key) }
        )
    }

    /// The fields of a stored record's text.
    ///
    /// - Throws: ``AWSAppSyncClientError`` (``AWSAppSyncClientError/Code/cache``) when the text is
    ///   not a JSON object.
    static func fields(_ text: String, key: CacheKey) throws -> [String: JSONValue] {
        guard case .object(let fields) = try JSONValue(parsing: text) else {
            throw AWSAppSyncClientError(
                .cache,
                "The cache record '\(key)' is not a JSON object. Clear the cache; it was not written by this client."
            )
        }
        return fields
    }
}

/// How a queued mutation's optimistic layer ends when the server answers it.
enum LayerEnding {
    /// The server accepted the mutation: the layer becomes part of the records.
    case commit
    /// The server refused it: the layer goes, and readers see the records' own values again.
    case remove

    /// How the layer of a mutation answered with `errors` ends: committed only when the
    /// server answered with data and no error at all.
    init(data: Snapshot?, errors: [GraphQLError]?) {
        self = data != nil && (errors ?? []).isEmpty ? .commit : .remove
    }
}

extension ReadWriteTransaction {
    /// Ends the optimistic layer of the queued mutation `layer` as `ending` says.
    func end(layer: String, _ ending: LayerEnding) throws {
        switch ending {
        case .commit: try commitLayer(layer)
        case .remove: try removeLayer(layer)
        }
    }
}

extension ApolloStore {
    /// Runs `body` in a transaction whose writes go to the optimistic layer of the queued
    /// mutation `layer`; watchers hear of them at once.
    @discardableResult
    func withinOptimisticLayer<T>(_ layer: String, _ body: (ReadWriteTransaction) throws -> T) -> Result<T, any Error> {
        withinReadWriteTransaction(origin: nil, layer: layer, body)
    }

    /// Removes the optimistic layer of the queued mutation `layer`; watchers of what it
    /// changed see the records' own values again.
    func removeLayer(_ layer: String) throws {
        try withinReadWriteTransaction(origin: nil) { transaction in
            try transaction.removeLayer(layer)
        }.get()
    }

    /// Removes the layers of mutations that are no longer queued (the process ended before
    /// their answer came and they were cleared, or the queue is another one).
    func removeLayers(notIn queued: Set<String>) throws {
        try withinReadWriteTransaction(origin: nil) { transaction in
            for layer in try OptimisticLayers.mutations(transaction.db) where !queued.contains(layer) {
                try transaction.removeLayer(layer)
            }
        }.get()
    }
}
