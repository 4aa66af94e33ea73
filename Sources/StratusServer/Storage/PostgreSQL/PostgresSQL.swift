import AWSWire
import Foundation
import NIOCore
import PostgresNIO

/// A PostgreSQL statement under construction: its text and its bound values, numbered `$1`,
/// `$2`, … in the order they are bound.
struct PostgresStatement {
    var bindings = PostgresBindings()

    /// Binds `value` as a column of `storage` holds it and returns its placeholder: strings as
    /// their UTF-8 bytes (`bytea`, compared byte by byte as DynamoDB compares strings), numbers
    /// as `bigint` or `double precision`, Booleans as `boolean`, JSON values as their text.
    ///
    /// A value of another type than the column's is bound as SQLite's column affinity converts
    /// it, so that both stores answer the same filters alike: a number compared with a string
    /// column is compared as its text, a numeric string with a number column as its number.
    mutating func bind(_ value: JSON, storage: TableLayout.Storage) -> String {
        switch (value, storage) {
        case (.null, _):
            bindings.appendNull()
        case (.string(let text), .text):
            bindings.append(ByteBuffer(string: text))
        case (.bool(let flag), .text):
            bindings.append(ByteBuffer(string: flag ? "1" : "0"))
        case (_, .text):
            bindings.append(ByteBuffer(string: value.text))
        case (.int(let integer), .integer):
            bindings.append(Int64(integer))
        case (.double(let double), .integer), (.double(let double), .real):
            bindings.append(double)
        case (.int(let integer), .real):
            bindings.append(Double(integer))
        case (.bool(let flag), .integer):
            bindings.append(Int64(flag ? 1 : 0))
        case (.bool(let flag), .real):
            bindings.append(flag ? 1.0 : 0.0)
        case (.string(let text), .integer), (.string(let text), .real):
            if let integer = Int64(text) {
                bindings.append(integer)
            } else if let double = Double(text) {
                bindings.append(double)
            } else {
                bindings.appendNull()
            }
        case (.bool(let flag), .boolean):
            bindings.append(flag)
        case (.int(let integer), .boolean) where integer == 0 || integer == 1:
            bindings.append(integer == 1)
        case (_, .boolean), (_, .integer), (_, .real):
            bindings.appendNull()
        case (_, .json):
            bindings.append(value.text)
        }
        return "$\(bindings.count)"
    }

    /// Binds a text value (`text`).
    mutating func bind(_ text: String) -> String {
        bindings.append(text)
        return "$\(bindings.count)"
    }

    /// Binds an integer (`bigint`).
    mutating func bind(_ integer: Int) -> String {
        bindings.append(Int64(integer))
        return "$\(bindings.count)"
    }

    /// Binds bytes (`bytea`).
    mutating func bind(bytes: [UInt8]) -> String {
        bindings.append(ByteBuffer(bytes: bytes))
        return "$\(bindings.count)"
    }

    /// The statement with `sql` as its text.
    func query(_ sql: String) -> PostgresQuery {
        PostgresQuery(unsafeSQL: sql, binds: bindings)
    }
}

/// How ``TableLayout`` columns are declared, selected and read in PostgreSQL.
extension TableLayout {
    /// The PostgreSQL type of a column of `storage`.
    static func postgresType(_ storage: Storage) -> String {
        switch storage {
        case .text: "bytea"
        case .integer: "bigint"
        case .real: "double precision"
        case .boolean: "boolean"
        case .json: "json"
        }
    }

    /// `CREATE TABLE`, with the primary key.
    var postgresCreateTableSQL: String {
        let definitions = columns.map { column in
            let notNull = model.primaryKey.contains(column.name) ? " NOT NULL" : ""
            return "\(column.quotedName) \(Self.postgresType(column.storage))\(notNull)"
        }
        let key = model.primaryKey.map(\.quotedSQLIdentifier).joined(separator: ", ")
        return "CREATE TABLE \(table) (\(definitions.joined(separator: ", ")), PRIMARY KEY (\(key)))"
    }

    /// The columns as a `SELECT` list for ``item(fromPostgres:)``: JSON columns as their text.
    var postgresSelection: String {
        columns.map { column in
            if case .json = column.storage { return "\(column.quotedName)::text" }
            return column.quotedName
        }.joined(separator: ", ")
    }

    /// A JSON value as an SQL literal for a column of `storage`, for a column's `DEFAULT`.
    static func postgresLiteral(_ value: JSON, storage: Storage) -> String {
        func quoted(_ text: String) -> String { "'" + text.doublingEach("'") + "'" }
        switch (value, storage) {
        case (.null, _): return "NULL"
        case (.string(let text), .text): return "'\\x" + Hex.lowercase(text.utf8) + "'::bytea"
        case (_, .text): return "'\\x" + Hex.lowercase(value.text.utf8) + "'::bytea"
        case (.int(let integer), .integer): return String(integer)
        case (.int(let integer), .real): return String(integer)
        case (.double(let double), .real), (.double(let double), .integer): return String(double)
        case (.bool(let flag), .boolean): return flag ? "TRUE" : "FALSE"
        case (_, .json): return quoted(value.text) + "::json"
        default: return "NULL"
        }
    }

