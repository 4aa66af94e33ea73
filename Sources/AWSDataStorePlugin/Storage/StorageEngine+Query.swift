import Amplify
import Foundation
import GRDB
import SQLiteExactText

extension StorageEngine {
    /// The models of type `type` matching `predicate`, sorted and paginated.
    ///
    /// - Throws: ``DataStoreError`` with ``DataStoreError/Code/invalidCondition`` when the
    ///   predicate or sort does not fit the model, or ``DataStoreError/Code/storage``.
    func query<M: Model>(
        _ type: M.Type,
        where predicate: (any QueryPredicate)?,
        sort: QuerySortInput?,
        paginate pagination: QueryPaginationInput?
    ) async throws(DataStoreError) -> [M] {
        let table = try catalog.table(for: M.self)
        let query = try SQLQuery(
            table: table,
            predicate: predicate,
            sort: sort,
            pagination: pagination,
            conditions: conditions
        )
        defer { conditions.release(query.tokens) }
        return try await read { db in try self.fetch(M.self, table: table, query.sql, query.arguments, db) }
    }

    /// The model of type `type` whose identifier is `id`.
    ///
    /// - Throws: ``DataStoreError`` when the model is not registered or storage fails.
    func query<M: Model>(_ type: M.Type, byId id: String) async throws(DataStoreError) -> M? {
        let table = try catalog.table(for: M.self)
        let condition = table.identifierCondition(id)
        let sql = "SELECT \(table.statements.columnList) FROM \(table.name.quotedIdentifier) WHERE \(condition.sql)"
        return try await read { db in try self.fetch(M.self, table: table, sql, condition.arguments, db).first }
    }

    /// Decodes the models that `sql` selects (the table's columns, in order).
    func fetch<M: Model>(
        _ type: M.Type,
        table: ModelTable,
        _ sql: String,
        _ arguments: [DatabaseValue],
        _ db: Database
    ) throws -> [M] {
        let decoder = makeDecoder()
        var models: [M] = []
        try db.cachedStatement(sql: sql).forEachExactRow(arguments) { row in
            models.append(try table.decode(M.self, from: row, decoder: decoder))
        }
        return models
    }

    /// The models of type `type` whose fields equal `values`, for a relation loading lazily;
    /// blocks the caller.
    ///
    /// - Throws: ``DataStoreError`` when the model is not registered or storage fails.
    func load<M: Model>(_ type: M.Type, matching values: [String: JSONValue]) throws(DataStoreError) -> [M] {
        guard let query = try relationQuery(M.self, matching: values) else { return [] }
        let (table, sql, arguments) = query
        do {
            return try pool.read { db in try self.fetch(M.self, table: table, sql, arguments, db) }
        } catch {
            throw Self.translate(error, url: url)
        }
    }

    /// The models of type `type` whose fields equal `values`, for a relation loading lazily.
    ///
    /// - Throws: ``DataStoreError`` when the model is not registered or storage fails.
    func fetch<M: Model>(_ type: M.Type, matching values: [String: JSONValue]) async throws(DataStoreError) -> [M] {
        guard let query = try relationQuery(M.self, matching: values) else { return [] }
        let (table, sql, arguments) = query
        return try await read { db in try self.fetch(M.self, table: table, sql, arguments, db) }
    }

    /// The query of the models of type `type` whose fields equal `values`, or `nil` when no
    /// record can match.
    private func relationQuery<M: Model>(
        _ type: M.Type,
        matching values: [String: JSONValue]
    ) throws(DataStoreError) -> (ModelTable, String, [DatabaseValue])? {
        let table = try catalog.table(for: M.self)
        var terms: [String] = []
        var arguments: [DatabaseValue] = []
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            let columns =
                table.column(named: name).map { [$0] } ?? table.associations[name]?.compactMap(table.column(named:))
            guard let columns, columns.count == 1, !value.isNull,
                let stored = try ModelTable.databaseValue(value, kind: columns[0].kind)
            else { return nil }
            terms.append("\(columns[0].name.quotedIdentifier) = ?")
            arguments.append(stored)
        }
        let sql =
            "SELECT \(table.statements.columnList) FROM \(table.name.quotedIdentifier)"
            + (terms.isEmpty ? "" : " WHERE " + terms.joined(separator: " AND ")) + " ORDER BY rowid"
        return (table, sql, arguments)
    }
}

extension ModelTable {
    /// The condition that selects the record whose identifier is `identifier`.
    ///
    /// A composite identifier is split on `#` when that gives one value per key field; when a
    /// key value holds `#` itself, the key values are joined in SQL instead.
    func identifierCondition(_ identifier: String) -> (sql: String, arguments: [DatabaseValue]) {
        let parts =
            primaryKey.count == 1
            ? [identifier]
            : identifier.split(separator: ModelSchema.identifierSeparator, omittingEmptySubsequences: false).map(
                String.init
            )
        if parts.count == primaryKey.count {
            var arguments: [DatabaseValue] = []
            for (part, name) in zip(parts, primaryKey) {
                guard let value = Self.keyValue(part, kind: column(named: name)!.kind) else { return ("0", []) }
                arguments.append(value)
            }
            return (primaryKey.map { "\($0.quotedIdentifier) = ?" }.joined(separator: " AND "), arguments)
        }
        let joined = primaryKey.map(\.quotedIdentifier).joined(separator: " || '#' || ")
        return ("(\(joined)) = ?", [identifier.databaseValue])
    }

    private static func keyValue(_ text: String, kind: ColumnKind) -> DatabaseValue? {
        switch kind {
        case .integer: return Int64(text).map(\.databaseValue)
        case .double: return Double(text).map(\.databaseValue)
        case .boolean: return text == "true" ? 1.databaseValue : (text == "false" ? 0.databaseValue : nil)
        default: return text.databaseValue
        }
    }
}
