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
    }

    /// What JSON a ``Storage/json(_:)`` column holds.
    enum JSONShape: Sendable, Hashable {
        case list
        case map
        case any
    }

    struct Column: Sendable, Hashable {
        var name: String
        var storage: Storage

        var quotedName: String { name.quotedSQLIdentifier }
    }

    /// The metadata columns, after the field columns.
    static let versionColumn = "_version"
    static let deletedColumn = "_deleted"
    static let lastChangedAtColumn = "_lastChangedAt"
    static let expiryColumn = "_ttl"

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
    }

    func column(named name: String) -> Column? {
        columnsByName[name]
    }

    static func storage(of type: FieldType) -> Storage {
        if type.isList { return .json(.list) }
        switch type.kind {
        case .nonModel, .model: return .json(.map)
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
    var selection: String {
        columns.map(\.quotedName).joined(separator: ", ")
    }

    /// The item of a row selected with ``selection``.
    func item(from row: Row) throws -> StoredItem {
        var values = JSONObject()
        for (index, column) in fieldColumns.enumerated() {
            let value = try Self.json(from: row[index], storage: column.storage)
            if !value.isNull { values[column.name] = value }
        }
        let base = fieldColumns.count
        let version: Int? = row[base]
        let deleted: Bool? = row[base + 1]
        let lastChangedAt: Int? = row[base + 2]
        return StoredItem(values: values, version: version, deleted: deleted, lastChangedAt: lastChangedAt)
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
    static func json(from value: DatabaseValue, storage: Storage) throws -> JSON {
        switch value.storage {
        case .null:
            return .null
        case .int64(let integer):
            switch storage {
            case .boolean: return .bool(integer != 0)
            case .real: return .double(Double(integer))
            default: return .int(Int(integer))
            }
        case .double(let double):
            return storage == .integer ? .int(Int(double)) : .double(double)
        case .string(let text):
            if case .json = storage { return try JSON(parsing: text) }
            return .string(text)
        case .blob(let data):
            return .string(String(decoding: data, as: UTF8.self))
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
        case .string(let value): return "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        }
    }
}

extension String {
    /// The string as an SQL identifier: in double quotes, inner quotes doubled.
    var quotedSQLIdentifier: String {
        "\"" + replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
