import GRDB
import StratusCodegen

/// How a model's items map to the columns of its SQLite table.
///
/// One column per stored field, typed after the field: text for strings, IDs, enums and the AWS
/// string scalars, integers for `Int`, `AWSTimestamp` and `Boolean` (0 or 1), reals for `Float`,
/// and JSON text for lists, embedded non-model values and `AWSJSON`. Then the sync metadata
/// `_version`, `_deleted`, `_lastChangedAt`, and `_ttl`, when a tombstone expires.
struct TableLayout: Sendable {
    /// How a column stores its values.
    enum Storage: Sendable, Hashable {
        case text
        case integer
        case real
        case boolean
        /// JSON text: a list, an embedded value, or any JSON for `AWSJSON`.
        case json(JSONShape)

        /// The DynamoDB type (`attributeType`) of every value the column holds, known from the
        /// column's type; `nil` for `AWSJSON`, whose values may be of any type.
        var attributeType: String? {
            switch self {
            case .text: "string"
            case .integer, .real: "number"
            case .boolean: "bool"
            case .json(.list): "list"
            case .json(.map): "map"
            case .json(.any): nil
            }
        }
    }

    /// What JSON a ``Storage/json(_:)`` column holds.
    enum JSONShape: Sendable, Hashable {
        case list
        case map
        case any
    }

    struct Column: Sendable, Hashable {
        let name: String
        let storage: Storage
        /// The name as an SQL identifier, quoted once: statements are built with it on every
        /// write.
        let quotedName: String

        init(name: String, storage: Storage) {
            self.name = name
            self.storage = storage
            quotedName = name.quotedSQLIdentifier
        }
    }

    /// The metadata columns, after the field columns.
    static let versionColumn = "_version"
    static let deletedColumn = "_deleted"
    static let lastChangedAtColumn = "_lastChangedAt"
    static let expiryColumn = "_ttl"
    static let quotedExpiryColumn = expiryColumn.quotedSQLIdentifier

    let model: ModelType
    let table: String
    let columns: [Column]
    /// Field columns, in field order.
    let fieldColumns: [Column]
    private let columnsByName: [String: Column]

    init(model: ModelType) {
        self.model = model
        table = model.name.quotedSQLIdentifier
        fieldColumns = model.storedFields.map { Column(name: $0.name, storage: Self.storage(of: $0.type)) }
        columns =
            fieldColumns + [
                Column(name: Self.versionColumn, storage: .integer),
                Column(name: Self.deletedColumn, storage: .boolean),
                Column(name: Self.lastChangedAtColumn, storage: .integer),
                Column(name: Self.expiryColumn, storage: .integer),
            ]
        columnsByName = Dictionary(uniqueKeysWithValues: columns.map { ($0.name, $0) })
        selection = columns.map(\.quotedName).joined(separator: ", ")
        keyCondition = model.primaryKey.map { "\($0.quotedSQLIdentifier) = ?" }.joined(separator: " AND ")
    }

    /// `"id" = ?`, one per key field joined with `AND`: the key's arguments bind in key order.
    let keyCondition: String

    func column(named name: String) -> Column? {
        columnsByName[name]
    }

    static func storage(of type: FieldType) -> Storage {
        if type.isList { return .json(.list) }
        switch type.kind {
        case .nonModel, .model, .interface, .union, .input, .connection: return .json(.map)
        case .customScalar: return .json(.any)
        case .enumeration: return .text
        case .scalar(let scalar):
            switch scalar {
            case .int, .awsTimestamp: return .integer
            case .float: return .real
            case .boolean: return .boolean
            case .awsJSON: return .json(.any)
            case .id, .string, .awsDate, .awsTime, .awsDateTime, .awsEmail, .awsPhone, .awsURL, .awsIPAddress:
                return .text
            }
        }
    }

    // MARK: - Definition

