import Foundation
import GRDB

/// `Idempotency-Key`s: the table `_stratus_idempotency`, one row per caller and key, written
/// by the mutation's own write transactions and completed with the response.
extension SQLiteItemStore {
    static let idempotencyTable = "_stratus_idempotency"

    /// Creates the table of keys when the database has none.
    static func createIdempotencyTable(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS \(idempotencyTable.quotedSQLIdentifier) (
                  "scope" TEXT NOT NULL,
                  "key" TEXT NOT NULL,
                  "digest" TEXT NOT NULL,
                  "status" INTEGER,
                  "body" BLOB,
                  "expiresAt" INTEGER NOT NULL,
                  PRIMARY KEY ("scope", "key"));
                CREATE INDEX IF NOT EXISTS "_stratus_idempotency_expiry"
                  ON \(idempotencyTable.quotedSQLIdentifier) ("expiresAt");
                """
        )
    }

    /// Records that the mutation of `claim` wrote, inside the transaction of the write; the
    /// first write of a mutation records it, later ones find it there. A use of the key that
    /// expired before `now` is replaced.
    static func recordWrite(of claim: IdempotencyClaim, now: Int, in db: Database) throws {
        try db.cachedStatement(
            sql: "DELETE FROM \(idempotencyTable.quotedSQLIdentifier) "
                + "WHERE \"scope\" = ? AND \"key\" = ? AND \"expiresAt\" <= ?"
        ).execute(arguments: [claim.scope, claim.key, now])
        try db.cachedStatement(
            sql: "INSERT OR IGNORE INTO \(idempotencyTable.quotedSQLIdentifier) "
                + "(\"scope\", \"key\", \"digest\", \"expiresAt\") VALUES (?, ?, ?, ?)"
        ).execute(arguments: [claim.scope, claim.key, claim.digest, claim.expiresAt])
    }

    /// Removes the keys that expired at or before `now`.
    static func purgeIdempotencyKeys(now: Int, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM \(idempotencyTable.quotedSQLIdentifier) WHERE \"expiresAt\" <= ?")
            .execute(arguments: [now])
    }

    /// What the store holds for `key` of the caller `scope`, unless it expired before `now`.
    func idempotencyRecord(scope: String, key: String, now: Int) async throws -> IdempotencyRecord? {
        let table = Self.idempotencyTable.quotedSQLIdentifier
        return try await pool.read { db in
            let statement = try db.cachedStatement(
                sql: "SELECT \"digest\", \"status\", \"body\" FROM \(table) "
                    + "WHERE \"scope\" = ? AND \"key\" = ? AND \"expiresAt\" > ?"
            )
            guard let row = try Row.fetchOne(statement, arguments: [scope, key, now]) else { return nil }
            let digest: String = row["digest"]
            guard let status: Int = row["status"] else { return IdempotencyRecord(digest: digest, response: nil) }
            guard let body: Data = row["body"] else {
                throw StorageError.corrupt("the Idempotency-Key '\(key)' has a status and no response body")
            }
            return IdempotencyRecord(digest: digest, response: .init(status: status, body: [UInt8](body)))
        }
    }

    /// Records the response to the first request with the key of `claim`, and removes the keys
    /// that expired before `now`. A response recorded already stays as it was.
    func recordResponse(
        _ response: IdempotencyRecord.Response,
        for claim: IdempotencyClaim,
        now: Int
    ) async throws {
        let table = Self.idempotencyTable.quotedSQLIdentifier
        try await writer.write { db in
            try Self.purgeIdempotencyKeys(now: now, in: db)
            try db.cachedStatement(
                sql: "INSERT INTO \(table) (\"scope\", \"key\", \"digest\", \"status\", \"body\", \"expiresAt\") "
                    + "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (\"scope\", \"key\") DO UPDATE SET "
                    + "\"status\" = excluded.\"status\", \"body\" = excluded.\"body\", "
                    + "\"expiresAt\" = excluded.\"expiresAt\" WHERE \"status\" IS NULL"
            ).execute(arguments: [
                claim.scope, claim.key, claim.digest, response.status, Data(response.body), claim.expiresAt,
            ])
        }
    }
}
