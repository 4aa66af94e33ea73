import Amplify
import Foundation
import GRDB
import Testing
import TodoAPI

@testable import AWSAppSync

/// The binary form of the cache's records, and cache files of earlier versions: records as JSON
/// text, or in a table with row ids.
@Suite struct CacheRecordFormatTests {
    static func roundTrip(_ record: [String: JSONValue]) throws -> [String: JSONValue] {
        let bytes = try #require(CacheRecordFormat.encode(record))
        return try bytes.withUnsafeBytes { try CacheRecordFormat.decode($0) }
    }

    static func decode(_ bytes: [UInt8]) throws -> [String: JSONValue] {
        try bytes.withUnsafeBytes { try CacheRecordFormat.decode($0) }
    }

    @Test func everyKindOfValueComesBackAsItWas() throws {
        let record: [String: JSONValue] = [
            "null": .null,
            "false": false,
            "true": true,
            "zero": 0,
            "small": -3,
            "exact": .integer(12_345_678_901_234_567),
            "max": .integer(Int.max),
            "min": .integer(Int.min),
            "half": 0.5,
            "pi": .number(Double.pi),
            "tiny": .number(Double.leastNonzeroMagnitude),
            "huge": .number(-Double.greatestFiniteMagnitude),
            "empty": "",
            "unicode": "Naïve café – 東京 – 🌍🏳️‍🌈",
            "nul": "a\u{0}b",
            "long": .string(String(repeating: "0123456789", count: 40)),
            "nested": [[1, [2, [] as JSONValue, ["deep": [[]] as JSONValue]]], [:] as JSONValue, "x"],
            "object": ["$reference": "QUERY_ROOT.listTodos(limit:5)", "ключ 🔑": ["a": nil]],
        ]
        #expect(try Self.roundTrip(record) == record)
        #expect(try Self.roundTrip([:]) == [:])
        // Equality of doubles does not tell -0.0 from 0.0: the bits do.
        let negativeZero = try Self.roundTrip(["n": .number(-0.0)])["n"]
        guard case .number(let value) = negativeZero else {
            Issue.record("-0.0 came back as \(String(describing: negativeZero))")
            return
        }
        #expect(value.bitPattern == (-0.0 as Double).bitPattern)
    }

