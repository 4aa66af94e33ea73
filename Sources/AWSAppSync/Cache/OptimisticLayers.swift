import Amplify
import GRDB

/// The optimistic layers of the cache: per queued mutation, the fields its `optimisticUpdate`
/// wrote, kept apart from the records and merged over them when they are read.
///
/// A layer lives as long as its mutation is queued: the server's answer replaces it, and a
/// failure or a cancel removes it, so that readers see the records' own values again.
enum OptimisticLayers {
    static func createTable(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS optimistic_layers (
                    sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                    mutation TEXT NOT NULL,
                    key TEXT NOT NULL,
                    record TEXT NOT NULL,
                    UNIQUE (mutation, key)
                );
                CREATE INDEX IF NOT EXISTS optimistic_layers_key ON optimistic_layers (key);
                """
        )
    }

    /// Whether any layer exists.
    static func exist(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM optimistic_layers)") ?? false
    }

    /// The ids of the mutations that have a layer.
    static func mutations(_ db: Database) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT DISTINCT mutation FROM optimistic_layers"))
    }

    /// The fields the layer of `layer` holds for the record `key`.
    static func record(_ db: Database, layer: String, key: CacheKey) throws -> [String: JSONValue]? {
        let statement = try db.cachedStatement(
            sql: "SELECT record FROM optimistic_layers WHERE mutation = ? AND key = ?"
        )
        guard let text = try String.fetchOne(statement, arguments: [layer, key]) else { return nil }
        return try fields(text, key: key)
    }

    static func write(_ db: Database, layer: String, key: CacheKey, record: String) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO optimistic_layers (mutation, key, record) VALUES (?, ?, ?)
                ON CONFLICT (mutation, key) DO UPDATE SET record = excluded.record
                """
        )
        try statement.execute(arguments: [layer, key, record])
    }

    /// Removes the layer of `layer` and returns the fields it held, by record.
    static func remove(_ db: Database, layer: String) throws -> [CacheKey: [String: JSONValue]] {
        var removed: [CacheKey: [String: JSONValue]] = [:]
        let rows = try Row.fetchAll(
            db,
            sql: "SELECT key, record FROM optimistic_layers WHERE mutation = ?",
            arguments: [layer]
        )
        for row in rows {
            let key: String = row[0]
            removed[key] = try fields(row[1], key: key)
        }
        try db.execute(sql: "DELETE FROM optimistic_layers WHERE mutation = ?", arguments: [layer])
        return removed
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