    /// The item of a row selected with ``postgresSelection``.
    ///
    /// - Throws: ``StorageError`` naming the model, the field and the item's key when a stored
    ///   value cannot be read as its field's type.
    func item(fromPostgres row: PostgresRow) throws(StorageError) -> StoredItem {
        let cells = row.makeRandomAccess()
        var values = JSONObject(minimumCapacity: fieldColumns.count)
        func fail(_ column: String, _ error: any Error) -> StorageError {
            let key = model.primaryKey.compactMap { name -> String? in
                guard let index = fieldColumns.firstIndex(where: { $0.name == name }),
                    let bytes = cells[index].bytes
                else { return nil }
                return "\(name): \(String(buffer: bytes))"
            }
            return StorageError.corrupt(
                "the value of '\(model.name).\(column)' in the item {\(key.joined(separator: ", "))} "
                    + "cannot be read: \(error)"
            )
        }
        for (index, column) in fieldColumns.enumerated() {
            do {
                let value = try Self.json(fromPostgres: cells[index], storage: column.storage)
                if !value.isNull { values[column.name] = value }
            } catch {
                throw fail(column.name, error)
            }
        }
        let base = fieldColumns.count
        do {
            return StoredItem(
                values: values,
                version: try cells[base].decode(Int64?.self).map(Int.init),
                deleted: try cells[base + 1].decode(Bool?.self),
                lastChangedAt: try cells[base + 2].decode(Int64?.self).map(Int.init)
            )
        } catch {
            throw fail("_version, _deleted or _lastChangedAt", error)
        }
    }

    /// A cell as JSON.
    static func json(fromPostgres cell: PostgresCell, storage: Storage) throws -> JSON {
        guard cell.bytes != nil else { return .null }
        switch storage {
        case .text:
            let buffer = try cell.decode(ByteBuffer.self)
            guard let text = String(validating: buffer.readableBytesView, as: UTF8.self) else {
                throw StoredValueError(.null)
            }
            return .string(text)
        case .integer: return .int(Int(try cell.decode(Int64.self)))
        case .real: return .double(try cell.decode(Double.self))
        case .boolean: return .bool(try cell.decode(Bool.self))
        case .json: return try JSON(parsing: try cell.decode(String.self))
        }
    }
}

/// Compiles an ``ItemPredicate`` into a PostgreSQL boolean expression over a model's columns,
/// every value a bound argument, with the semantics of ``SQLPredicateCompiler``.
struct PostgresPredicateCompiler {
    let layout: TableLayout

    func compile(_ predicate: ItemPredicate, into statement: inout PostgresStatement) throws(StorageError) -> String {
        switch predicate {
        case .all(let predicates):
            return try join(predicates, with: "AND", empty: "TRUE", into: &statement)
        case .any(let predicates):
            return try join(predicates, with: "OR", empty: "FALSE", into: &statement)
        case .not(let predicate):
            return "NOT COALESCE(\(try compile(predicate, into: &statement)), FALSE)"
        case .field(let name, let condition):
            guard let column = layout.column(named: name) else {
                throw StorageError.unknownField(name, model: layout.model.name)
            }
            return compile(condition, on: column, into: &statement)
        }
    }

    private func join(
        _ predicates: [ItemPredicate],
        with keyword: String,
        empty: String,
        into statement: inout PostgresStatement
    ) throws(StorageError) -> String {
        guard !predicates.isEmpty else { return empty }
        var parts: [String] = []
        for predicate in predicates {
            parts.append("(\(try compile(predicate, into: &statement)))")
        }
        return parts.joined(separator: " \(keyword) ")
    }

    /// The expression a comparison reads: JSON columns as their text, byte-ordered.
    private func value(_ column: TableLayout.Column) -> String {
        if case .json = column.storage { return "(\(column.quotedName)::text COLLATE \"C\")" }
        return column.quotedName
    }

    /// The value as UTF-8 bytes, as SQLite's `CAST(… AS BLOB)` reads it.
    private func bytes(_ column: TableLayout.Column) -> String {
        if case .text = column.storage { return column.quotedName }
        return "convert_to(\(column.quotedName)::text, 'UTF8')"
    }

