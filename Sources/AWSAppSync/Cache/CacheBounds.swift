import Foundation
import GRDB
import Synchronization

/// Keeps the normalized cache within a size limit and a time to live.
///
/// Every record has the time it was last written or read (`accessed`). After a write that
/// takes the cache over its limit, the least recently used records are deleted until it is
/// under nine tenths of it; records not used for the time to live go too. Records a live
/// watcher read are never deleted, so that watchers keep their data; a query whose records
/// were deleted is a cache miss, fetched again.
final class CacheBounds: Sendable {
    let sizeLimit: Int?
    let timeToLive: TimeInterval?
    /// The bytes the records take (keys and stored records).
    let bytes: Mutex<Int>
    /// Records read since the last eviction, with when: written to `accessed` before evicting.
    private let reads = Mutex<[CacheKey: Double]>([:])
    /// The records each live watcher read.
    private let pins = Mutex<[UUID: Set<CacheKey>]>([:])
    /// When the records past their time to live were last deleted.
    private let lastExpiry = Mutex<Double>(0)

    init(sizeLimit: Int?, timeToLive: TimeInterval?, bytes: Int) {
        self.sizeLimit = sizeLimit
        self.timeToLive = timeToLive
        self.bytes = Mutex(bytes)
    }

    /// The time stamps of `accessed`: seconds since 1970.
    static func now() -> Double { Date().timeIntervalSince1970 }

    /// Adds `accessed` to a table of an earlier version, with its index.
    static func createColumns(_ db: Database) throws {
        let columns = try db.columns(in: "records").map(\.name)
        if !columns.contains("accessed") {
            try db.execute(sql: "ALTER TABLE records ADD COLUMN accessed REAL NOT NULL DEFAULT 0")
        }
        try db.execute(sql: "CREATE INDEX IF NOT EXISTS records_accessed ON records (accessed)")
    }

    static func storedBytes(_ db: Database) throws -> Int {
        try Int.fetchOne(
            db,
            sql: "SELECT COALESCE(SUM(length(CAST(key AS BLOB)) + length(CAST(record AS BLOB))), 0) FROM records"
        ) ?? 0
    }

    /// The record of a watcher's `record.field` key: what precedes the last `.` outside the
    /// field's arguments.
    static func recordKey(ofDependency key: String) -> CacheKey? {
        var depth = 0
        for index in key.indices.reversed() {
            switch key[index] {
            case ")": depth += 1
            case "(": depth -= 1
            case "." where depth == 0: return String(key[..<index])
            default: continue
            }
        }
        return nil
    }

    func touch(_ keys: [CacheKey]) {
        guard !keys.isEmpty else { return }
        let now = Self.now()
        reads.withLock { reads in
            for key in keys { reads[key] = now }
        }
    }

    func pin(_ watcher: UUID, records: Set<CacheKey>?) {
        pins.withLock { $0[watcher] = records }
    }

    /// Counts what a write transaction added and evicts, inside that transaction, when the
    /// limit or the time to live asks for it.
    func settle(_ db: Database, addedBytes: Int) throws {
        let total = bytes.withLock { bytes in
            bytes += addedBytes
            return bytes
        }
        let now = Self.now()
        let expiryDue =
            timeToLive.map { ttl in lastExpiry.withLock { now - $0 >= min(ttl, 60) } } ?? false
        let overLimit = sizeLimit.map { total > $0 } ?? false
        guard overLimit || expiryDue else { return }
        try flushReads(db)
        let pinned = pins.withLock { $0.values.reduce(into: Set<CacheKey>()) { $0.formUnion($1) } }
        var removed = 0
        if expiryDue, let timeToLive {
            lastExpiry.withLock { $0 = now }
            let expired = try Row.fetchAll(
                db,
                sql:
                    "SELECT key, length(CAST(key AS BLOB)) + length(CAST(record AS BLOB)) FROM records WHERE accessed < ?",
                arguments: [now - timeToLive]
            )
            for row in expired {
                let key: String = row[0]
                guard !pinned.contains(key) else { continue }
                try db.execute(sql: "DELETE FROM records WHERE key = ?", arguments: [key])
                removed += row[1] as Int
            }
        }
        if let sizeLimit, total - removed > sizeLimit {
            var excess = total - removed - sizeLimit * 9 / 10
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT key, length(CAST(key AS BLOB)) + length(CAST(record AS BLOB)) FROM records
                    ORDER BY accessed
                    """
            )
            var victims: [String] = []
            while excess > 0, let row = try rows.next() {
                let key: String = row[0]
                guard !pinned.contains(key) else { continue }
                victims.append(key)
                let size: Int = row[1]
                excess -= size
                removed += size
            }
            let statement = try db.cachedStatement(sql: "DELETE FROM records WHERE key = ?")
            for key in victims { try statement.execute(arguments: [key]) }
        }
        bytes.withLock { $0 -= removed }
    }

    /// Writes the reads since the last eviction to `accessed`.
    private func flushReads(_ db: Database) throws {
        let pending = reads.withLock { reads in
            defer { reads = [:] }
            return reads
        }
        let statement = try db.cachedStatement(sql: "UPDATE records SET accessed = max(accessed, ?) WHERE key = ?")
        for (key, time) in pending { try statement.execute(arguments: [time, key]) }
    }
}
