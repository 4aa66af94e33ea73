import Amplify
import Foundation
import GRDB

extension ApolloStore {
    /// Creates the records table, or brings the table of an earlier version to
    /// ``CacheRecordFormat``; the file's `user_version` is the format its records have.
    ///
    /// Files of earlier versions have `user_version` 0 and records as JSON text: each is read
    /// and written again in the binary format, in the transaction that opens the file, so that a
    /// record that cannot be read leaves the file as it was.
    ///
    /// - Throws: ``AWSAppSyncClientError`` (``AWSAppSyncClientError/Code/cache``) when the file
    ///   holds records of a later format, or a record of an earlier version that is not a JSON
    ///   object; the database's errors.
    static func prepareRecordsTable(_ db: Database) throws {
        let format = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        guard format <= Int(CacheRecordFormat.version) else {
            throw AWSAppSyncClientError(
                .cache,
                "Its records have format \(format), written by a later version of AWSAppSync; this version "
                    + "reads format \(CacheRecordFormat.version)."
            )
        }
        if try db.tableExists("records") {
            if format < Int(CacheRecordFormat.version) { try convertTextRecords(db) }
        } else {
            try db.execute(sql: "CREATE TABLE records (key TEXT NOT NULL PRIMARY KEY, record BLOB NOT NULL)")
        }
        try db.execute(sql: "PRAGMA user_version = \(CacheRecordFormat.version)")
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
