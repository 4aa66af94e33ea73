import Amplify
import Foundation
import GRDB

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Recognizes, creates and checks DataStore's database file.
///
/// A file DataStore did not create, or one that is corrupted, is refused before anything writes
/// to it: the checks read the header directly, then open the file read-only. The one write before
/// them is SQLite's own rollback of a transaction that a killed process left in the file, which a
/// read-only connection cannot make and without which the header is not yet the file's.
enum DatabaseFile {
    /// What is at the database's path.
    enum Contents: Equatable {
        /// No file: DataStore creates one.
        case none
        /// An empty file, as `touch` leaves it: DataStore creates the database in it.
        case empty
        /// A SQLite database with DataStore's `application_id`.
        case dataStore
    }

    /// What the file at `url` is.
    ///
    /// - Throws: ``DataStoreError`` with ``DataStoreError/Code/invalidDatabase`` when the file
    ///   is not a SQLite database or is one another program created.
    static func inspect(_ url: URL) throws(DataStoreError) -> Contents {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return .none }
        guard !isDirectory.boolValue else {
            throw DataStoreError(
                .invalidDatabase,
                "The DataStore database path '\(url.path)' is a directory. Give DataStoreConfiguration(databaseURL:) "
                    + "the path of a file."
            )
        }
        let header: Data
        do {
            let handle = try FileHandle(forReadingFrom: url)
            // Closing a handle that only read the header loses nothing; the read's error is the one
            // that matters.
            defer { try? handle.close() }
            header = try handle.read(upToCount: 100) ?? Data()
        } catch {
            throw DataStoreError(
                .invalidDatabase,
                "DataStore cannot read the database file at '\(url.path)': \(error). Check its permissions."
            )
        }
        if header.isEmpty { return .empty }
        let magic = Data("SQLite format 3\0".utf8)
        guard header.count == 100, header.prefix(16) == magic else {
            throw DataStoreError(
                .invalidDatabase,
                "The file at '\(url.path)' is not a DataStore database: it is not a SQLite database (it starts with "
                    + "\(describe(header.prefix(16)))). DataStore left it untouched. Move it away, or give "
                    + "DataStoreConfiguration(databaseURL:) another path."
            )
        }
        let applicationID = header[68..<72].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard Int32(bitPattern: applicationID) == SystemTables.applicationID else {
            throw DataStoreError(
                .invalidDatabase,
                "The file at '\(url.path)' is a SQLite database that DataStore did not create (its application_id is "
                    + "0x\(String(applicationID, radix: 16, uppercase: true)), DataStore's is 0x"
                    + "\(String(UInt32(bitPattern: SystemTables.applicationID), radix: 16, uppercase: true))). "
                    + "DataStore left it untouched. Give DataStoreConfiguration(databaseURL:) another path."
            )
        }
        return .dataStore
    }

    /// Creates an empty DataStore database at `url`, the header's `application_id`, the system
    /// tables and WAL mode, unless another process or store created one there first.
    ///
    /// The database is made complete in a file beside `url` and then renamed to it, so that a
    /// process killed while creating leaves either no database or a whole one, never a half-made
    /// file with a journal that only a writable connection could roll back. A draft such a process
    /// left is replaced, and so are a `-wal`, `-shm` or `-journal` file without a database: SQLite
    /// would otherwise apply a stale log to the new file.
    ///
    /// Creators take turns, holding an exclusive `flock` on the directory: the files replaced
    /// belong to no one else, and a database another store created (and may already have
    /// written to) is kept rather than replaced. The lock goes with the process, so a killed
    /// creator leaves none behind.
    ///
    /// - Throws: `DatabaseError` or a file system error.
    static func create(_ url: URL) throws {
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let lock = open(directory.path, O_RDONLY | O_CLOEXEC)
        guard lock >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(lock) }
        while flock(lock, LOCK_EX) != 0 {
            guard errno == EINTR else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        // The file is there and not empty: another creator made it while this one waited (or
        // someone put a file there, which the caller's inspection names).
        var existing = stat()
        if stat(url.path, &existing) == 0 {
            guard existing.st_size == 0 else { return }
        } else if errno != ENOENT {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        let draft = directory.appendingPathComponent(url.lastPathComponent + ".creating")
        try removeFiles(of: draft)
        try removeFiles(of: url, keepingDatabase: true)
        let queue = try DatabaseQueue(path: draft.path)
        try queue.write { db in
            try db.execute(sql: "PRAGMA application_id = \(SystemTables.applicationID)")
            try SystemTables.create(db)
            try SystemTables.setMetadataValue(db, "format", String(SystemTables.format))
            try SystemTables.setMetadataValue(db, "createdAt", Temporal.DateTime.now().iso8601String)
        }
        try queue.writeWithoutTransaction { db in
            guard try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") == "wal" else {
                throw DatabaseError(message: "SQLite did not switch the new database to WAL mode")
            }
        }
        try queue.close()
        guard rename(draft.path, url.path) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    /// Rolls back the transaction that a process killed in rollback-journal mode left
    /// half-written in the file at `url`, as any writable SQLite connection would on opening it.
    /// Until then the file holds pages of no committed state, perhaps not even its header, so
    /// nothing can tell what it is. A DataStore file is in that mode only while an earlier
    /// release creates it. The rollback restores the last committed state: nothing committed is
    /// lost.
    ///
    /// - Throws: ``DataStoreError`` with ``DataStoreError/Code/storage`` when SQLite cannot roll
    ///   it back.
    static func rollBackInterruptedTransaction(_ url: URL) throws(DataStoreError) {
        let journal = URL(fileURLWithPath: url.path + "-journal")
        guard FileManager.default.fileExists(atPath: url.path), FileManager.default.fileExists(atPath: journal.path)
        else { return }
        let magic: [UInt8] = [0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7]
        let start: Data
        do {
            let handle = try FileHandle(forReadingFrom: journal)
            // Closing a handle that only read the journal's first bytes loses nothing.
            defer { try? handle.close() }
            start = try handle.read(upToCount: magic.count) ?? Data()
        } catch {
            throw DataStoreError(
                .storage,
                "DataStore cannot read the journal '\(journal.path)' beside its database: \(error). Check its "
                    + "permissions."
            )
        }
        guard Array(start) == magic else { return }
        do {
            let queue = try DatabaseQueue(path: url.path)
            try queue.read { db in _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            try queue.close()
        } catch {
            throw DataStoreError(
                .storage,
                "DataStore cannot roll back the interrupted transaction in '\(journal.path)': \(error). Check "
                    + "that the directory is writable, and leave the journal beside the database: it holds the "
                    + "database's last committed pages."
            )
        }
    }

    /// Removes the database at `url` (unless `keepingDatabase`) and its `-wal`, `-shm` and
    /// `-journal` files, those that exist.
    private static func removeFiles(of url: URL, keepingDatabase: Bool = false) throws {
        let suffixes = keepingDatabase ? ["-wal", "-shm", "-journal"] : ["", "-wal", "-shm", "-journal"]
        for suffix in suffixes where FileManager.default.fileExists(atPath: url.path + suffix) {
            try FileManager.default.removeItem(atPath: url.path + suffix)
        }
    }

    /// What a check of an existing database found.
    struct Check {
        /// The version of the model registration its tables were made for; `nil` before the first
        /// migration.
        var registryVersion: String?
    }

    /// Checks the DataStore database at `url` without writing to it: its integrity, its format
    /// and its metadata.
    ///
    /// - Throws: ``DataStoreError`` with ``DataStoreError/Code/invalidDatabase`` when the file is
    ///   corrupted or was written by a newer DataStore.
    static func check(_ url: URL, integrity: Bool) throws(DataStoreError) -> Check {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        do {
            let queue = try DatabaseQueue(path: url.path, configuration: configuration)
            // A read-only connection that only checked the file: closing it loses nothing, and the
            // check's answer or error is the one that matters.
            defer { try? queue.close() }
            return try queue.read { db throws(DataStoreError) -> Check in
                do {
                    if integrity {
                        let report = try String.fetchAll(db, sql: "PRAGMA quick_check")
                        guard report == ["ok"] else {
                            throw corrupted(url, report.prefix(5).joined(separator: "; "))
                        }
                    }
                    guard try db.tableExists(SystemTables.metadata) else {
                        throw corrupted(url, "its \(SystemTables.metadata) table is missing")
                    }
                    let format = try SystemTables.metadataValue(db, "format").flatMap { Int($0) }
                    guard let format else { throw corrupted(url, "it does not record its format") }
                    guard format <= SystemTables.format else {
                        throw DataStoreError(
                            .invalidDatabase,
                            "The DataStore database at '\(url.path)' was written by a newer version of DataStore "
                                + "(format \(format); this version reads format \(SystemTables.format) and older). "
                                + "DataStore left it untouched. Update the app, or give "
                                + "DataStoreConfiguration(databaseURL:) another path."
                        )
                    }
                    return Check(registryVersion: try SystemTables.metadataValue(db, "registryVersion"))
                } catch let error as DataStoreError {
                    throw error
                } catch {
                    throw corrupted(url, "\(error)")
                }
            }
        } catch let error as DataStoreError {
            throw error
        } catch {
            throw corrupted(url, "\(error)")
        }
    }

    static func corrupted(_ url: URL, _ detail: String) -> DataStoreError {
        DataStoreError(
            .invalidDatabase,
            "The DataStore database at '\(url.path)' is corrupted: \(detail). DataStore left it untouched. "
                + "Restore it from a backup, or move it away to start with an empty store (its pending outbox "
                + "would be lost)."
        )
    }

    private static func describe(_ bytes: Data) -> String {
        let printable = bytes.allSatisfy { (0x20..<0x7F).contains($0) || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        if printable { return "\"" + String(decoding: bytes, as: UTF8.self) + "\"" }
        return "0x" + bytes.map { String(format: "%02X", $0) }.joined()
    }
}
