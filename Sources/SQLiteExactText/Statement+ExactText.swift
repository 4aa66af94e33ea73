import Foundation
import GRDB
import GRDBSQLite

/// Text bound and read with its length in bytes, so that a string holding U+0000 (NUL) is
/// stored and read back whole.
///
/// GRDB binds a `String` and reads a `TEXT` value as a C string, which ends at the first NUL:
/// `"a\u{0}one"` would be stored as `"a"`, and two different identifiers would name the same
/// record. DataStore's and the server's statements that bind or read stored data go through
/// these methods instead.
extension Statement {
    /// Binds `arguments` to the statement's `?` placeholders, in order, text with its length.
    ///
    /// GRDB binds first, then each string holding a NUL is bound again with its length. Run the
    /// statement afterwards without arguments (`execute()`, `Row.fetchCursor(statement)`), which
    /// keeps these bindings.
    ///
    /// - Throws: `DatabaseError` when the arguments do not fit the placeholders.
    package func bindExactly(_ arguments: [DatabaseValue]) throws {
        // GRDB's initializer for a sequence of one concrete type reads each value through a key
        // path, which it instantiates on every call: the optional existential one maps with a
        // closure instead.
        try setArguments(StatementArguments(arguments.map { $0 as (any DatabaseValueConvertible)? }))
        for offset in arguments.indices {
            // memchr, not `utf8.contains(0)`: the check runs on every string bound (a record's
            // whole JSON for an outbox row), and the generic loop cost a fifth of a save's
            // outbox insert.
            guard case .string(var text) = arguments[offset].storage,
                text.withUTF8({ bytes in bytes.baseAddress.map { memchr($0, 0, bytes.count) != nil } ?? false })
            else { continue }
            let code = text.withUTF8 { bytes in
                sqlite3_bind_text64(
                    sqliteStatement,
                    CInt(offset + 1),
                    bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                    sqlite3_uint64(bytes.count),
                    transientDestructor,
                    UInt8(SQLITE_UTF8)
                )
            }
            guard code == SQLITE_OK else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code),
                    message: "Binding text of \(text.utf8.count) bytes failed",
                    sql: sql
                )
            }
        }
    }

    /// Binds `arguments` exactly and runs the statement.
    ///
    /// - Throws: `DatabaseError` when SQLite fails.
    package func executeExactly(_ arguments: [DatabaseValue]) throws {
        try bindExactly(arguments)
        try execute()
    }

    /// Binds `arguments` exactly and returns the rows the statement selects, one value a column,
    /// text read with its length.
    ///
    /// - Throws: `DatabaseError` when SQLite fails.
    package func fetchExactRows(_ arguments: [DatabaseValue]) throws -> [[DatabaseValue]] {
        var rows: [[DatabaseValue]] = []
        try forEachExactRow(arguments) { rows.append($0) }
        return rows
    }

    /// Binds `arguments` exactly and calls `body` with each row the statement selects, one value
    /// a column, text read with its length.
    ///
    /// - Throws: what `body` throws, or `DatabaseError` when SQLite fails.
    package func forEachExactRow(_ arguments: [DatabaseValue], _ body: ([DatabaseValue]) throws -> Void) throws {
        try bindExactly(arguments)
        let cursor = try Row.fetchCursor(self)
        let count = CInt(columnCount)
        while try cursor.next() != nil {
            var values: [DatabaseValue] = []
            values.reserveCapacity(Int(count))
            for index in 0..<count {
                values.append(exactValue(at: index))
            }
            try body(values)
        }
    }

    /// The value of column `index` of the current row. Text that is not valid UTF-8 is read as
    /// a blob of its bytes, for the caller to refuse, never repaired.
    private func exactValue(at index: CInt) -> DatabaseValue {
        guard sqlite3_column_type(sqliteStatement, index) == SQLITE_TEXT else {
            return DatabaseValue(sqliteStatement: sqliteStatement, index: index)
        }
        // sqlite3_column_bytes after sqlite3_column_text gives the length of that UTF-8 text.
        guard let text = sqlite3_column_text(sqliteStatement, index) else { return "".databaseValue }
        let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(sqliteStatement, index)))
        guard let string = String(validating: bytes, as: UTF8.self) else { return Data(bytes).databaseValue }
        return string.databaseValue
    }
}

extension Database {
    /// The rows `sql` selects with `arguments` bound exactly, each a list of column values, on
    /// a statement GRDB prepares and caches.
    ///
    /// - Throws: `DatabaseError` when SQLite fails.
    package func exactRows(_ sql: String, _ arguments: [DatabaseValue]) throws -> [[DatabaseValue]] {
        try cachedStatement(sql: sql).fetchExactRows(arguments)
    }

    /// Runs `sql` with `arguments` bound exactly, on a statement GRDB prepares and caches.
    ///
    /// - Throws: `DatabaseError` when SQLite fails.
    package func exactExecute(_ sql: String, _ arguments: [DatabaseValue]) throws {
        try cachedStatement(sql: sql).executeExactly(arguments)
    }
}

/// `SQLITE_TRANSIENT`: SQLite copies the bytes before the bind call returns.
private let transientDestructor = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