    /// `CREATE TABLE`, with the primary key.
    var createTableSQL: String {
        let definitions = columns.map { column in
            let type =
                switch column.storage {
                case .text, .json: "TEXT"
                case .integer, .boolean: "INTEGER"
                case .real: "REAL"
                }
            let notNull = model.primaryKey.contains(column.name) ? " NOT NULL" : ""
            return "\(column.quotedName) \(type)\(notNull)"
        }
        let key = model.primaryKey.map(\.quotedSQLIdentifier).joined(separator: ", ")
        return "CREATE TABLE \(table) (\(definitions.joined(separator: ", ")), PRIMARY KEY (\(key)))"
    }

    /// The indexes: one per `@index`, one per foreign key that a `@hasMany` reads without an
    /// index, and one on the tombstone expiry.
    func indexes(in schema: AnnotatedSchema) -> [(name: String, sql: String)] {
        var result: [(String, [String], String)] = model.indexes.map { ("\(model.name)_\($0.name)", $0.fields, "") }
        for parent in schema.models {
            for field in parent.fields {
                guard let relation = field.relation, relation.kind == .hasMany, relation.relatedModel == model.name,
                    relation.indexName == nil
                else { continue }
                let fields = relation.childKeyFields
                if !result.contains(where: { $0.1.starts(with: fields) }) {
                    result.append(("\(model.name)_\(fields.joined(separator: "_"))", fields, ""))
                }
            }
        }
        result.append(
            ("\(model.name)_expiry", [Self.expiryColumn], " WHERE \(Self.expiryColumn.quotedSQLIdentifier) IS NOT NULL")
        )
        return result.map { name, fields, clause in
            let columns = fields.map(\.quotedSQLIdentifier).joined(separator: ", ")
            return (name, "CREATE INDEX IF NOT EXISTS \(name.quotedSQLIdentifier) ON \(table) (\(columns))\(clause)")
        }
    }

    // MARK: - Rows

    /// The columns as a `SELECT` list.
    let selection: String

    /// The item of a row selected with ``selection``.
    ///
    /// - Throws: ``StorageError`` naming the model, the field and the item's key when a stored
    ///   value cannot be read as its field's type.
    func item(from row: [DatabaseValue]) throws(StorageError) -> StoredItem {
        var values = JSONObject(minimumCapacity: fieldColumns.count)
        for (index, column) in fieldColumns.enumerated() {
            let value: JSON
            do {
                value = try Self.json(from: row[index], storage: column.storage)
            } catch {
                throw unreadable(column.name, in: row, error)
            }
            if !value.isNull { values[column.name] = value }
        }
        let base = fieldColumns.count
        func integer(_ offset: Int) throws(StorageError) -> Int? {
            switch row[base + offset].storage {
            case .null: return nil
            case .int64(let value): return Int(value)
            default: throw unreadable(columns[base + offset].name, in: row, StoredValueError(row[base + offset]))
            }
        }
        let deleted = try integer(1)
        guard deleted == nil || deleted == 0 || deleted == 1 else {
            throw unreadable(Self.deletedColumn, in: row, StoredValueError(row[base + 1]))
        }
        return StoredItem(
            values: values,
            version: try integer(0),
            deleted: deleted.map { $0 == 1 },
            lastChangedAt: try integer(2)
        )
    }

    /// A stored value that its column's type cannot hold.
    struct StoredValueError: Error, CustomStringConvertible {
        var value: DatabaseValue

        init(_ value: DatabaseValue) {
            self.value = value
        }

        var description: String { "the stored value \(value) does not fit the column's type" }
    }

    /// The error of a row whose `column` cannot be read, naming the model and the item's key.
    private func unreadable(_ column: String, in row: [DatabaseValue], _ error: any Error) -> StorageError {
        let key = model.primaryKey.compactMap { name in
            fieldColumns.firstIndex { $0.name == name }.map { "\(name): \(row[$0])" }
        }
        return StorageError.corrupt(
            "the value of '\(model.name).\(column)' in the item {\(key.joined(separator: ", "))} cannot be read: \(error)"
        )
    }

