import Amplify
import GRDB
import SQLiteExactText

/// A record a delete removes: its table, its row and its place.
struct DeletedRecord {
    let table: ModelTable
    let rowid: Int64
    /// `rowid` followed by the table's columns.
    let row: [DatabaseValue]
}

/// Finds what deleting records removes: the records themselves and, before each, its hasMany
/// and hasOne children, theirs before them, and so on.
///
/// Many-to-many relations go through a join model, whose records are the children of both
/// sides: deleting a post removes its join records, never the tags they point to.
struct CascadeDelete {
    let catalog: ModelCatalog

    /// The rowid a row selected as `rowid, columns…` starts with.
    static func rowid(of row: [DatabaseValue]) -> Int64 {
        guard case .int64(let rowid) = row[0].storage else {
            preconditionFailure("A rowid is an integer, but the row starts with \(row[0]).")
        }
        return rowid
    }

    /// `roots` (rows of `rowid` and the table's columns) and everything under them, deepest
    /// first; each record appears once.
    func plan(_ roots: [[DatabaseValue]], in table: ModelTable, _ db: Database) throws -> [DeletedRecord] {
        var plan: [DeletedRecord] = []
        var visited: Set<VisitedRow> = []
        for row in roots {
            try visit(row, table, db, &plan, &visited)
        }
        return plan
    }

    /// A row the plan holds already.
    private struct VisitedRow: Hashable {
        let table: String
        let rowid: Int64
    }

    private func visit(
        _ row: [DatabaseValue],
        _ table: ModelTable,
        _ db: Database,
        _ plan: inout [DeletedRecord],
        _ visited: inout Set<VisitedRow>
    ) throws {
        let rowid = Self.rowid(of: row)
        guard visited.insert(VisitedRow(table: table.name, rowid: rowid)).inserted else { return }
        let key = table.primaryKey.map { name -> DatabaseValue in row[1 + table.columnIndex[name]!] }
        if !key.contains(where: \.isNull) {
            for relation in table.children {
                guard let child = catalog.tables[relation.childTable] else { continue }
                let condition = relation.childColumns.map { "\($0.quotedIdentifier) = ?" }.joined(separator: " AND ")
                let children = try db.cachedStatement(
                    sql: "SELECT rowid, \(child.statements.columnList) FROM \(child.name.quotedIdentifier) "
                        + "WHERE \(condition) ORDER BY rowid"
                )
                .fetchExactRows(key)
                for childRow in children {
                    try visit(childRow, child, db, &plan, &visited)
                }
            }
        }
        plan.append(DeletedRecord(table: table, rowid: rowid, row: row))
    }
}

/// What a delete by identifier writes, checked before the write transaction starts.
struct PreparedDelete: Sendable {
    let table: ModelTable
    let identifier: String
    let condition: SQLCondition?
    /// The condition as the GraphQL filter the root's outbox event carries.
    let filter: String?
    /// The statement selecting the record (`rowid` and the table's columns) and its arguments.
    let select: String
    let arguments: [DatabaseValue]
}

extension StorageEngine {
    /// Deletes the record of `table` whose identifier is `identifier`, with its children, when
    /// it matches `condition`.
    ///
    /// - Throws: ``DataStoreError/Code/conditionalSaveFailed`` when the record does not match.
    func delete(
        from table: ModelTable,
        identifier: String,
        where condition: (any QueryPredicate)?
    ) async throws(DataStoreError) {
        let prepared = try prepareDelete(from: table, identifier: identifier, where: condition)
        defer { conditions.release(prepared.condition?.tokens ?? []) }
        try await write { db in
            var change = LocalChange()
            try self.writeDelete(prepared, transaction: nil, db, &change)
            try self.publishLocalChange(change.events, enqueued: change.enqueued, db)
        }
    }

    /// Translates `condition` for a delete; the caller releases its tokens once the delete is
    /// written.
    func prepareDelete(
        from table: ModelTable,
        identifier: String,
        where condition: (any QueryPredicate)?
    ) throws(DataStoreError) -> PreparedDelete {
        let sqlCondition = try condition.map { predicate throws(DataStoreError) in
            try SQLCondition(predicate, table: table, conditions: conditions)
        }
        let filter: String?
        do {
            filter = try Self.filterText(of: condition, table: table, identifier: identifier, action: "delete")
        } catch {
            conditions.release(sqlCondition?.tokens ?? [])
            throw error
        }
        let key = table.identifierCondition(identifier)
        return PreparedDelete(
            table: table,
            identifier: identifier,
            condition: sqlCondition,
            filter: filter,
            select: "SELECT rowid, \(table.statements.columnList) FROM \(table.name.quotedIdentifier) WHERE \(key.sql)",
            arguments: key.arguments
        )
    }

