import Amplify
import GRDB

/// A `SELECT` of the records of one table: condition, order and page.
///
/// Records come in the order of the sort fields, then in the order they were first saved, so
/// that pages never overlap or skip a record.
struct SQLQuery: Sendable {
    /// The statement.
    let sql: String
    /// Its arguments.
    let arguments: [DatabaseValue]
    /// Tokens to release once the statement has run (see ``SQLCondition``).
    let tokens: [Int64]

    /// The query for `table`; `selection` is the column list, after `SELECT`.
    ///
    /// - Throws: ``DataStoreError`` with ``DataStoreError/Code/invalidCondition`` when the
    ///   predicate or a sort field does not fit the model.
    init(
        table: ModelTable,
        selection: String? = nil,
        predicate: (any QueryPredicate)?,
        sort: QuerySortInput?,
        pagination: QueryPaginationInput?,
        conditions: InMemoryConditions
    ) throws(DataStoreError) {
        let order = try Self.orderingTerms(sort, table: table)
        var sql = "SELECT \(selection ?? table.statements.columnList) FROM \(table.name.quotedIdentifier)"
        var arguments: [DatabaseValue] = []
        var tokens: [Int64] = []
        if let predicate {
            let condition = try SQLCondition(predicate, table: table, conditions: conditions)
            sql += " WHERE \(condition.sql)"
            arguments = condition.arguments
            tokens = condition.tokens
        }
        sql += " ORDER BY " + (order + ["rowid"]).joined(separator: ", ")
        if let pagination {
            sql += " LIMIT ? OFFSET ?"
            arguments.append(Int64(clamping: pagination.limit).databaseValue)
            arguments.append(Int64(clamping: pagination.offset).databaseValue)
        }
        self.sql = sql
        self.arguments = arguments
        self.tokens = tokens
    }

    /// The `ORDER BY` terms of `sort`.
    static func orderingTerms(_ sort: QuerySortInput?, table: ModelTable) throws(DataStoreError) -> [String] {
        var terms: [String] = []
        for descriptor in sort?.inputs ?? [] {
            let direction = descriptor.order == .ascending ? "ASC" : "DESC"
            let columns: [String]
            if table.column(named: descriptor.fieldName) != nil {
                columns = [descriptor.fieldName]
            } else if let foreignKey = table.associations[descriptor.fieldName] {
                columns = foreignKey
            } else if let field = table.schema.field(named: descriptor.fieldName), case .collection = field.type {
                throw DataStoreError(
                    .invalidCondition,
                    "\(table.name).\(field.name) is a hasMany relation and cannot be sorted by. "
                        + "Sort by a field of \(table.name)."
                )
            } else {
                let fields = table.schema.sortedFields.map(\.name).joined(separator: ", ")
                throw DataStoreError(
                    .invalidCondition,
                    "\(table.name) has no field '\(descriptor.fieldName)' to sort by (fields: \(fields)). "
                        + "Use a field from \(table.name).keys."
                )
            }
            terms += columns.map { "\($0.quotedIdentifier) \(direction)" }
        }
        return terms
    }
}