    /// The column values of an item, in ``columns`` order.
    func databaseValues(of item: StoredItem, expiresAt: Int?) -> [DatabaseValue] {
        fieldColumns.map { Self.databaseValue(item.values[$0.name] ?? .null, storage: $0.storage) } + [
            item.version.databaseValue,
            item.deleted.databaseValue,
            item.lastChangedAt.databaseValue,
            expiresAt.databaseValue,
        ]
    }

    /// A JSON value as a column of `storage` holds it.
    static func databaseValue(_ value: JSON, storage: Storage) -> DatabaseValue {
        switch (value, storage) {
        case (.null, _): return .null
        case (_, .json): return value.text.databaseValue
        default: return value.databaseValue
        }
    }

    /// A column value as JSON.
    ///
    /// - Throws: when the value does not fit `storage`: text in a numeric or Boolean column, a
    ///   fraction in an integer column, a Boolean other than 0 or 1, JSON text that does not
    ///   parse, bytes that are not UTF-8.
    static func json(from value: DatabaseValue, storage: Storage) throws -> JSON {
        switch value.storage {
        case .null:
            return .null
        case .int64(let integer):
            switch storage {
            case .boolean:
                guard integer == 0 || integer == 1 else { throw StoredValueError(value) }
                return .bool(integer == 1)
            case .real: return .double(Double(integer))
            default: return .int(Int(integer))
            }
        case .double(let double):
            switch storage {
            case .integer:
                guard let integer = Int(exactly: double) else { throw StoredValueError(value) }
                return .int(integer)
            case .boolean:
                guard double == 0 || double == 1 else { throw StoredValueError(value) }
                return .bool(double == 1)
            default:
                return .double(double)
            }
        case .string(let text):
            return try json(fromText: text, value, storage: storage)
        case .blob(let data):
            guard let text = String(validating: data, as: UTF8.self) else { throw StoredValueError(value) }
            return try json(fromText: text, value, storage: storage)
        }
    }

    private static func json(fromText text: String, _ value: DatabaseValue, storage: Storage) throws -> JSON {
        switch storage {
        case .json: return try JSON(parsing: text)
        case .text: return .string(text)
        case .integer, .real, .boolean: throw StoredValueError(value)
        }
    }
}

extension JSON {
    /// The value bound as an SQL argument: booleans as 0 or 1, lists and objects as JSON text.
    var databaseValue: DatabaseValue {
        switch self {
        case .null: return .null
        case .bool(let value): return (value ? 1 : 0).databaseValue
        case .int(let value): return value.databaseValue
        case .double(let value): return value.databaseValue
        case .string(let value): return value.databaseValue
        case .array, .object: return text.databaseValue
        }
    }
}

extension DatabaseValue {
    /// The value as an SQL literal, for a column's `DEFAULT`.
    var sqlLiteral: String {
        switch storage {
        case .null, .blob: return "NULL"
        case .int64(let value): return String(value)
        case .double(let value): return String(value)
        case .string(let value): return "'" + value.doublingEach("'") + "'"
        }
    }
}

extension String {
    /// The string as an SQL identifier: in double quotes, inner quotes doubled.
    var quotedSQLIdentifier: String {
        "\"" + doublingEach("\"") + "\""
    }

    /// The string with each `quote` doubled. Statements are built with it on every write: it
    /// leaves Foundation's search, a twentieth of a create's time, out.
    /// Scalars, not characters: a quote followed by a combining mark is one character.
    func doublingEach(_ quote: Unicode.Scalar) -> String {
        guard utf8.contains(UInt8(ascii: quote)) else { return self }
        return unicodeScalars.split(separator: quote, omittingEmptySubsequences: false).map(String.init)
            .joined(separator: "\(quote)\(quote)")
    }
}