    @Test func theBytesAreTheDocumentedLayout() throws {
        let bytes = try #require(CacheRecordFormat.encode(["n": -2, "id": "1", "a": [true, nil], "d": 1.5]))
        #expect(
            bytes == [
                1,  // format
                7, 4,  // an object of 4 members, keys sorted
                1, 0x61, 6, 2, 2, 0,  // "a": [true, null]
                1, 0x64, 4, 0, 0, 0, 0, 0, 0, 0xF8, 0x3F,  // "d": 1.5, little-endian bits
                2, 0x69, 0x64, 5, 1, 0x31,  // "id": "1"
                1, 0x6E, 3, 3,  // "n": -2, zigzag 3
            ]
        )
        // Counts over 127 take more than one byte.
        let long = try #require(CacheRecordFormat.encode(["s": .string(String(repeating: "x", count: 300))]))
        #expect(Array(long[0..<7]) == [1, 7, 1, 1, 0x73, 5, 0xAC] && long[7] == 0x02 && long.count == 308)
    }

    @Test func aNonFiniteNumberIsNotEncoded() {
        #expect(CacheRecordFormat.encode(["n": .number(.infinity)]) == nil)
        #expect(CacheRecordFormat.encode(["n": [["n": .number(.nan)]]]) == nil)
    }

    @Test(
        arguments: [
            ([], "Invalid record at byte 0: the record is empty."),
            ([0x7B, 0x7D], "Invalid record at byte 0: the record has format 123, and this version reads format 1."),
            ([1, 5, 0], "Invalid record at byte 1: the record is not an object."),
            ([1, 7, 1, 1, 0x61], "Invalid record at byte 5: the record ends where a value should start."),
            ([1, 7, 1, 1, 0x61, 9], "Invalid record at byte 5: unknown value tag 9."),
            (
                [1, 7, 1, 1, 0x61, 5, 9, 0x62],
                "Invalid record at byte 6: a count of 9 runs past the end of the record."
            ),
            ([1, 7, 1, 1, 0x61, 5, 1, 0xFF], "Invalid record at byte 7: a string is not UTF-8."),
            ([1, 7, 1, 1, 0x61, 4, 0, 0], "Invalid record at byte 6: the record ends inside a number."),
            ([1, 7, 2, 1, 0x61, 0, 1, 0x61, 1], "Invalid record at byte 6: the key 'a' appears twice."),
            (
                [1, 7, 1, 1, 0x61, 3, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02],
                "Invalid record at byte 15: a number does not fit 64 bits."
            ),
            ([1, 7, 0, 0], "Invalid record at byte 3: bytes follow the record."),
        ] as [([UInt8], String)]
    )
    func bytesThatAreNotARecordAreNamed(_ bytes: [UInt8], message: String) {
        let error = #expect(throws: CacheRecordFormatError.self) { try Self.decode(bytes) }
        #expect(error?.description == message)
    }

    @Test func nestingDeeperThanTheLimitIsRefused() throws {
        var value: JSONValue = 1
        for _ in 0..<513 { value = [value] }
        let bytes = try #require(CacheRecordFormat.encode(["deep": value]))
        let error = #expect(throws: CacheRecordFormatError.self) { try Self.decode(bytes) }
        #expect(error?.reason == "nesting deeper than 512 levels")
        var fits: JSONValue = 1
        for _ in 0..<511 { fits = [fits] }
        #expect(try Self.roundTrip(["deep": fits]) == ["deep": fits])
    }

    /// A temporary cache file, removed afterwards.
    static func withCacheFile(_ body: (URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("appsync-format-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory.appendingPathComponent("queries.db"))
    }

    /// A cache file as the versions before the binary format wrote it: records as JSON text with
    /// sorted keys, `user_version` 0.
    static func writeTextCache(at url: URL, records: [(String, String)]) throws {
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE records (key TEXT NOT NULL PRIMARY KEY, record TEXT NOT NULL);
                    ALTER TABLE records ADD COLUMN accessed REAL NOT NULL DEFAULT 0;
                    """
            )
            for (key, text) in records {
                try db.execute(sql: "INSERT INTO records (key, record) VALUES (?, ?)", arguments: [key, text])
            }
        }
    }

    static let textRecords = [
        ("QUERY_ROOT", #"{"listTodos":{"$reference":"QUERY_ROOT.listTodos"}}"#),
        (
            "QUERY_ROOT.listTodos",
            #"{"__typename":"ModelTodoConnection","items":[{"$reference":"1"},{"$reference":"2"}],"nextToken":null}"#
        ),
        ("1", #"{"__typename":"Todo","description":null,"id":"1","name":"Milk \u00e9 🥛"}"#),
        ("2", #"{"__typename":"Todo","description":"A dozen","id":"2","name":"Eggs","size":12345678901234567}"#),
    ]

    @Test func aCacheFileOfAnEarlierVersionIsConverted() throws {
        try Self.withCacheFile { url in
            try Self.writeTextCache(at: url, records: Self.textRecords)
            let store = try ApolloStore(databaseURL: url)
            let data = try store.withinReadTransaction { try $0.read(query: ListTodosQuery()) }.get()
            #expect(
                data
                    == ListTodosQuery.Data(
                        listTodos: .init(items: [
                            .init(id: "1", name: "Milk é 🥛"), .init(id: "2", name: "Eggs", description: "A dozen"),
                        ])
                    )
            )
            // The field no query selects is kept, exact.
            let two = try store.withinReadTransaction { try $0.record("2") }.get()
            #expect(two?["size"] == .integer(12_345_678_901_234_567))
            let queue = try DatabaseQueue(path: url.path)
            let (version, types) = try queue.read { db in
                (
                    try Int.fetchOne(db, sql: "PRAGMA user_version"),
                    try String.fetchAll(db, sql: "SELECT DISTINCT typeof(record) FROM records")
                )
            }
            #expect(version == 2)
            #expect(types == ["blob"])
            #expect(try Self.isWithoutRowIDs(queue))
        }
    }

    /// Writes `ApolloStoreTests.list` to a cache file at `url`, and closes it.
    static func writeList(at url: URL) throws {
        let store = try ApolloStore(databaseURL: url)
        try store.withinReadWriteTransaction {
            try $0.write(data: ApolloStoreTests.list, forQuery: ListTodosQuery())
        }
        .get()
    }

    /// Whether the file's records table is one without row ids.
    static func isWithoutRowIDs(_ queue: DatabaseQueue) throws -> Bool {
        let sql = try queue.read { db in
            try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'records'")
        }
        return try #require(sql).hasSuffix("WITHOUT ROWID")
    }

    /// A file of version 1 (binary records, in a table with row ids) is copied to a table without
    /// them, with its records, their access times and the index on those.
    @Test func aCacheFileOfVersionOneIsCopiedToATableWithoutRowIDs() throws {
        try Self.withCacheFile { url in
            try Self.writeList(at: url)
            let queue = try DatabaseQueue(path: url.path)
            let written = try queue.write { db in
                try db.execute(
                    sql: """
                        CREATE TABLE rowid_records (key TEXT NOT NULL PRIMARY KEY, record BLOB NOT NULL);
                        ALTER TABLE rowid_records ADD COLUMN accessed REAL NOT NULL DEFAULT 0;
                        INSERT INTO rowid_records SELECT key, record, 1000 + length(key) FROM records;
                        DROP TABLE records;
                        ALTER TABLE rowid_records RENAME TO records;
                        CREATE INDEX records_accessed ON records (accessed);
                        PRAGMA user_version = 1;
                        """
                )
                return try Row.fetchAll(db, sql: "SELECT key, record, accessed FROM records ORDER BY key")
            }
            #expect(try !Self.isWithoutRowIDs(queue))
            let store = try ApolloStore(databaseURL: url)
            let data = try store.withinReadTransaction { try $0.read(query: ListTodosQuery()) }.get()
            #expect(data == ApolloStoreTests.list)
            let (version, copied, indexes) = try queue.read { db in
                (
                    try Int.fetchOne(db, sql: "PRAGMA user_version"),
                    try Row.fetchAll(db, sql: "SELECT key, record, accessed FROM records ORDER BY key"),
                    try String.fetchAll(
                        db,
                        sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'records'"
                    )
                )
            }
            #expect(version == 2)
            #expect(try Self.isWithoutRowIDs(queue))
            #expect(written.count > 2)
            #expect(copied == written)
            #expect(indexes.contains("records_accessed"))
        }
    }

    @Test func aCacheFileOfAnEarlierVersionWithAnUnreadableRecordIsRefusedAsItWas() throws {
        try Self.withCacheFile { url in
            try Self.writeTextCache(at: url, records: Self.textRecords + [("3", #"{"name": "Milk"#)])
            let error = #expect(throws: AWSAppSyncClientError.self) { try ApolloStore(databaseURL: url) }
            #expect(
                error?.message
                    == "Cannot open the query cache at '\(url.path)': The record '3' of an earlier version is not "
                    + "JSON: Invalid JSON at offset 14: unterminated string. It was not written by this client. "
                    + "Pass another file in the cache configuration, or delete this one."
            )
            let queue = try DatabaseQueue(path: url.path)
            let (version, types) = try queue.read { db in
                (
                    try Int.fetchOne(db, sql: "PRAGMA user_version"),
                    try String.fetchAll(db, sql: "SELECT DISTINCT typeof(record) FROM records")
                )
            }
            #expect(version == 0)
            #expect(types == ["text"])
        }
    }

    @Test func aCacheFileOfALaterFormatIsRefused() throws {
        try Self.withCacheFile { url in
            let queue = try DatabaseQueue(path: url.path)
            try queue.write { db in
                try db.execute(sql: "CREATE TABLE records (key TEXT NOT NULL PRIMARY KEY, record BLOB NOT NULL)")
                try db.execute(sql: "PRAGMA user_version = 3")
            }
            let error = #expect(throws: AWSAppSyncClientError.self) { try ApolloStore(databaseURL: url) }
            #expect(
                error?.message
                    == "Cannot open the query cache at '\(url.path)': It is a file of version 3, written by a later "
                    + "version of AWSAppSync; this version reads files up to version 2. Pass another file in the "
                    + "cache configuration, or delete this one."
            )
        }
    }

    @Test func aCorruptRecordIsNamedWhenRead() throws {
        try Self.withCacheFile { url in
            try Self.writeList(at: url)
            let queue = try DatabaseQueue(path: url.path)
            try queue.write { db in
                try db.execute(sql: "UPDATE records SET record = x'01070101' WHERE key = 'QUERY_ROOT'")
            }
            let store = try ApolloStore(databaseURL: url)
            let error = #expect(throws: AWSAppSyncClientError.self) {
                try store.withinReadTransaction { try $0.read(query: ListTodosQuery()) }.get()
            }
            #expect(error?.code == .cache)
            #expect(
                error?.message
                    == "The cache record 'QUERY_ROOT' cannot be read: Invalid record at byte 3: a count of 1 runs past "
                    + "the end of the record. Clear the cache; it was not written by this client."
            )
        }
    }
}
