import GRDB

/// An SQL boolean expression with its bound arguments.
struct SQLFragment: Sendable {
    var sql: String
    var arguments: [DatabaseValue]

    init(_ sql: String, _ arguments: [DatabaseValue] = []) {
        self.sql = sql
        self.arguments = arguments
    }
}

/// Compiles an ``ItemPredicate`` into SQL over a model's columns, every value a bound argument.
///
/// Columns hold booleans as 0 or 1, lists and embedded values as JSON text. The delta journal is
/// filtered in memory instead (``ItemPredicate/evaluate(_:)``), with the same semantics.
struct SQLPredicateCompiler {
    let layout: TableLayout
    /// The SQL expression of a column's value.
    let columnExpression: @Sendable (TableLayout.Column) -> String
    /// The SQL expression of a JSON column's value as JSON text, for the JSON functions.
    let jsonExpression: @Sendable (TableLayout.Column) -> String

    /// A compiler over the layout's own table.
    static func table(_ layout: TableLayout) -> SQLPredicateCompiler {
        SQLPredicateCompiler(layout: layout, columnExpression: { $0.quotedName }, jsonExpression: { $0.quotedName })
    }

    func compile(_ predicate: ItemPredicate) throws(StorageError) -> SQLFragment {
        switch predicate {
        case .all(let predicates):
            return try join(predicates, with: "AND", empty: "1")
        case .any(let predicates):
            return try join(predicates, with: "OR", empty: "0")
        case .not(let predicate):
            let inner = try compile(predicate)
            return SQLFragment("NOT COALESCE(\(inner.sql), 0)", inner.arguments)
        case .field(let name, let condition):
            guard let column = layout.column(named: name) else {
                throw StorageError.unknownField(name, model: layout.model.name)
            }
            return compile(condition, on: column)
        }
    }

    private func join(
        _ predicates: [ItemPredicate],
        with keyword: String,
        empty: String
    ) throws(StorageError)
        -> SQLFragment
    {
        guard !predicates.isEmpty else { return SQLFragment(empty) }
        var parts: [String] = []
        var arguments: [DatabaseValue] = []
        for predicate in predicates {
            let fragment = try compile(predicate)
            parts.append("(\(fragment.sql))")
            arguments += fragment.arguments
        }
        return SQLFragment(parts.joined(separator: " \(keyword) "), arguments)
    }

    private func compile(_ condition: FieldCondition, on column: TableLayout.Column) -> SQLFragment {
        let expression = columnExpression(column)
        func bind(_ value: JSON) -> DatabaseValue { TableLayout.databaseValue(value, storage: column.storage) }
        switch condition {
        case .compare(.eq, .null):
            return SQLFragment("\(expression) IS NULL")
        case .compare(.ne, .null):
            return SQLFragment("\(expression) IS NOT NULL")
        case .compare(.eq, let value):
            return SQLFragment("\(expression) = ?", [bind(value)])
        case .compare(.ne, let value):
            return SQLFragment("\(expression) IS NOT ?", [bind(value)])
        case .compare(let comparison, let value):
            return SQLFragment("\(expression) \(comparison.sqlOperator) ?", [bind(value)])
        case .between(let low, let high):
            return SQLFragment("\(expression) BETWEEN ? AND ?", [bind(low), bind(high)])
        case .beginsWith(let prefix):
            // Compared as bytes: SQLite's `length` of text stops at a NUL character.
            return SQLFragment(
                "substr(CAST(\(expression) AS BLOB), 1, length(CAST(? AS BLOB))) = CAST(? AS BLOB)",
                [prefix.databaseValue, prefix.databaseValue]
            )
        case .contains(let value):
            let (sql, placeholders) = containment(column)
            return SQLFragment("COALESCE(\(sql), 0)", Array(repeating: value.databaseValue, count: placeholders))
        case .notContains(let value):
            let (sql, placeholders) = containment(column)
            return SQLFragment("NOT COALESCE(\(sql), 0)", Array(repeating: value.databaseValue, count: placeholders))
        case .exists(let exists):
            return SQLFragment("\(expression) IS \(exists ? "NOT " : "")NULL")
        case .attributeType(let type):
            return attributeType(type, expression, column)
        case .size(let comparison, let size):
            return SQLFragment(
                "\(sizeExpression(column)) \(comparison.sqlOperator) ?",
                [size.databaseValue]
            )
        case .sizeBetween(let low, let high):
            return SQLFragment(
                "\(sizeExpression(column)) BETWEEN ? AND ?",
                [low.databaseValue, high.databaseValue]
            )
        case .isIn(let values):
            guard !values.isEmpty else { return SQLFragment("0") }
            let marks = Array(repeating: "?", count: values.count).joined(separator: ", ")
            return SQLFragment("\(expression) IN (\(marks))", values.map(bind))
        case .notIn(let values):
            guard !values.isEmpty else { return SQLFragment("1") }
            let marks = Array(repeating: "?", count: values.count).joined(separator: ", ")
            return SQLFragment("COALESCE(\(expression) NOT IN (\(marks)), 1)", values.map(bind))
        }
    }

