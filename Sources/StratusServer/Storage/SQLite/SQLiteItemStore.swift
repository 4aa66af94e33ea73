import Foundation
import GRDB
import SQLiteExactText
import StratusCodegen
import Synchronization

/// The embedded store: one SQLite database in the data directory, through GRDB.
///
/// Each model has a table (see ``TableLayout``); `_stratus_delta` is the ``DeltaJournal``,
/// `_stratus_meta` holds the secret that signs pagination tokens and `_stratus_idempotency` the
/// `Idempotency-Key`s of mutations. Opening a directory again
/// finds the same items, tombstones and journal. Tables gain the columns and indexes of fields
/// added to the schema since they were created.
final class SQLiteItemStore: ServerStore {
    /// The database file in the data directory.
    static let databaseFileName = "stratus.sqlite"

    private static let quotedJournalTable = DeltaJournal.table.quotedSQLIdentifier
    static let metaTable = "_stratus_meta"

    /// The database; other files of the store read and write it too.
    let pool: DatabasePool
    /// The mutations' writes, committed in groups.
    let writer: GroupCommitWriter
    /// Checkpoints the database off the write path.
    let checkpointer: WALCheckpointer
    /// Held while the store is open, so that a second server cannot open the same directory.
    private let lock: DataDirectoryLock
    private let layouts: [String: TableLayout]
    private let secret: [UInt8]
    /// When expired tombstones and journal entries were last removed, in epoch milliseconds.
    private let lastPurge = Mutex(0)
    private let pageReads = Atomic<Int>(0)

    /// How many pages ``fetchPage(_:)`` has read since the store opened.
    var pagesRead: Int { pageReads.load(ordering: .relaxed) }

    /// The additive schema changes applied when the store opened.
    let appliedChanges: [SchemaChange]
    /// Warnings about the paths of the data directory whose modes let other users read them,
    /// narrowed when the store opened (see ``PrivateDataDirectory``).
    let narrowedModes: [String]

    /// Opens (creating if needed) the database in `directory` for `schema`, migrating it in place
    /// when the schema changed additively since it was last opened. The directory and its files
    /// are made private to their owner first (``PrivateDataDirectory``).
    ///
    /// - Throws: ``StorageError`` when the directory or the database cannot be opened, when
    ///   another server has the directory open, or when the schema changed in ways that would lose
    ///   stored data (then the database is left as it was).
    init(directory: URL, schema: AnnotatedSchema) throws(StorageError) {
        narrowedModes = try PrivateDataDirectory.prepare(directory)
        lock = try DataDirectoryLock(directory: directory)
        let path = directory.appendingPathComponent(Self.databaseFileName).path
        let identity = try PrivateDataDirectory.createFile(atPath: path)
        do {
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            configuration.prepareDatabase { db in try WALCheckpointer.prepare(db) }
            let pool = try DatabasePool(path: path, configuration: configuration)
            let checkpointer = try WALCheckpointer(path: path)
            // Both connections are open on the file that was checked (the pool's readers open
            // later, in a directory nobody else may change by then).
            do {
                try PrivateDataDirectory.checkUnchanged(identity, atPath: path)
            } catch {
                try? checkpointer.close()
                try? pool.close()
                throw error
            }
            self.pool = pool
            self.checkpointer = checkpointer
            writer = GroupCommitWriter(pool: pool) { checkpointer.noteCommits() }
        } catch {
            throw StorageError.database(error)
        }
        let shape = StoredShape(schema: schema)
        let layouts = Dictionary(uniqueKeysWithValues: schema.models.map { ($0.name, TableLayout(model: $0)) })
        let changes: [SchemaChange]
        do {
            changes = try pool.read { db in
                guard let recorded = try Self.recordedShape(db) else { return [] }
                return recorded.changes(to: shape)
                    + (try Self.unreadableValues(db, recorded: recorded, layouts: layouts, schema: schema))
            }
        } catch {
            // Closed as far as they close: the failure to open is the one to report.
            try? checkpointer.close()
            try? pool.close()
            throw StorageError.database(error)
        }
        let refused = changes.filter(\.isDestructive)
        guard refused.isEmpty else {
            // Closed as far as they close: the refused changes are what to report.
            try? checkpointer.close()
            try? pool.close()
            throw StorageError.incompatibleSchema(refused)
        }
        appliedChanges = changes
        self.layouts = layouts
        do {
            secret = try pool.write { db in
                try Self.migrate(
                    db,
                    layouts: schema.models.map { layouts[$0.name]! },
                    schema: schema,
                    changes: changes
                )
                try Self.record(shape, db)
                return try Self.loadSecret(db)
            }
        } catch {
            throw StorageError.database(error)
        }
    }

