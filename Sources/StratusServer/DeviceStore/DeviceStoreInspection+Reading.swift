import Foundation
import GRDB

extension DeviceStoreInspection {
    /// The `application_id` in the header of every DataStore database: `STRA`.
    public static let dataStoreApplicationID: UInt32 = 0x5354_5241

    /// The tables of an AppSync client's databases: the offline queue's, the query cache's and
    /// its optimistic layers', and the delta sync metadata's.
    static let appSyncTables: Set<String> = ["mutations", "records", "optimistic_layers", "sync_operations"]

    /// Reads the store in the file at `url` without writing to it.
    ///
    /// - Parameters:
    ///   - url: A DataStore database, or an AppSync client's `offlineMutations.db`, `queries.db`,
    ///     `subscriptionMetadataCache.db` or the one file of its `databaseURL:`.
    ///   - now: The time a DataStore's next sync is judged at.
    ///   - syncInterval: The app's DataStore `syncInterval` (a day by default): a model whose
    ///     last sync is older syncs with a base sync next.
    /// - Throws: ``DeviceStoreInspectionError``: ``DeviceStoreInspectionError/Code/fileMissing``,
    ///   ``DeviceStoreInspectionError/Code/directory``, ``DeviceStoreInspectionError/Code/notAStore``,
    ///   ``DeviceStoreInspectionError/Code/newerFormat`` or
    ///   ``DeviceStoreInspectionError/Code/unreadable``.
    public init(
        fileAt url: URL,
        now: Date = Date(),
        syncInterval: TimeInterval = 86_400
    ) throws(DeviceStoreInspectionError) {
        let path = url.path
        let header = try Self.header(of: url)
        let applicationID = header[68..<72].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let queue: DatabaseQueue
        do {
            var configuration = Configuration()
            configuration.readonly = true
            configuration.busyMode = .timeout(10)
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw DeviceStoreInspectionError(
                .unreadable,
                "Cannot open '\(path)' read-only: \(error). Check that the file and its directory are readable."
            )
        }
        // A read-only connection that wrote nothing: closing it loses nothing, and the reading's
        // answer or error is the one that matters.
        defer { try? queue.close() }
        do {
            let contents = try queue.read { db throws -> Contents in
                if applicationID == Self.dataStoreApplicationID {
                    return .dataStore(try Self.readDataStore(db, path: path, now: now, syncInterval: syncInterval))
                }
                return .appSyncClient(try Self.readAppSyncClient(db, path: path, applicationID: applicationID))
            }
            self.init(path: path, contents: contents)
        } catch let error as DeviceStoreInspectionError {
            throw error
        } catch {
            throw DeviceStoreInspectionError(
                .unreadable,
                "Cannot read '\(path)': \(error). If the app holds a lock on it for long, try again; if the file "
                    + "is damaged, SQLite's own tools (sqlite3 '.recover') may say more."
            )
        }
    }

    /// The first 100 bytes of the file: SQLite's header.
    private static func header(of url: URL) throws(DeviceStoreInspectionError) -> Data {
        let path = url.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw DeviceStoreInspectionError(
                .fileMissing,
                "No file at '\(path)'. Pass the path of a DataStore database (the databaseURL of its "
                    + "DataStoreConfiguration) or of an AppSync client's database (offlineMutations.db, queries.db "
                    + "or subscriptionMetadataCache.db in its cache directory)."
            )
        }
        guard !isDirectory.boolValue else {
            let contents = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            let candidates = contents.filter { $0.hasSuffix(".db") || $0.hasSuffix(".sqlite") }.sorted()
            throw DeviceStoreInspectionError(
                .directory,
                "'\(path)' is a directory. Pass one database file"
                    + (candidates.isEmpty
                        ? "."
                        : ", for example "
                            + candidates.prefix(4).map { "'\(url.appending(path: $0).path)'" }.joined(separator: " or ")
                            + ".")
            )
        }
        let header: Data
        do {
            let handle = try FileHandle(forReadingFrom: url)
            // Closing a handle that only read: the read's answer or error is the one that matters.
            defer { try? handle.close() }
            header = try handle.read(upToCount: 100) ?? Data()
        } catch {
            throw DeviceStoreInspectionError(
                .unreadable,
                "Cannot read '\(path)': \(error). Check its permissions."
            )
        }
        guard !header.isEmpty else {
            throw DeviceStoreInspectionError(
                .notAStore,
                "'\(path)' is empty: it is not a DataStore or AppSync client database yet (DataStore creates its "
                    + "database in an empty file when it starts). Start the app once, or pass another file."
            )
        }
        guard header.count == 100, header.prefix(16) == Data("SQLite format 3\0".utf8) else {
            throw DeviceStoreInspectionError(
                .notAStore,
                "'\(path)' is not a SQLite database, so not a DataStore or AppSync client database. Pass the path "
                    + "of a DataStore database or of an AppSync client's offlineMutations.db, queries.db or "
                    + "subscriptionMetadataCache.db."
            )
        }
        return header
    }

    /// The ISO 8601 form of `date`, with milliseconds, in UTC.
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// `name` quoted as an SQL identifier.
    static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