    private func compile(
        _ condition: FieldCondition,
        on column: TableLayout.Column,
        into statement: inout PostgresStatement
    ) -> String {
        let expression = value(column)
        let name = column.quotedName
        func bind(_ value: JSON) -> String {
            if case .json = column.storage { return statement.bind(value.text) }
            return statement.bind(value, storage: column.storage)
        }
        func textBytes(_ value: JSON) -> String { statement.bind(value, storage: .text) }
        switch condition {
        case .compare(.eq, .null), .exists(false):
            return "\(name) IS NULL"
        case .compare(.ne, .null), .exists(true):
            return "\(name) IS NOT NULL"
        case .compare(.eq, let value):
            return "\(expression) = \(bind(value))"
        case .compare(.ne, let value):
            return "\(expression) IS DISTINCT FROM \(bind(value))"
        case .compare(let comparison, let value):
            return "\(expression) \(comparison.sqlOperator) \(bind(value))"
        case .between(let low, let high):
            return "\(expression) BETWEEN \(bind(low)) AND \(bind(high))"
        case .beginsWith(let prefix):
            let mark = statement.bind(.string(prefix), storage: .text)
            return "substring(\(bytes(column)) FROM 1 FOR octet_length(\(mark))) = \(mark)"
        case .contains(let value):
            return "COALESCE(\(containment(value, column, &statement)), FALSE)"
        case .notContains(let value):
            return "NOT COALESCE(\(containment(value, column, &statement)), FALSE)"
        case .attributeType(let type):
            return attributeType(type, column)
        case .size(let comparison, let size):
            return "\(sizeExpression(column)) \(comparison.sqlOperator) \(statement.bind(size))"
        case .sizeBetween(let low, let high):
            return "\(sizeExpression(column)) BETWEEN \(statement.bind(low)) AND \(statement.bind(high))"
        case .isIn(let values):
            guard !values.isEmpty else { return "FALSE" }
            return "\(expression) IN (\(values.map(bind).joined(separator: ", ")))"
        case .notIn(let values):
            guard !values.isEmpty else { return "TRUE" }
            return "COALESCE(\(expression) NOT IN (\(values.map(bind).joined(separator: ", "))), TRUE)"
        }
        func containment(_ value: JSON, _ column: TableLayout.Column, _ statement: inout PostgresStatement) -> String {
            let name = column.quotedName
            switch column.storage {
            case .json(.list):
                return
                    "EXISTS (SELECT 1 FROM json_array_elements(\(name)) AS e WHERE e::text = \(statement.bind(value.text)))"
            case .json(.map):
                return "FALSE"
            case .json(.any):
                let element = statement.bind(value.text)
                let part = statement.bind(value, storage: .text)
                return "CASE json_typeof(\(name)) WHEN 'array' THEN EXISTS (SELECT 1 FROM json_array_elements(\(name)) "
                    + "AS e WHERE e::text = \(element)) WHEN 'string' THEN "
                    + "position(\(part) IN convert_to(\(name) #>> '{}', 'UTF8')) > 0 END"
            default:
                return "position(\(statement.bind(value, storage: .text)) IN \(bytes(column))) > 0"
            }
        }
    }

    /// The size DynamoDB gives an attribute: bytes of a string, elements of a list.
    private func sizeExpression(_ column: TableLayout.Column) -> String {
        let name = column.quotedName
        switch column.storage {
        case .json(.list):
            return "json_array_length(\(name))"
        case .json(.map):
            return "(SELECT count(*) FROM json_object_keys(\(name)))"
        case .json(.any):
            return "CASE json_typeof(\(name)) WHEN 'array' THEN json_array_length(\(name)) "
                + "WHEN 'string' THEN octet_length(\(name) #>> '{}') END"
        case .boolean:
            return "CASE WHEN \(name) IS NULL THEN NULL ELSE 1 END"
        case .text:
            return "octet_length(\(name))"
        case .integer, .real:
            return "octet_length(\(name)::text)"
        }
    }

    /// `attributeType`: the DynamoDB type of the stored value, known from the column's type.
    private func attributeType(_ type: String, _ column: TableLayout.Column) -> String {
        let name = column.quotedName
        if type == "_null" { return "\(name) IS NULL" }
        if let fixed = column.storage.attributeType {
            return fixed == type ? "\(name) IS NOT NULL" : "FALSE"
        }
        let jsonType: String? =
            switch type {
            case "string": "string"
            case "number": "number"
            case "bool": "boolean"
            case "list": "array"
            case "map": "object"
            default: nil
            }
        guard let jsonType else { return "FALSE" }
        return "json_typeof(\(name)) = '\(jsonType)'"
    }
}

extension StorageError {
    /// A failure of PostgreSQL, with the server's message when it sent one.
    static func postgres(_ error: any Error) -> StorageError {
        if let error = error as? StorageError { return error }
        if let error = error as? PostgresTransactionFailure { return postgres(error.error) }
        if let error = error as? PostgresTransactionError {
            return postgres(error.closureError ?? error.beginError ?? error.commitError ?? error.rollbackError ?? error)
        }
        if let error = error as? PSQLError {
            if let reason = error.serverReason {
                return .database(PostgresFailure("PostgreSQL refused a statement: \(reason)"))
            }
            return .database(PostgresFailure("PostgreSQL failed: \(String(reflecting: error))"))
        }
        return .database(error)
    }
}

extension PSQLError {
    /// The server's reason, `message (SQLSTATE state)` and `: detail` when it gave one; `nil`
    /// when the server sent none (the error describes itself only generically).
    package var serverReason: String? {
        guard let message = serverInfo?[.message] else { return nil }
        var reason = "\(message) (SQLSTATE \(serverInfo?[.sqlState] ?? "unknown"))"
        if let detail = serverInfo?[.detail] { reason += ": \(detail)" }
        return reason
    }
}

/// A PostgreSQL failure, described.
struct PostgresFailure: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