    /// Whether a list holds an element, or a string a substring (1, 0 or NULL), and how many
    /// times the element is bound.
    private func containment(_ column: TableLayout.Column) -> (String, Int) {
        let expression = isJSON(column) ? jsonExpression(column) : columnExpression(column)
        switch column.storage {
        case .json(.list):
            return ("EXISTS (SELECT 1 FROM json_each(\(expression)) WHERE json_each.value = ?)", 1)
        case .json:
            return (
                "CASE json_type(\(expression)) WHEN 'array' THEN EXISTS (SELECT 1 FROM json_each(\(expression)) "
                    + "WHERE json_each.value = ?) WHEN 'text' THEN instr(json_extract(\(expression), '$'), ?) > 0 END",
                2
            )
        default:
            return ("instr(\(expression), ?) > 0", 1)
        }
    }

    /// The size DynamoDB gives an attribute: bytes of a string, elements of a list.
    private func sizeExpression(_ column: TableLayout.Column) -> String {
        let expression = isJSON(column) ? jsonExpression(column) : columnExpression(column)
        switch column.storage {
        case .json(.list):
            return "json_array_length(\(expression))"
        case .json(.map):
            return "(SELECT count(*) FROM json_each(\(expression)))"
        case .json(.any):
            return "CASE json_type(\(expression)) WHEN 'array' THEN json_array_length(\(expression)) "
                + "WHEN 'text' THEN length(CAST(json_extract(\(expression), '$') AS BLOB)) END"
        default:
            return "length(CAST(\(expression) AS BLOB))"
        }
    }

    /// `attributeType`: the DynamoDB type of the stored value, known from the column's type.
    private func attributeType(_ type: String, _ expression: String, _ column: TableLayout.Column) -> SQLFragment {
        if type == "_null" { return SQLFragment("\(expression) IS NULL") }
        if let fixed = column.storage.attributeType {
            return SQLFragment(fixed == type ? "\(expression) IS NOT NULL" : "0")
        }
        let jsonTypes: [String] =
            switch type {
            case "string": ["text"]
            case "number": ["integer", "real"]
            case "bool": ["true", "false"]
            case "list": ["array"]
            case "map": ["object"]
            default: []
            }
        guard !jsonTypes.isEmpty else { return SQLFragment("0") }
        let marks = jsonTypes.map { "'\($0)'" }.joined(separator: ", ")
        return SQLFragment("json_type(\(jsonExpression(column))) IN (\(marks))")
    }

    private func isJSON(_ column: TableLayout.Column) -> Bool {
        if case .json = column.storage { return true }
        return false
    }
}

extension FieldCondition.Comparison {
    var sqlOperator: String {
        switch self {
        case .eq: "="
        case .ne: "<>"
        case .le: "<="
        case .lt: "<"
        case .ge: ">="
        case .gt: ">"
        }
    }
}