    func tokenSecret() -> [UInt8] {
        secret
    }

    /// One process writes the database: the server announces its own writes.
    var announcesWrites: Bool { false }

    func startAnnouncements(
        _ deliver: @escaping @Sendable (String, WriteAnnouncement) -> Void,
        published: @escaping @Sendable (PublishedResult) -> Void
    ) {}

    /// The server publishes hand-written mutations' results itself: nothing to record.
    func announce(_ published: PublishedResult, now: Int) async throws {}

    func sharedSetting(_ name: String, proposing proposed: String) async throws -> String {
        let table = Self.metaTable.quotedSQLIdentifier
        let key = "setting:" + name
        return try await writer.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO \(table) (\"key\", \"value\") VALUES (?, ?)",
                arguments: [key, Data(proposed.utf8)]
            )
            guard
                let data = try Data.fetchOne(
                    db,
                    sql: "SELECT \"value\" FROM \(table) WHERE \"key\" = ?",
                    arguments: [key]
                ),
                let value = String(data: data, encoding: .utf8)
            else { throw StorageError.corrupt("the setting '\(name)' is not text") }
            return value
        }
    }

    func checkHealth() async throws {
        _ = try await pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
    }

    /// One server has the database: there are no other servers' writes to hear.
    var announcementsProblem: String? { nil }

    /// Closes the database; the store answers nothing afterwards.
    func close() throws(StorageError) {
        defer { lock.release() }
        do {
            try checkpointer.close()
            try pool.close()
        } catch {
            throw StorageError.database(error)
        }
    }

    // MARK: - Schema

    /// The shape the database was last migrated to, or its tables' shape when it predates
    /// recorded shapes; `nil` for an empty database.
    private static func recordedShape(_ db: Database) throws -> StoredShape? {
        if try db.tableExists(metaTable),
            let data = try Data.fetchOne(
                db,
                sql: "SELECT \"value\" FROM \(metaTable.quotedSQLIdentifier) WHERE \"key\" = 'storedShape'"
            )
        {
            do {
                return try JSONDecoder().decode(StoredShape.self, from: data)
            } catch {
                throw StorageError.corrupt("a recorded schema shape that cannot be read: \(error)")
            }
        }
        let tables = try StoredShape(tablesIn: db)
        return tables.models.isEmpty ? nil : tables
    }

    /// The fields of a database from before recorded shapes whose stored values the schema's
    /// types cannot read: such a database does not tell a field's type, so a changed type shows
    /// only in the values (text in a field now `Int`, a string where a list is now expected, a
    /// value outside an enum). Nulls are readable in any field: versions before recorded shapes
    /// added required fields with `@default` as empty columns. Fields whose type is recorded are
    /// compared by ``StoredShape`` instead.
    private static func unreadableValues(
        _ db: Database,
        recorded: StoredShape,
        layouts: [String: TableLayout],
        schema: AnnotatedSchema
    ) throws -> [SchemaChange] {
        var changes: [SchemaChange] = []
        for (name, layout) in layouts.sorted(by: { $0.key < $1.key }) {
            guard let stored = recorded.models[name] else { continue }
            for column in layout.fieldColumns.sorted(by: { $0.name < $1.name }) {
                guard stored.fields[column.name]?.type.isEmpty == true,
                    let field = layout.model.field(named: column.name)
                else { continue }
                let value = column.quotedName
                var fits: String
                switch column.storage {
                case .text: fits = "typeof(\(value)) = 'text'"
                case .integer: fits = "typeof(\(value)) = 'integer'"
                case .boolean: fits = "typeof(\(value)) = 'integer' AND \(value) IN (0, 1)"
                case .real: fits = "typeof(\(value)) IN ('integer', 'real')"
                case .json(.list): fits = "(CASE WHEN json_valid(\(value)) THEN json_type(\(value)) END) = 'array'"
                case .json(.map): fits = "(CASE WHEN json_valid(\(value)) THEN json_type(\(value)) END) = 'object'"
                case .json(.any): fits = "json_valid(\(value))"
                }
                if !field.type.isList, field.type.kind == .enumeration,
                    let enumeration = schema.enums.first(where: { $0.name == field.type.name })
                {
                    let values = enumeration.values.map(\.databaseValue.sqlLiteral).joined(separator: ", ")
                    fits += " AND \(value) IN (\(values))"
                }
                let count =
                    try Int.fetchOne(
                        db,
                        sql: "SELECT COUNT(*) FROM \(layout.table) WHERE \(value) IS NOT NULL AND NOT (\(fits))"
                    ) ?? 0
                if count > 0 {
                    changes.append(
                        SchemaChange(
                            kind: .storedValuesUnreadable(
                                model: name,
                                field: column.name,
                                type: field.type.description,
                                count: count
                            )
                        )
                    )
                }
            }
        }
        return changes
    }

    private static func record(_ shape: StoredShape, _ db: Database) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        try db.execute(
            sql:
                "INSERT OR REPLACE INTO \(metaTable.quotedSQLIdentifier) (\"key\", \"value\") VALUES ('storedShape', ?)",
            arguments: [try encoder.encode(shape)]
        )
    }

    private static func migrate(
        _ db: Database,
        layouts: [TableLayout],
        schema: AnnotatedSchema,
        changes: [SchemaChange]
    ) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS \(metaTable.quotedSQLIdentifier) ("key" TEXT PRIMARY KEY NOT NULL, "value" BLOB);
                CREATE TABLE IF NOT EXISTS \(quotedJournalTable) (
                  "position" INTEGER PRIMARY KEY AUTOINCREMENT,
                  "model" TEXT NOT NULL,
                  "changedAt" INTEGER NOT NULL,
                  "expiresAt" INTEGER NOT NULL,
                  "item" TEXT NOT NULL);
                CREATE INDEX IF NOT EXISTS "_stratus_delta_model" ON \(quotedJournalTable) ("model", "position");
                CREATE INDEX IF NOT EXISTS "_stratus_delta_expiry" ON \(quotedJournalTable) ("expiresAt");
                """
        )
        try createIdempotencyTable(db)
        for layout in layouts {
            if try db.tableExists(layout.model.name) {
                let existing = Set(try db.columns(in: layout.model.name).map(\.name))
                for column in layout.columns where !existing.contains(column.name) {
                    let type =
                        switch column.storage {
                        case .text, .json: "TEXT"
                        case .integer, .boolean: "INTEGER"
                        case .real: "REAL"
                        }
                    // Existing items take the field's @default, if it has one.
                    var defaultClause = ""
                    if let field = layout.model.field(named: column.name),
                        let value = try DefaultValue.of(field, in: layout.model.name, schema: schema)
                    {
                        defaultClause =
                            " DEFAULT " + TableLayout.databaseValue(value, storage: column.storage).sqlLiteral
                    }
                    try db.execute(
                        sql: "ALTER TABLE \(layout.table) ADD COLUMN \(column.quotedName) \(type)\(defaultClause)"
                    )
                }
            } else {
                try db.execute(sql: layout.createTableSQL)
            }
        }
        // Indexes whose definition changed or that the schema no longer declares go first.
        for change in changes {
            switch change.kind {
            case .indexChanged(_, let index), .indexRemoved(_, let index):
                try db.execute(sql: "DROP INDEX IF EXISTS \(index.quotedSQLIdentifier)")
            default:
                break
            }
        }
        for layout in layouts {
            for index in layout.indexes(in: schema) {
                try db.execute(sql: index.sql)
            }
        }
    }

    private static func loadSecret(_ db: Database) throws -> [UInt8] {
        let table = metaTable.quotedSQLIdentifier
        if let data = try Data.fetchOne(db, sql: "SELECT \"value\" FROM \(table) WHERE \"key\" = 'tokenSecret'") {
            return [UInt8](data)
        }
        var generator = SystemRandomNumberGenerator()
        let secret = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        try db.execute(
            sql: "INSERT INTO \(table) (\"key\", \"value\") VALUES ('tokenSecret', ?)",
            arguments: [Data(secret)]
        )
        return secret
    }

    private func layout(_ model: String) throws(StorageError) -> TableLayout {
        guard let layout = layouts[model] else { throw StorageError.unknownModel(model) }
        return layout
    }

    // MARK: - Reads

    func fetchItem(model: String, key: [JSON], now: Int) async throws -> StoredItem? {
        let layout = try layout(model)
        let (sql, arguments) = Self.selectByKey(layout, key: key, now: now)
        return try await read { db in
            try db.exactRows(sql, arguments).first.map(layout.item(from:))
        }
    }

    private static func selectByKey(_ layout: TableLayout, key: [JSON], now: Int) -> (String, [DatabaseValue]) {
        let arguments = zip(layout.model.primaryKey, key).map { name, value in
            TableLayout.databaseValue(value, storage: layout.column(named: name)?.storage ?? .text)
        }
        return (
            "SELECT \(layout.selection) FROM \(layout.table) WHERE \(layout.keyCondition) AND \(notExpired)",
            arguments + [now.databaseValue]
        )
    }

    private static let notExpired =
        "(\(TableLayout.quotedExpiryColumn) IS NULL OR \(TableLayout.quotedExpiryColumn) > ?)"

    func fetchPage(_ query: PageQuery) async throws -> ItemPage {
        let layout = try layout(query.model)
        let compiler = SQLPredicateCompiler.table(layout)
        let filter = try compiler.compile(query.filter ?? .always)
        let key = try compiler.compile(query.keyCondition)
        var sql =
            "SELECT \(layout.selection), COALESCE(\(filter.sql), 0) FROM \(layout.table) WHERE (\(key.sql)) AND "
            + Self.notExpired
        var arguments = filter.arguments + key.arguments + [query.now.databaseValue]
        let orderColumns = query.order.map(\.quotedSQLIdentifier)
        if let after = query.after {
            guard after.count == query.order.count else { throw StorageError.corrupt("a page key of the wrong size") }
            let marks = Array(repeating: "?", count: after.count).joined(separator: ", ")
            sql += " AND (\(orderColumns.joined(separator: ", "))) \(query.descending ? "<" : ">") (\(marks))"
            arguments += zip(query.order, after).map { name, value in
                TableLayout.databaseValue(value, storage: layout.column(named: name)?.storage ?? .text)
            }
        }
        let direction = query.descending ? "DESC" : "ASC"
        sql += " ORDER BY " + orderColumns.map { "\($0) \(direction)" }.joined(separator: ", ") + " LIMIT ?"
        arguments.append((query.limit + 1).databaseValue)
        let statement = sql
        let statementArguments = arguments
        let matchIndex = layout.columns.count
        return try await read { db in
            self.pageReads.add(1, ordering: .relaxed)
            let rows = try db.exactRows(statement, statementArguments)
            var items: [StoredItem] = []
            var lastItem: StoredItem?
            for row in rows.prefix(query.limit) {
                let item = try layout.item(from: row)
                lastItem = item
                if row[matchIndex] == 1.databaseValue { items.append(item) }
            }
            let lastKey =
                rows.count > query.limit ? lastItem.map { item in query.order.map { item.values[$0] ?? .null } } : nil
            return ItemPage(items: items, lastKey: lastKey)
        }
    }

    /// The changes since `query.since`, filtered in memory: SQLite's JSON functions read a
    /// string of a journal entry only up to a `\u0000`, so in SQL a filter on such a string
    /// would compare a shortened value.
    func fetchChanges(_ query: ChangeQuery) async throws -> ChangePage {
        let layout = try layout(query.model)
        if let filter = query.filter {
            // Refuses fields the model does not store, as a filter on the table does.
            _ = try SQLPredicateCompiler.table(layout).compile(filter)
        }
        var sql =
            "SELECT \"position\", \"item\" FROM \(Self.quotedJournalTable) "
            + "WHERE \"model\" = ? AND \"changedAt\" >= ? AND \"expiresAt\" > ?"
        var arguments = [query.model.databaseValue, query.since.databaseValue, query.now.databaseValue]
        if let after = query.afterPosition {
            sql += " AND \"position\" > ?"
            arguments.append(after.databaseValue)
        }
        sql += " ORDER BY \"position\" LIMIT ?"
        arguments.append((query.limit + 1).databaseValue)
        let statement = sql
        let statementArguments = arguments
        let rows = try await read { db in try db.exactRows(statement, statementArguments) }
        var items: [StoredItem] = []
        var lastPosition: Int?
        for row in rows.prefix(query.limit) {
            guard case .int64(let position) = row[0].storage, case .string(let text) = row[1].storage else {
                throw StorageError.corrupt("a journal entry of \(layout.model.name) that is not a position and a text")
            }
            lastPosition = Int(position)
            let item = try DeltaJournal.item(text, layout: layout, position: Int(position))
            if query.filter?.evaluate(item) ?? true { items.append(item) }
        }
        return ChangePage(items: items, lastPosition: rows.count > query.limit ? lastPosition : nil)
    }

    // MARK: - Writes

    func write(_ write: ItemWrite) async throws -> WriteOutcome {
        let layout = try layout(write.model)
        let condition = try write.condition.map { try SQLPredicateCompiler.table(layout).compile($0) }
        let purge = lastPurge.withLock { last in
            guard write.now - last >= 60_000 else { return false }
            last = write.now
            return true
        }
        let layouts = purge ? Array(layouts.values) : []
        return try await writer.write { db in
            for layout in layouts {
                try db.exactExecute(
                    "DELETE FROM \(layout.table) WHERE \(TableLayout.quotedExpiryColumn) <= ?",
                    [write.now.databaseValue]
                )
            }
            if !layouts.isEmpty {
                try db.exactExecute(
                    "DELETE FROM \(Self.quotedJournalTable) WHERE \"expiresAt\" <= ?",
                    [write.now.databaseValue]
                )
                try Self.purgeIdempotencyKeys(now: write.now, in: db)
            }
            return try Self.perform(write, layout: layout, condition: condition, in: db)
        }
    }

    func write(batch writes: [ItemWrite]) async throws -> BatchWriteOutcome {
        let prepared = try writes.map { write in
            let layout = try layout(write.model)
            return (write, layout, try write.condition.map { try SQLPredicateCompiler.table(layout).compile($0) })
        }
        do {
            // A refusal thrown out of the write rolls back its savepoint: the batch's writes only.
            try await writer.write { db in
                for (index, (write, layout, condition)) in prepared.enumerated() {
                    let outcome = try Self.perform(write, layout: layout, condition: condition, in: db)
                    if outcome != .written { throw BatchRefusal(index: index, outcome: outcome) }
                }
            }
            return .written
        } catch let refusal as BatchRefusal {
            return .refused(index: refusal.index, outcome: refusal.outcome)
        }
    }

    private static func perform(
        _ write: ItemWrite,
        layout: TableLayout,
        condition: SQLFragment?,
        in db: Database
    ) throws -> WriteOutcome {
        let keyArguments = zip(layout.model.primaryKey, write.key).map { name, value in
            TableLayout.databaseValue(value, storage: layout.column(named: name)?.storage ?? .text)
        }
        // An expired tombstone no longer exists.
        try db.exactExecute(
            "DELETE FROM \(layout.table) WHERE \(layout.keyCondition) AND \(TableLayout.quotedExpiryColumn) <= ?",
            keyArguments + [write.now.databaseValue]
        )
        let (select, selectArguments) = selectByKey(layout, key: write.key, now: write.now)
        let current = try db.exactRows(select, selectArguments).first.map(layout.item(from:))

        switch (write.expectation, current) {
        case (.absent, .some): return .exists
        case (.present, .none): return .missing
        default: break
        }
        if let condition {
            let holds: Bool
            if current != nil {
                holds =
                    try db.exactRows(
                        "SELECT COALESCE(\(condition.sql), 0) FROM \(layout.table) WHERE \(layout.keyCondition)",
                        condition.arguments + keyArguments
                    ).first?.first == 1.databaseValue
            } else {
                let nulls = layout.columns.map { "NULL AS \($0.quotedName)" }.joined(separator: ", ")
                holds =
                    try db.exactRows(
                        "SELECT COALESCE(\(condition.sql), 0) FROM (SELECT \(nulls))",
                        condition.arguments
                    ).first?.first == 1.databaseValue
            }
            if !holds { return .conditionFailed }
        }
        if case .present(let version?) = write.expectation, let current, current.version != version {
            return .stale(current)
        }

        switch write.action {
        case .put(let item):
            let marks = Array(repeating: "?", count: layout.columns.count).joined(separator: ", ")
            try db.exactExecute(
                "INSERT OR REPLACE INTO \(layout.table) (\(layout.selection)) VALUES (\(marks))",
                layout.databaseValues(of: item, expiresAt: write.expiresAt)
            )
            if let journalExpiresAt = write.journalExpiresAt {
                try db.exactExecute(
                    "INSERT INTO \(quotedJournalTable) (\"model\", \"changedAt\", \"expiresAt\", \"item\") "
                        + "VALUES (?, ?, ?, ?)",
                    [
                        layout.model.name.databaseValue, (item.lastChangedAt ?? write.now).databaseValue,
                        journalExpiresAt.databaseValue, DeltaJournal.text(of: item).databaseValue,
                    ]
                )
            }
        case .remove:
            try db.exactExecute("DELETE FROM \(layout.table) WHERE \(layout.keyCondition)", keyArguments)
        }
        if let claim = write.idempotency {
            try recordWrite(of: claim, now: write.now, in: db)
        }
        return .written
    }

    private func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.read(body)
    }
}
