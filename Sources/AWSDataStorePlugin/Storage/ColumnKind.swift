import Amplify

/// How the values of one model field are stored in a column, and how they compare in SQL.
indirect enum ColumnKind: Sendable, Hashable {
    /// `String`, `ID`, the `AWS` string scalars and enums: `TEXT`, compared by UTF-8 bytes.
    case string
    /// `Int` and `AWSTimestamp`: `INTEGER`.
    case integer
    /// `Double`: `REAL`.
    case double
    /// `Bool`: `INTEGER` 0 or 1.
    case boolean
    /// `AWSDate`, `AWSDateTime`, `AWSTime`: the ISO 8601 text, `TEXT`.
    case temporal(TemporalKind)
    /// An embedded non-model value: its JSON text, `TEXT`.
    case object
    /// A list of scalars, enums or embedded values: its JSON text, `TEXT`.
    case list(of: ColumnKind)

    /// The ``Temporal`` type of an ISO 8601 column.
    enum TemporalKind: Sendable, Hashable {
        case date
        case dateTime
        case time
    }

    /// The kind of a stored field type; `nil` for relations, which have no column of their own.
    init?(_ type: ModelFieldType, isArray: Bool) {
        let scalar: ColumnKind
        switch type {
        case .string, .enumeration: scalar = .string
        case .int, .timestamp: scalar = .integer
        case .double: scalar = .double
        case .bool: scalar = .boolean
        case .date: scalar = .temporal(.date)
        case .dateTime: scalar = .temporal(.dateTime)
        case .time: scalar = .temporal(.time)
        case .embedded: scalar = .object
        case .embeddedCollection(let element):
            guard let element = ColumnKind(element, isArray: false) else { return nil }
            self = .list(of: element)
            return
        case .model, .collection: return nil
        }
        self = isArray ? .list(of: scalar) : scalar
    }

    /// The declared type of the column in a `STRICT` table.
    var sqlType: String {
        switch self {
        case .integer, .boolean: return "INTEGER"
        case .double: return "REAL"
        case .string, .temporal, .object, .list: return "TEXT"
        }
    }

    /// `true` when the column holds JSON text.
    var isJSON: Bool {
        switch self {
        case .object, .list: return true
        default: return false
        }
    }
}

/// One column of a model's table.
struct ModelColumn: Sendable, Hashable {
    /// The column's name: the field's name, which is also its key in the model's JSON.
    let name: String
    /// How its values are stored.
    let kind: ColumnKind
    /// The field's Swift type, for messages: `Int`, `PostStatus`, `[String]`.
    let typeName: String
    /// `true` when a save must give it a value (a required field the backend does not set).
    let isRequired: Bool
    /// The belongsTo or hasOne field whose foreign key this column holds, if any.
    let association: String?
}

extension String {
    /// The string as a quoted SQL identifier: `"Post"`, `"a""b"`.
    var quotedIdentifier: String {
        "\"" + replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