    /// Writes a prepared delete inside the caller's transaction, adding its events to `change`.
    func writeDelete(
        _ delete: PreparedDelete,
        transaction: String?,
        _ db: Database,
        _ change: inout LocalChange
    )
        throws
    {
        let roots = try db.cachedStatement(sql: delete.select).fetchExactRows(delete.arguments)
        if let sqlCondition = delete.condition, let root = roots.first {
            try Self.check(sqlCondition, on: CascadeDelete.rowid(of: root), in: delete.table, db, action: "deleted")
        }
        try deleteRoots(roots, in: delete.table, filter: delete.filter, transaction: transaction, db, &change)
    }

    /// Deletes every record of `table` matching `predicate`, with their children.
    func delete(from table: ModelTable, where predicate: any QueryPredicate) async throws(DataStoreError) {
        let query = try deleteQuery(from: table, where: predicate)
        defer { conditions.release(query.tokens) }
        try await write { db in
            var change = LocalChange()
            try self.writeDelete(query, in: table, transaction: nil, db, &change)
            try self.publishLocalChange(change.events, enqueued: change.enqueued, db)
        }
    }

    /// The query selecting the records a delete by `predicate` removes; the caller releases its
    /// tokens once the delete is written.
    func deleteQuery(from table: ModelTable, where predicate: any QueryPredicate) throws(DataStoreError) -> SQLQuery {
        try SQLQuery(
            table: table,
            selection: "rowid, \(table.statements.columnList)",
            predicate: predicate,
            sort: nil,
            pagination: nil,
            conditions: conditions
        )
    }

    /// Deletes the records `query` selects inside the caller's transaction, adding the events
    /// to `change`.
    func writeDelete(
        _ query: SQLQuery,
        in table: ModelTable,
        transaction: String?,
        _ db: Database,
        _ change: inout LocalChange
    ) throws {
        let roots = try db.makeStatement(sql: query.sql).fetchExactRows(query.arguments)
        try deleteRoots(roots, in: table, filter: nil, transaction: transaction, db, &change)
    }

    /// Deletes `roots` and their children, deepest first, each with its outbox event.
    private func deleteRoots(
        _ roots: [[DatabaseValue]],
        in table: ModelTable,
        filter: String?,
        transaction: String?,
        _ db: Database,
        _ change: inout LocalChange
    ) throws {
        change.storedParents.removeAll()
        let plan = try CascadeDelete(catalog: catalog).plan(roots, in: table, db)
        let rootRowids = Set(roots.map(CascadeDelete.rowid(of:)))
        change.events.reserveCapacity(change.events.count + plan.count)
        for record in plan {
            try db.cachedStatement(sql: record.table.statements.deleteByRowid).execute(arguments: [record.rowid])
            let key = record.table.primaryKey.map { name -> DatabaseValue in
                record.row[1 + record.table.columnIndex[name]!]
            }
            let identifier = ModelTable.identifier(of: key)
            let recordKey = RecordKey(modelName: record.table.name, identifier: identifier)
            let version = try SystemTables.markRecord(recordKey, deleted: true, db)
            let isRoot = record.table.name == table.name && rootRowids.contains(record.rowid)
            let event = MutationEvent(
                modelId: identifier,
                modelName: record.table.name,
                json: record.table.jsonText(of: record.row, offset: 1),
                mutationType: .delete,
                version: version,
                graphQLFilterJSON: isRoot ? filter : nil
            )
            switch try Outbox.enqueue(event, transaction: transaction, db) {
            case .pending:
                change.enqueued.append(event)
            case .cancelled:
                // The record's create never left the device: no version means the backend never
                // had it, so no tombstone is kept of it either.
                if version == nil { try SystemTables.forgetRecord(recordKey, db) }
            }
            change.events.append(event)
        }
    }
}
