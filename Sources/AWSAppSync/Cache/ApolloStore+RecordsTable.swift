import AWSWire
import Amplify
import Foundation
import GRDB

extension ApolloStore {
    /// The version of the cache file's layout, its `user_version`:
    ///
    /// - 0: records as JSON text, in a table with SQLite's row ids;
    /// - 1: records in ``CacheRecordFormat``, in a table with row ids;
    /// - 2: records in ``CacheRecordFormat``, in a table without row ids, ordered by key. A
    ///   record is found with one search of the table's own tree, where a table with row ids
    ///   takes two (its key index, then the table): reading an 18,000-item list from the cache
    ///   spent about a sixth of its time on the second search.
    static let fileVersion = 2

    /// Creates the records table, or brings the table of an earlier version to
    /// ``fileVersion``.
    ///
    /// Files of version 0 have records as JSON text: each is read and written again in the
    /// binary format. Files before version 2 have their table copied to one without row ids.
    /// Both happen in the transaction that opens the file, so that a record that cannot be read
    /// leaves the file as it was.
    ///
    /// - Throws: ``AWSAppSyncClientError`` (``AWSAppSyncClientError/Code/cache``) when the file
    ///   is of a later version, or holds a record of an earlier version that is not a JSON
    ///   object; the database's errors.
    static func prepareRecordsTable(_ db: Database) throws {
        let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        guard version <= fileVersion else {
            throw AWSAppSyncClientError(
                .cache,
                "It is a file of version \(version), written by a later version of AWSAppSync; this version reads "
                    + "files up to version \(fileVersion)."
            )
        }
        if try db.tableExists("records") {
            if version < 1 { try convertTextRecords(db) }
            if version < 2 { try copyToTableWithoutRowIDs(db) }
        } else {
            try db.execute(
                sql: "CREATE TABLE records (key TEXT NOT NULL PRIMARY KEY, record BLOB NOT NULL) WITHOUT ROWID"
            )
        }
        try db.execute(sql: "PRAGMA user_version = \(fileVersion)")
    }

    /// Copies the records table of an earlier version, with its columns, to a table without row
    /// ids. Its index on `accessed` goes with the old table; ``CacheBounds/createColumns(_:)``
    /// creates it again.
    private static func copyToTableWithoutRowIDs(_ db: Database) throws {
        let hasAccessed = try db.columns(in: "records").contains { $0.name == "accessed" }
        let accessed = hasAccessed ? ", accessed REAL NOT NULL DEFAULT 0" : ""
        try db.execute(
            sql: "CREATE TABLE records_without_rowids (key TEXT NOT NULL PRIMARY KEY, record BLOB NOT NULL\(accessed)) "
                + "WITHOUT ROWID"
        )
        let columns = hasAccessed ? "key, record, accessed" : "key, record"
        try db.execute(
            sql: """
                INSERT INTO records_without_rowids (\(columns)) SELECT \(columns) FROM records;
                DROP TABLE records;
                ALTER TABLE records_without_rowids RENAME TO records;
                """
        )
    }

    /// Writes the JSON text records of an earlier version in the binary format.
    private static func convertTextRecords(_ db: Database) throws {
        let update = try db.cachedStatement(sql: "UPDATE records SET record = ? WHERE key = ?")
        let rows = try Row.fetchAll(db, sql: "SELECT key, record FROM records")
        for row in rows {
            let key: String = row[0]
            let stored: DatabaseValue = row[1]
            guard case .string(let text) = stored.storage else {
                throw AWSAppSyncClientError(
                    .cache,
                    "The record '\(key)' of an earlier version is not text: it was not written by this client."
                )
            }
            let fields: [String: JSONValue]
            do {
                fields = try OptimisticLayers.fields(text, key: key)
            } catch let error as JSONParseError {
                throw AWSAppSyncClientError(
                    .cache,
                    "The record '\(key)' of an earlier version is not JSON: \(sentence: error) It was not written "
                        + "by this client."
                )
            }
            try update.execute(arguments: [try ReadWriteTransaction.stored(fields, key: key), key])
        }
    }
}

extension ApolloStore {
    /// Every record of the cache file at `url`, read without opening it as a client would: for
    /// tools that inspect a client's cache while it runs (optimistic layers, which live in
    /// memory, are not in the file).
    ///
    /// - Throws: ``AWSAppSyncClientError`` (``AWSAppSyncClientError/Code/cache``) when the file
    ///   cannot be read as a cache, naming the file or the record.
    package static func records(inDatabaseAt url: URL) throws -> [CacheKey: [String: JSONValue]] {
        do {
            let database = try DatabaseQueue(
                path: url.path,
                configuration: ClientDatabase.configuration(readonly: true)
            )
            return try database.read { db in
                guard try db.tableExists("records") else { return [:] }
                var records: [CacheKey: [String: JSONValue]] = [:]
                let statement = try db.makeStatement(sql: "SELECT key, record FROM records")
                let cursor = try Row.fetchCursor(statement)
                while let row = try cursor.next() {
                    let key: String = row[0]
                    records[key] = try ReadTransaction.decodedRecord(in: statement, column: 1, key: key).fields
                }
                return records
            }
        } catch let error as AWSAppSyncClientError {
            throw error
        } catch {
            throw AWSAppSyncClientError(.cache, "Cannot read the cache at '\(url.path)': \(sentence: error)")
        }
    }
}
