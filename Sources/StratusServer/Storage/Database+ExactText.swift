import Foundation
import GRDB
import GRDBSQLite

/// Statements that store and read text exactly, NUL characters included.
///
/// GRDB binds a `String` as a C string and reads a text column up to its first NUL, so
/// `"a\u{0}one"` would be stored and read back as `"a"`, and the keys `"a\u{0}one"` and
/// `"a\u{0}two"` would be one key. The store's item statements go through these instead: they
/// bind text with its length in bytes and read it back with its length, through SQLite's C API,
/// on a statement that GRDB prepares and caches.
extension Database {
    /// The rows `sql` selects with `arguments` bound, each a list of column values. Text that is
    /// not valid UTF-8 is read as a blob of its bytes, for the caller to refuse.
    ///
    /// - Throws: `DatabaseError` when SQLite fails.
    func exactRows(_ sql: String, _ arguments: [DatabaseValue]) throws -> [[DatabaseValue]] {
        var rows: [[DatabaseValue]] = []
        try step(sql, arguments) { statement in
            rows.append((0..<sqlite3_column_count(statement)).map { Self.exactValue(statement, column: $0) })
        }
        return rows
    }

    /// Runs `sql` with `arguments` bound.
    ///
    /// - Throws: `DatabaseError` when SQLite fails.
    func exactExecute(_ sql: String, _ arguments: [DatabaseValue]) throws {
        try step(sql, arguments) { _ in }
    }

    private func step(_ sql: String, _ arguments: [DatabaseValue], row: (SQLiteStatement) -> Void) throws {
        let statement = try cachedStatement(sql: sql).sqliteStatement
        sqlite3_reset(statement)
        // The cached statement is left as GRDB expects to find it: reset, without bindings.
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        guard Int(sqlite3_bind_parameter_count(statement)) == arguments.count else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "\(arguments.count) arguments for \(sqlite3_bind_parameter_count(statement)) parameters",
                sql: sql
            )
        }
        for (offset, value) in arguments.enumerated() {
            let code = Self.bind(value, to: statement, at: Int32(offset + 1))
            guard code == SQLITE_OK else { throw failure(code, sql: sql) }
        }
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW: row(statement)
            case SQLITE_DONE: return
            case let code: throw failure(code, sql: sql)
            }
        }
    }

    private func failure(_ code: Int32, sql: String) -> DatabaseError {
        DatabaseError(
            resultCode: ResultCode(rawValue: code),
            message: sqliteConnection.map { String(cString: sqlite3_errmsg($0)) },
            sql: sql
        )
    }

    /// SQLite copies the bytes it is given.
    private static var transient: sqlite3_destructor_type {
        unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
    }

    private static func bind(_ value: DatabaseValue, to statement: SQLiteStatement, at index: Int32) -> Int32 {
        switch value.storage {
        case .null:
            return sqlite3_bind_null(statement, index)
        case .int64(let integer):
            return sqlite3_bind_int64(statement, index, integer)
        case .double(let double):
            return sqlite3_bind_double(statement, index, double)
        case .string(let text):
            var text = text
            return text.withUTF8 { bytes in
                guard let base = bytes.baseAddress, !bytes.isEmpty else {
                    return sqlite3_bind_text(statement, index, "", 0, transient)
                }
                return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    sqlite3_bind_text(statement, index, $0, Int32(bytes.count), transient)
                }
            }
        case .blob(let data):
            return data.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress, !bytes.isEmpty else {
                    return sqlite3_bind_zeroblob(statement, index, 0)
                }
                return sqlite3_bind_blob(statement, index, base, Int32(bytes.count), transient)
            }
        }
    }

    private static func exactValue(_ statement: SQLiteStatement, column: Int32) -> DatabaseValue {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER:
            return sqlite3_column_int64(statement, column).databaseValue
        case SQLITE_FLOAT:
            return sqlite3_column_double(statement, column).databaseValue
        case SQLITE_TEXT:
            // The pointer first, then the length in bytes, as SQLite asks.
            guard let pointer = sqlite3_column_text(statement, column) else { return "".databaseValue }
            let bytes = UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(statement, column)))
            guard let text = String(validating: bytes, as: UTF8.self) else { return Data(bytes).databaseValue }
            return text.databaseValue
        case SQLITE_BLOB:
            guard let pointer = sqlite3_column_blob(statement, column) else { return Data().databaseValue }
            return Data(bytes: pointer, count: Int(sqlite3_column_bytes(statement, column))).databaseValue
        default:
            return .null
        }
    }
}
