import Amplify
import Foundation
import GRDB
import SQLiteExactText

/// Brings the model tables of an existing database to the shape of the current registration,
/// keeping the records and the outbox.
///
/// Amplify DataStore deleted the whole database when the registration's version changed, and
/// users lost data that had not reached the backend. Here each table is migrated:
///
/// - a new model gets its table;
/// - a table that only gains optional fields or indexes is altered in place;
/// - any other change (a field removed, retyped, made required; a key or relation changed)
///   rebuilds the table, converting each record: text to numbers and back when the text is a
///   number, any value to text;
/// - the outbox and the sync metadata are never touched, but each model whose table changed is
///   marked for a base sync (see ``SystemTables/baseSyncKey(of:)``): its records synced before
///   were written without the new fields, and a delta sync would never bring them.
///
/// Only what cannot fit the new shape is discarded, and each discarded thing is logged first: a
/// record without a value for a new required field or whose value cannot convert, the values of
/// a removed field, the records of a model the registration no longer contains.
struct SchemaMigrator {
    let catalog: ModelCatalog
    let log: @Sendable (DataStoreConfiguration.LogEntry) -> Void

    /// Migrates every table, within the caller's transaction and with foreign keys off.
    func migrate(_ db: Database, from storedVersion: String?, to registryVersion: String) throws {
        if let storedVersion, storedVersion != registryVersion {
            info("Migrating from model version \(storedVersion) to \(registryVersion).")
        }
        for name in catalog.modelNames {
            let table = catalog.tables[name]!
            if try db.tableExists(name) {
                let change = try migrate(table, db)
                if change.changed, storedVersion != nil {
                    try SystemTables.setMetadataValue(db, SystemTables.baseSyncKey(of: name), registryVersion)
                    try markUnknownFields(change.added, ofPendingUpdatesOf: name, db)
                }
            } else {
                try table.create(db)
                if storedVersion != nil { info("Created the table of the new model \(name).") }
            }
        }
        try dropRemovedModels(db)
        try SystemTables.setMetadataValue(db, "registryVersion", registryVersion)
        for row in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") {
            let child: String = row[0]
            let parent: String = row[2]
            warning(
                "A \(child) record (rowid \(row[1] as Int64? ?? -1)) refers to a \(parent) that is not stored. "
                    + "It is kept; save its \(parent) or change the reference before updating it."
            )
        }
    }

    /// Migrates one table; returns whether its columns, key or relations changed, and the
    /// columns it gained.
    private func migrate(_ table: ModelTable, _ db: Database) throws -> (changed: Bool, added: [String]) {
        let existing = try db.columns(in: table.name)
        let existingByName = Dictionary(existing.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let added = table.columns.filter { existingByName[$0.name] == nil }
        let removed = existing.filter { table.column(named: $0.name) == nil }
        let changed = table.columns.filter { column in
            guard let old = existingByName[column.name] else { return false }
            return old.type.uppercased() != column.kind.sqlType || old.isNotNull != column.isRequired
        }
        let primaryKey = try db.primaryKey(table.name).columns
        let foreignKeys = try db.foreignKeys(on: table.name).map {
            TableForeignKey(
                field: "",
                columns: $0.originColumns,
                parentTable: $0.destinationTable,
                parentColumns: $0.destinationColumns
            )
        }
        let sameForeignKeys =
            Set(foreignKeys)
            == Set(
                table.foreignKeys.map {
                    TableForeignKey(
                        field: "",
                        columns: $0.columns,
                        parentTable: $0.parentTable,
                        parentColumns: $0.parentColumns
                    )
                }
            )
        let isStrict =
            try String.fetchOne(
                db,
                sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
                arguments: [table.name]
            )?.hasSuffix("STRICT") ?? false
        if removed.isEmpty && changed.isEmpty && primaryKey == table.primaryKey && sameForeignKeys && isStrict
            && added.allSatisfy({ !$0.isRequired })
        {
            for column in added {
                try db.execute(
                    sql: "ALTER TABLE \(table.name.quotedIdentifier) ADD COLUMN \(table.definition(of: column))"
                )
                info("Added the field \(table.name).\(column.name).")
            }
            try migrateIndexes(table, db)
            return (!added.isEmpty, added.map(\.name))
        }
        try rebuild(table, from: existing, db)
        try migrateIndexes(table, db)
        return (true, added.map(\.name))
    }

    /// Records, for each pending update of `modelName`, the fields the model gained since it was
    /// made (see ``SystemTables/unknownFieldsKey(of:)``): the update does not send them unless it
    /// sets them, so that it does not clear on the backend values it never knew.
    private func markUnknownFields(_ added: [String], ofPendingUpdatesOf modelName: String, _ db: Database) throws {
        guard !added.isEmpty else { return }
        let ids = try String.fetchAll(
            db,
            sql:
                "SELECT \"id\" FROM \"\(SystemTables.outbox)\" WHERE \"modelName\" = ? AND \"mutationType\" = 'update'",
            arguments: [modelName]
        )
        for id in ids {
            let key = SystemTables.unknownFieldsKey(of: id)
            let known = try SystemTables.metadataValue(db, key).map { $0.split(separator: ",").map(String.init) } ?? []
            let fields = Set(known).union(added).sorted().joined(separator: ",")
            try SystemTables.setMetadataValue(db, key, fields)
        }
        // The marks of events no longer pending.
        try db.execute(
            sql: """
                DELETE FROM "\(SystemTables.metadata)" WHERE "key" LIKE 'outboxUnknownFields:%'
                  AND substr("key", 21) NOT IN (SELECT "id" FROM "\(SystemTables.outbox)")
                """
        )
    }

    /// Copies the records of `table` into a table of the new shape, converting what converts.
    private func rebuild(_ table: ModelTable, from existing: [ColumnInfo], _ db: Database) throws {
        let scratch = "\(SystemTables.prefix)rebuild_\(table.name)"
        try db.execute(sql: "DROP TABLE IF EXISTS \(scratch.quotedIdentifier)")
        try db.execute(sql: table.createTableSQL(named: scratch))
        let oldNames = Set(existing.map(\.name))
        for column in existing where table.column(named: column.name) == nil {
            let count =
                try Int.fetchOne(
                    db,
                    sql:
                        "SELECT count(*) FROM \(table.name.quotedIdentifier) WHERE \(column.name.quotedIdentifier) IS NOT NULL"
                ) ?? 0
            if count > 0 {
                warning(
                    "Discarding the field \(table.name).\(column.name), which the model no longer has: "
                        + "\(count) record(s) held a value in it."
                )
            }
        }
        let oldKey = try db.primaryKey(table.name).columns
        let selection = (["rowid"] + existing.map(\.name.quotedIdentifier)).joined(separator: ", ")
        let insert =
            "INSERT INTO \(scratch.quotedIdentifier) (rowid, \(table.statements.columnList)) VALUES ("
            + Array(repeating: "?", count: table.columns.count + 1).joined(separator: ", ") + ")"
        // Text is read and written whole, NUL characters included.
        let position = Dictionary(
            existing.enumerated().map { ($0.element.name, $0.offset + 1) },
            uniquingKeysWith: { first, _ in first }
        )
        let insertStatement = try db.makeStatement(sql: insert)
        var kept = 0
        var discarded = 0
        let select = try db.makeStatement(
            sql: "SELECT \(selection) FROM \(table.name.quotedIdentifier) ORDER BY rowid"
        )
        try select.forEachExactRow([]) { row in
            let rowid = row[0]
            let identifier =
                oldKey.allSatisfy(oldNames.contains)
                ? ModelTable.identifier(of: oldKey.map { row[position[$0]!] })
                : "rowid \(rowid)"
            var values: [DatabaseValue] = [rowid]
            var reason: String?
            for column in table.columns {
                let old = position[column.name].map { row[$0] } ?? .null
                let converted = Self.convert(old, to: column.kind)
                if converted == nil {
                    if column.isRequired {
                        reason = "its \(column.name) value \(old) does not convert to \(column.typeName)"
                        break
                    }
                    warning(
                        "Clearing \(table.name).\(column.name) of \(table.name) '\(identifier)': its value \(old) does "
                            + "not convert to \(column.typeName)."
                    )
                }
                let value = converted ?? .null
                if value.isNull && column.isRequired {
                    reason = "\(column.name) is now required and the record has no value for it"
                    break
                }
                values.append(value)
            }
            if let reason {
                warning("Discarding \(table.name) '\(identifier)': \(reason).")
                discarded += 1
                return
            }
            try insertStatement.executeExactly(values)
            kept += 1
        }
        try db.execute(sql: "DROP TABLE \(table.name.quotedIdentifier)")
        try db.execute(sql: "ALTER TABLE \(scratch.quotedIdentifier) RENAME TO \(table.name.quotedIdentifier)")
        info("Rebuilt the table of \(table.name): kept \(kept) record(s), discarded \(discarded).")
    }

    /// Drops the indexes DataStore made that the table no longer has, and makes the new ones.
    private func migrateIndexes(_ table: ModelTable, _ db: Database) throws {
        let existing = try db.indexes(on: table.name).filter { $0.origin == .createIndex }
        let wanted = Dictionary(
            table.indexes.map { ($0.sqlName(table: table.name), $0.columns) },
            uniquingKeysWith: { first, _ in first }
        )
        for index in existing where wanted[index.name] != index.columns {
            try db.execute(sql: "DROP INDEX \(index.name.quotedIdentifier)")
        }
        let kept = Set(existing.filter { wanted[$0.name] == $0.columns }.map(\.name))
        for index in table.indexes where !kept.contains(index.sqlName(table: table.name)) {
            try db.execute(sql: table.createIndexSQL(index))
        }
    }

    /// Drops the tables of models the registration no longer contains, logging their records.
    private func dropRemovedModels(_ db: Database) throws {
        let names = try String.fetchAll(
            db,
            sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
        )
        for name in names where !name.hasPrefix(SystemTables.prefix) && catalog.tables[name] == nil {
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(name.quotedIdentifier)") ?? 0
            warning(
                "Discarding the \(count) record(s) of \(name), a model the registration no longer contains."
                    + (count > 0 ? " Their pending changes stay in the outbox." : "")
            )
            try db.execute(sql: "DROP TABLE \(name.quotedIdentifier)")
        }
    }

    /// `value` converted to a column of `kind`; `.null` for null, `nil` when it does not convert.
    static func convert(_ value: DatabaseValue, to kind: ColumnKind) -> DatabaseValue? {
        let json: JSONValue
        switch value.storage {
        case .null: return .null
        case .int64(let int):
            switch kind {
            case .string: return String(int).databaseValue
            case .boolean: return int == 0 || int == 1 ? value : nil
            default: json = .integer(Int(int))
            }
        case .double(let double):
            if kind == .string { return String(double).databaseValue }
            json = .number(double)
        case .string(let text):
            switch kind {
            case .integer: return Int64(text).map(\.databaseValue)
            case .double: return Double(text).map(\.databaseValue)
            case .object, .list:
                do {
                    json = try JSONValue(parsing: text)
                } catch {
                    // Text that is not JSON holds no embedded value or list: it does not convert,
                    // and the caller logs what it clears.
                    return nil
                }
            default: json = .string(text)
            }
        case .blob: return nil
        }
        do {
            return try ModelTable.databaseValue(json, kind: kind)
        } catch {
            // A number JSON cannot write does not convert; the caller logs what it clears.
            return nil
        }
    }

    private func info(_ message: String) {
        log(.init(level: .info, message: message))
    }

    private func warning(_ message: String) {
        log(.init(level: .warning, message: message))
    }
}
