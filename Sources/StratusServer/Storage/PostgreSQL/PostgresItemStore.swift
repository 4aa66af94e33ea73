import Foundation
import Logging
import NIOCore
import PostgresNIO
import StratusCodegen
import Synchronization

/// The store of servers that share a PostgreSQL database: several `stratus serve` instances
/// behind a load balancer, or one that must outlive its machine.
///
/// The tables are those of ``SQLiteItemStore``: one per model (see ``TableLayout``; strings as
/// their UTF-8 bytes, so that they compare byte by byte as in DynamoDB), `_stratus_delta`,
/// `_stratus_meta` and `_stratus_idempotency`. Besides them, `_stratus_events` is the journal of
/// committed writes, and of the hand-written mutations' results that hand-written subscriptions
/// list, that every instance reads to feed its subscriptions.
///
/// Across instances:
/// - A write runs in one transaction under a transaction-level advisory lock on its item, so
///   its `_version` check and the write are one step: no update is lost, no version reused.
/// - A write that subscriptions hear appends to `_stratus_events` in its transaction, which
///   records the transaction's id (`xid8`); writes of different items take no common lock and
///   commit concurrently. Each instance reads the events of the transactions that ended since
///   its last read: those whose id is below the oldest transaction still running
///   (`pg_snapshot_xmin(pg_current_snapshot())`), a horizon below which no event can appear any
///   more, in transaction id order. Two writes of one item are ordered by its lock, and the
///   second takes its id after the first committed, so each item's events are delivered in
///   commit order, each once, and none is skipped. The commit's `NOTIFY` wakes the readers;
///   they catch up the same way after losing their connection. A read starts after the last
///   event delivered, not at the last horizon: PostgreSQL restarted after a crash hands out
///   again the ids of transactions whose end never reached the disk, which may lie below it.
/// - Schema migrations run once, in one transaction under an advisory lock, when several
///   instances start together.
final class PostgresItemStore: ServerStore {
    /// The channel of `NOTIFY` announcements.
    static let channel = "stratus_events"
    static let eventsTable = "_stratus_events"
    /// The `kind` of the events that are hand-written mutations' results rather than writes:
    /// their `model` is the mutation and their `item` the result.
    static let publishedKind = "published"
    /// How long announced events are kept for an instance that lost its connection to catch up.
    static let eventRetention = 3_600_000
    /// The advisory lock key of migrations.
    static let migrationLock: Int64 = 0x5354_5241_5455_5301

    let client: PostgresClient
    let location: PostgresLocation
    let appliedChanges: [SchemaChange]
    private let layouts: [String: TableLayout]
    private let secret: [UInt8]
    private let runTask: Task<Void, Never>
    private let feed = Mutex<Task<Void, Never>?>(nil)
    /// Where the event reader starts: the transaction id horizon when the store opened, or just
    /// above the last event when that is lower. The events of transactions from it on are
    /// delivered.
    private let firstTransaction: String
    private let lastPurge = Mutex(0)
    private let pageReads = Atomic<Int>(0)
    /// Whether the connection that listens for other servers' writes is listening.
    private let listener = ListenerState()
    let logger: Logger

    var pagesRead: Int { pageReads.load(ordering: .relaxed) }
    var announcesWrites: Bool { true }

    /// Connects to the database at `location`, creating or migrating the tables of `schema`.
    ///
    /// - Parameters:
    ///   - connections: The most connections the store opens.
    ///   - log: Told why opening waits, while the database does not accept connections yet
    ///     (``PostgresLocation/startupWait``).
    /// - Throws: ``StorageError`` when the database cannot be reached or refuses the statements,
    ///   or when the schema changed in ways that would lose stored data (then the database is
    ///   left as it was).
    static func open(
        _ location: PostgresLocation,
        schema: AnnotatedSchema,
        connections: Int = 16,
        log: (String) -> Void = { _ in }
    ) async throws(StorageError) -> PostgresItemStore {
        let logger = LogLevels.logger("postgres", otherwise: .critical)
        // The pool waits without a word while the database is away; the start says why it waits.
        try await PostgresStartup.waitUntilReachable(location, logger: logger, report: log)
        let client = PostgresClient(
            configuration: location.configuration(connections: connections),
            backgroundLogger: logger
        )
        let runTask = Task { await client.run() }
        do {
            let layouts = Dictionary(uniqueKeysWithValues: schema.models.map { ($0.name, TableLayout(model: $0)) })
            let (changes, secret, start) = try await migrate(
                client,
                schema: schema,
                layouts: layouts,
                logger: logger
            )
            return PostgresItemStore(
                client: client,
                location: location,
                runTask: runTask,
                layouts: layouts,
                changes: changes,
                secret: secret,
                firstTransaction: start,
                logger: logger
            )
        } catch {
            runTask.cancel()
            let underlying = (error as? PostgresTransactionFailure).map(\.error) ?? error
            // The store's own refusals (a destructive schema change) are said as they are.
            if let refusal = underlying as? StorageError { throw refusal }
            throw StorageError.database(PostgresUnreachable(location: location, failure: StorageError.postgres(error)))
        }
    }

    private init(
        client: PostgresClient,
        location: PostgresLocation,
        runTask: Task<Void, Never>,
        layouts: [String: TableLayout],
        changes: [SchemaChange],
        secret: [UInt8],
        firstTransaction: String,
        logger: Logger
    ) {
        self.client = client
        self.location = location
        self.runTask = runTask
        self.layouts = layouts
        self.appliedChanges = changes
        self.secret = secret
        self.firstTransaction = firstTransaction
        self.logger = logger
    }

    func tokenSecret() -> [UInt8] {
        secret
    }

    func close() throws(StorageError) {
        feed.withLock { $0?.cancel() }
        runTask.cancel()
    }

    // MARK: - Schema

    /// Creates or migrates the tables in one transaction under the migration lock, and returns
    /// the changes applied, the token secret and the transaction id the event reader starts at.
    private static func migrate(
        _ client: PostgresClient,
        schema: AnnotatedSchema,
        layouts: [String: TableLayout],
        logger: Logger
    ) async throws -> ([SchemaChange], [UInt8], String) {
        try await client.answeredTransaction(logger: logger) { connection in
            func run(_ sql: String, _ statement: PostgresStatement = PostgresStatement()) async throws -> [PostgresRow]
            {
                try await connection.answeredRows(statement.query(sql), logger: logger)
            }
            _ = try await run("SELECT pg_advisory_xact_lock(\(migrationLock))")
            _ = try await run(
                "CREATE TABLE IF NOT EXISTS \(SQLiteItemStore.metaTable.quotedSQLIdentifier) "
                    + "(\"key\" text PRIMARY KEY, \"value\" bytea)"
            )
            var statement = PostgresStatement()
            let shapeKey = statement.bind("storedShape")
            let recorded = try await run(
                "SELECT \"value\" FROM \(SQLiteItemStore.metaTable.quotedSQLIdentifier) WHERE \"key\" = \(shapeKey)",
                statement
            ).first.map { row -> StoredShape in
                let buffer = try row.decode(ByteBuffer.self)
                do {
                    return try JSONDecoder().decode(StoredShape.self, from: Data(buffer.readableBytesView))
                } catch {
                    throw StorageError.corrupt("a recorded schema shape that cannot be read: \(error)")
                }
            }
            let shape = StoredShape(schema: schema)
            let changes = recorded?.changes(to: shape) ?? []
            let refused = changes.filter(\.isDestructive)
            guard refused.isEmpty else { throw StorageError.incompatibleSchema(refused) }

            for sql in [
                """
                CREATE TABLE IF NOT EXISTS \(DeltaJournal.table.quotedSQLIdentifier) (
                  "position" bigserial PRIMARY KEY, "model" text NOT NULL, "changedAt" bigint NOT NULL,
                  "expiresAt" bigint NOT NULL, "item" text NOT NULL)
                """,
                "CREATE INDEX IF NOT EXISTS \"_stratus_delta_model\" ON "
                    + "\(DeltaJournal.table.quotedSQLIdentifier) (\"model\", \"position\")",
                "CREATE INDEX IF NOT EXISTS \"_stratus_delta_expiry\" ON "
                    + "\(DeltaJournal.table.quotedSQLIdentifier) (\"expiresAt\")",
                """
                CREATE TABLE IF NOT EXISTS \(SQLiteItemStore.idempotencyTable.quotedSQLIdentifier) (
                  "scope" text NOT NULL, "key" text NOT NULL, "digest" text NOT NULL, "status" bigint,
                  "body" bytea, "expiresAt" bigint NOT NULL, PRIMARY KEY ("scope", "key"))
                """,
                "CREATE INDEX IF NOT EXISTS \"_stratus_idempotency_expiry\" ON "
                    + "\(SQLiteItemStore.idempotencyTable.quotedSQLIdentifier) (\"expiresAt\")",
                """
                CREATE TABLE IF NOT EXISTS \(eventsTable.quotedSQLIdentifier) (
                  "sequence" bigserial PRIMARY KEY, "model" text NOT NULL, "kind" text NOT NULL,
                  "item" text NOT NULL, "selected" text, "createdAt" bigint NOT NULL)
                """,
                // Tables made before events recorded their transaction get the column; the events
                // already there get the migration's id, below the horizon of every reader after it.
                "ALTER TABLE \(eventsTable.quotedSQLIdentifier) ADD COLUMN IF NOT EXISTS \"xid\" xid8 NOT NULL "
                    + "DEFAULT pg_current_xact_id()",
                // The run that recorded a key: another server's run of the same key is refused.
                "ALTER TABLE \(SQLiteItemStore.idempotencyTable.quotedSQLIdentifier) ADD COLUMN IF NOT EXISTS \"run\" text",
                "CREATE INDEX IF NOT EXISTS \"_stratus_events_xid\" ON \(eventsTable.quotedSQLIdentifier) "
                    + "(\"xid\", \"sequence\")",
                "CREATE INDEX IF NOT EXISTS \"_stratus_events_created\" ON \(eventsTable.quotedSQLIdentifier) (\"createdAt\")",
            ] {
                _ = try await run(sql)
            }

            for model in schema.models {
                let layout = layouts[model.name]!
                var existing = PostgresStatement()
                let tableName = existing.bind(model.name)
                let columns = try await run(
                    "SELECT column_name::text FROM information_schema.columns "
                        + "WHERE table_schema = current_schema() AND table_name = \(tableName)",
                    existing
                ).map { try $0.decode(String.self) }
                guard !columns.isEmpty else {
                    _ = try await run(layout.postgresCreateTableSQL)
                    continue
                }
                for column in layout.columns where !columns.contains(column.name) {
                    // Existing items take the field's @default, if it has one.
                    var defaultClause = ""
                    if let field = layout.model.field(named: column.name),
                        let value = try DefaultValue.of(field, in: layout.model.name, schema: schema)
                    {
                        defaultClause = " DEFAULT " + TableLayout.postgresLiteral(value, storage: column.storage)
                    }
                    _ = try await run(
                        "ALTER TABLE \(layout.table) ADD COLUMN \(column.quotedName) "
                            + "\(TableLayout.postgresType(column.storage))\(defaultClause)"
                    )
                }
            }
            // Indexes whose definition changed or that the schema no longer declares go first.
            for change in changes {
                switch change.kind {
                case .indexChanged(_, let index), .indexRemoved(_, let index):
                    _ = try await run("DROP INDEX IF EXISTS \(index.quotedSQLIdentifier)")
                default:
                    break
                }
            }
            for model in schema.models {
                for index in layouts[model.name]!.indexes(in: schema) {
                    _ = try await run(index.sql)
                }
            }

            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            var record = PostgresStatement()
            let key = record.bind("storedShape")
            let value = record.bind(bytes: Array(try encoder.encode(shape)))
            _ = try await run(
                "INSERT INTO \(SQLiteItemStore.metaTable.quotedSQLIdentifier) (\"key\", \"value\") "
                    + "VALUES (\(key), \(value)) ON CONFLICT (\"key\") DO UPDATE SET \"value\" = EXCLUDED.\"value\"",
                record
            )

            var secretStatement = PostgresStatement()
            let secretKey = secretStatement.bind("tokenSecret")
            var generator = SystemRandomNumberGenerator()
            let candidate = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            let candidateMark = secretStatement.bind(bytes: candidate)
            _ = try await run(
                "INSERT INTO \(SQLiteItemStore.metaTable.quotedSQLIdentifier) (\"key\", \"value\") "
                    + "VALUES (\(secretKey), \(candidateMark)) ON CONFLICT (\"key\") DO NOTHING",
                secretStatement
            )
            var readSecret = PostgresStatement()
            let readKey = readSecret.bind("tokenSecret")
            guard
                let stored = try await run(
                    "SELECT \"value\" FROM \(SQLiteItemStore.metaTable.quotedSQLIdentifier) WHERE \"key\" = \(readKey)",
                    readSecret
                ).first
            else { throw StorageError.corrupt("the token secret was not stored") }
            let secret = Array(try stored.decode(ByteBuffer.self).readableBytesView)

            // The horizon, or just above the last event when that is lower: after an immediate
            // restart PostgreSQL hands out again the ids of transactions that ended without
            // reaching the disk, which may lie below a horizon read before the restart.
            let start = try await run(
                "SELECT LEAST(pg_snapshot_xmin(pg_current_snapshot()), "
                    + "(SELECT (max(\"xid\")::text::numeric + 1)::text::xid8 FROM \(eventsTable.quotedSQLIdentifier)))::text"
            ).first?.decode(String.self)
            guard let start else { throw StorageError.corrupt("the transaction horizon could not be read") }
            return (changes, secret, start)
        }
    }

    private func layout(_ model: String) throws(StorageError) -> TableLayout {
        guard let layout = layouts[model] else { throw StorageError.unknownModel(model) }
        return layout
    }

    // MARK: - Reads

    /// Runs `sql` on a connection of the pool and returns its rows.
    private func rows(_ sql: String, _ statement: PostgresStatement) async throws(StorageError) -> [PostgresRow] {
        do {
            return try await client.answeredRows(statement.query(sql), logger: logger)
        } catch {
            throw StorageError.postgres(error)
        }
    }

    /// The key condition of `layout`'s primary key, bound in `statement`.
    private static func keyCondition(_ layout: TableLayout, key: [JSON], _ statement: inout PostgresStatement) -> String
    {
        zip(layout.model.primaryKey, key).map { name, value in
            "\(name.quotedSQLIdentifier) = \(statement.bind(value, storage: layout.column(named: name)?.storage ?? .text))"
        }.joined(separator: " AND ")
    }

    private static func notExpired(_ now: Int, _ statement: inout PostgresStatement) -> String {
        let column = TableLayout.quotedExpiryColumn
        return "(\(column) IS NULL OR \(column) > \(statement.bind(now)))"
    }

    private static func selectByKey(_ layout: TableLayout, key: [JSON], now: Int) -> (String, PostgresStatement) {
        var statement = PostgresStatement()
        let condition = keyCondition(layout, key: key, &statement)
        let live = notExpired(now, &statement)
        return ("SELECT \(layout.postgresSelection) FROM \(layout.table) WHERE \(condition) AND \(live)", statement)
    }

    func fetchItem(model: String, key: [JSON], now: Int) async throws -> StoredItem? {
        let layout = try layout(model)
        let (sql, statement) = Self.selectByKey(layout, key: key, now: now)
        return try await rows(sql, statement).first.map { row throws(StorageError) in try layout.item(fromPostgres: row)
        }
    }

    func fetchPage(_ query: PageQuery) async throws -> ItemPage {
        let layout = try layout(query.model)
        let compiler = PostgresPredicateCompiler(layout: layout)
        var statement = PostgresStatement()
        let filter = try compiler.compile(query.filter ?? .always, into: &statement)
        let key = try compiler.compile(query.keyCondition, into: &statement)
        var sql =
            "SELECT \(layout.postgresSelection), COALESCE(\(filter), FALSE) FROM \(layout.table) WHERE (\(key)) AND "
            + Self.notExpired(query.now, &statement)
        let orderColumns = query.order.map(\.quotedSQLIdentifier)
        if let after = query.after {
            guard after.count == query.order.count else { throw StorageError.corrupt("a page key of the wrong size") }
            let marks = zip(query.order, after).map { name, value in
                statement.bind(value, storage: layout.column(named: name)?.storage ?? .text)
            }
            sql +=
                " AND (\(orderColumns.joined(separator: ", "))) \(query.descending ? "<" : ">") "
                + "(\(marks.joined(separator: ", ")))"
        }
        let direction = query.descending ? "DESC" : "ASC"
        sql += " ORDER BY " + orderColumns.map { "\($0) \(direction)" }.joined(separator: ", ")
        sql += " LIMIT \(statement.bind(query.limit + 1))"
        pageReads.add(1, ordering: .relaxed)
        let rows = try await rows(sql, statement)
        var items: [StoredItem] = []
        var lastItem: StoredItem?
        let matchIndex = layout.columns.count
        for row in rows.prefix(query.limit) {
            let item = try layout.item(fromPostgres: row)
            lastItem = item
            if try row.makeRandomAccess()[matchIndex].decode(Bool.self) { items.append(item) }
        }
        let lastKey =
            rows.count > query.limit ? lastItem.map { item in query.order.map { item.values[$0] ?? .null } } : nil
        return ItemPage(items: items, lastKey: lastKey)
    }

    /// The changes since `query.since`, filtered in memory as ``SQLiteItemStore`` filters them.
    func fetchChanges(_ query: ChangeQuery) async throws -> ChangePage {
        let layout = try layout(query.model)
        if let filter = query.filter {
            // Refuses fields the model does not store, as a filter on the table does.
            var unused = PostgresStatement()
            _ = try PostgresPredicateCompiler(layout: layout).compile(filter, into: &unused)
        }
        var statement = PostgresStatement()
        var sql =
            "SELECT \"position\", \"item\" FROM \(DeltaJournal.table.quotedSQLIdentifier) "
            + "WHERE \"model\" = \(statement.bind(query.model)) AND \"changedAt\" >= \(statement.bind(query.since)) "
            + "AND \"expiresAt\" > \(statement.bind(query.now))"
        if let after = query.afterPosition {
            sql += " AND \"position\" > \(statement.bind(after))"
        }
        sql += " ORDER BY \"position\" LIMIT \(statement.bind(query.limit + 1))"
        let rows = try await rows(sql, statement)
        var items: [StoredItem] = []
        var lastPosition: Int?
        for row in rows.prefix(query.limit) {
            let (position, text) = try row.decode((Int64, String).self)
            lastPosition = Int(position)
            let item = try DeltaJournal.item(text, layout: layout, position: Int(position))
            if query.filter?.evaluate(item) ?? true { items.append(item) }
        }
        return ChangePage(items: items, lastPosition: rows.count > query.limit ? lastPosition : nil)
    }

    // MARK: - Writes

    func write(_ write: ItemWrite) async throws -> WriteOutcome {
        let layout = try layout(write.model)
        try await purgeIfDue(now: write.now)
        do {
            return try await client.answeredTransaction(logger: logger) { connection in
                try await Self.perform(write, layout: layout, on: connection, logger: self.logger)
            }
        } catch {
            throw StorageError.postgres(error)
        }
    }

    func write(batch writes: [ItemWrite]) async throws -> BatchWriteOutcome {
        guard let first = writes.first else { return .written }
        let prepared = try writes.map { ($0, try layout($0.model)) }
        try await purgeIfDue(now: first.now)
        // Every item's lock first, in sorted order, so that two batches never wait for each other
        // in a circle; each write takes its own again, which a transaction already holding it
        // gets at once.
        let lockNames = Set(writes.map(\.lockName)).sorted()
        do {
            try await client.answeredTransaction(logger: logger) { connection in
                for name in lockNames {
                    var lock = PostgresStatement()
                    let mark = lock.bind(name)
                    _ = try await connection.answeredRows(
                        lock.query("SELECT pg_advisory_xact_lock(hashtextextended(\(mark), 0))"),
                        logger: self.logger
                    )
                }
                for (index, (write, layout)) in prepared.enumerated() {
                    let outcome = try await Self.perform(write, layout: layout, on: connection, logger: self.logger)
                    if outcome != .written { throw BatchRefusal(index: index, outcome: outcome) }
                }
            }
            return .written
        } catch let error as PostgresTransactionFailure {
            if error.step == .body, let refusal = error.error as? BatchRefusal, error.rollbackError == nil {
                return .refused(index: refusal.index, outcome: refusal.outcome)
            }
            throw StorageError.postgres(error)
        } catch {
            throw StorageError.postgres(error)
        }
    }

    /// Removes expired tombstones, journal entries, keys and events, once a minute at most.
    private func purgeIfDue(now: Int) async throws(StorageError) {
        let due = lastPurge.withLock { last in
            guard now - last >= 60_000 else { return false }
            last = now
            return true
        }
        guard due else { return }
        for layout in layouts.values {
            var statement = PostgresStatement()
            let mark = statement.bind(now)
            _ = try await rows(
                "DELETE FROM \(layout.table) WHERE \(TableLayout.quotedExpiryColumn) <= \(mark)",
                statement
            )
        }
        for (table, column, cutoff) in [
            (DeltaJournal.table, "expiresAt", now),
            (SQLiteItemStore.idempotencyTable, "expiresAt", now),
            (Self.eventsTable, "createdAt", now - Self.eventRetention),
        ] {
            var statement = PostgresStatement()
            let mark = statement.bind(cutoff)
            _ = try await rows("DELETE FROM \(table.quotedSQLIdentifier) WHERE \"\(column)\" <= \(mark)", statement)
        }
    }

    /// The stored item's name in the read of ``perform(_:layout:on:logger:)``.
    private static let itemAlias = "\"_stratus_item\""

    /// Writes in three round trips besides `BEGIN` and `COMMIT`: the item's lock; one read of
    /// the stored item, the condition and the `Idempotency-Key`; and one statement that writes
    /// the item, its journal entry, the key and the announcement together.
    private static func perform(
        _ write: ItemWrite,
        layout: TableLayout,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws -> WriteOutcome {
        func run(_ sql: String, _ statement: PostgresStatement) async throws -> [PostgresRow] {
            try await connection.answeredRows(statement.query(sql), logger: logger)
        }
        // One writer per item at a time, across every instance: the check and the write are one
        // step. The lock is its own statement, so that the read after it sees the last commit.
        var lock = PostgresStatement()
        let lockName = lock.bind(write.lockName)
        _ = try await run("SELECT pg_advisory_xact_lock(hashtextextended(\(lockName), 0))", lock)

        // One read after the lock: the item (an expired tombstone does not exist: the read
        // leaves it out, and a put replaces it), whether the condition holds of it, and the run
        // that recorded the write's `Idempotency-Key`. Joined to a row of its own, the read has
        // one row when the item is absent too, with the item's columns null: the condition is
        // evaluated as of an absent item.
        var read = PostgresStatement()
        let present = "\(itemAlias).\(layout.model.primaryKey[0].quotedSQLIdentifier) IS NOT NULL"
        var selection = [layout.postgresSelection, present]
        if let condition = write.condition {
            let expression = try PostgresPredicateCompiler(layout: layout).compile(condition, into: &read)
            selection.append("COALESCE(\(expression), FALSE)")
        }
        if let claim = write.idempotency {
            // A request sent again while its first run was under way on another server (the
            // client gave up waiting) found no key then: once the first run wrote, this one must
            // not. The item's lock orders them, so the first run's key is committed by now.
            let table = SQLiteItemStore.idempotencyTable.quotedSQLIdentifier
            selection.append(
                "(SELECT coalesce(\(table).\"run\", '') FROM \(table) WHERE \(table).\"scope\" = \(read.bind(claim.scope)) "
                    + "AND \(table).\"key\" = \(read.bind(claim.key)) AND \(table).\"expiresAt\" > \(read.bind(write.now)))"
            )
        }
        let joined =
            "SELECT \(selection.joined(separator: ", ")) FROM (SELECT 1 AS \"_stratus_one\") AS \"_stratus_one\" "
            + "LEFT JOIN \(layout.table) AS \(itemAlias) ON \(keyCondition(layout, key: write.key, &read)) "
            + "AND \(notExpired(write.now, &read))"
        guard let row = try await run(joined, read).first else {
            throw StorageError.corrupt("the read of the item to write answered no row")
        }
        let cells = row.makeRandomAccess()
        var position = layout.columns.count
        let current = try cells[position].decode(Bool.self) ? try layout.item(fromPostgres: row) : nil
        position += 1
        let holds = try write.condition.map { _ in try cells[position].decode(Bool.self) }
        if write.condition != nil { position += 1 }
        if let claim = write.idempotency, let other = try cells[position].decode(String?.self), other != claim.run {
            throw IdempotencyKeyRunElsewhere(key: claim.key)
        }

        switch (write.expectation, current) {
        case (.absent, .some): return .exists
        case (.present, .none): return .missing
        default: break
        }
        if holds == false { return .conditionFailed }
        if case .present(let version?) = write.expectation, let current, current.version != version {
            return .stale(current)
        }

        // Data-modifying WITH clauses run exactly once each, in the one statement.
        var statement = PostgresStatement()
        var clauses: [String] = []
        switch write.action {
        case .put(let item):
            let values = zip(layout.columns, layout.postgresValues(of: item, expiresAt: write.expiresAt)).map {
                column,
                value in
                let mark = statement.bind(value, storage: column.storage)
                if case .json = column.storage { return mark + "::json" }
                return mark
            }
            let key = layout.model.primaryKey.map(\.quotedSQLIdentifier).joined(separator: ", ")
            let updates = layout.columns.filter { !layout.model.primaryKey.contains($0.name) }.map {
                "\($0.quotedName) = EXCLUDED.\($0.quotedName)"
            }
            clauses.append(
                "\"_put\" AS (INSERT INTO \(layout.table) (\(layout.columns.map(\.quotedName).joined(separator: ", "))) "
                    + "VALUES (\(values.joined(separator: ", "))) ON CONFLICT (\(key)) "
                    + (updates.isEmpty ? "DO NOTHING)" : "DO UPDATE SET \(updates.joined(separator: ", ")))")
            )
            if let journalExpiresAt = write.journalExpiresAt {
                let marks = [
                    statement.bind(layout.model.name), statement.bind(item.lastChangedAt ?? write.now),
                    statement.bind(journalExpiresAt), statement.bind(DeltaJournal.text(of: item)),
                ]
                clauses.append(
                    "\"_journal\" AS (INSERT INTO \(DeltaJournal.table.quotedSQLIdentifier) "
                        + "(\"model\", \"changedAt\", \"expiresAt\", \"item\") VALUES (\(marks.joined(separator: ", "))))"
                )
            }
        case .remove:
            let condition = keyCondition(layout, key: write.key, &statement)
            clauses.append("\"_remove\" AS (DELETE FROM \(layout.table) WHERE \(condition))")
        }
        if let claim = write.idempotency {
            // A use of the key that expired is replaced; a live one stays as it is.
            let table = SQLiteItemStore.idempotencyTable.quotedSQLIdentifier
            let marks = [
                statement.bind(claim.scope), statement.bind(claim.key), statement.bind(claim.digest),
                statement.bind(claim.expiresAt), statement.bind(claim.run),
            ]
            clauses.append(
                "\"_key\" AS (INSERT INTO \(table) (\"scope\", \"key\", \"digest\", \"expiresAt\", \"run\") "
                    + "VALUES (\(marks.joined(separator: ", "))) ON CONFLICT (\"scope\", \"key\") DO UPDATE SET "
                    + "\"digest\" = EXCLUDED.\"digest\", \"status\" = NULL, \"body\" = NULL, "
                    + "\"expiresAt\" = EXCLUDED.\"expiresAt\", \"run\" = EXCLUDED.\"run\" "
                    + "WHERE \(table).\"expiresAt\" <= \(statement.bind(write.now)))"
            )
        }
        var final = "SELECT 1"
        if let announcement = write.announcement {
            // The event records the transaction's id (the column's default): readers deliver it
            // once every transaction with a lower id has ended.
            let selected = announcement.selectedFields.map { JSON.array($0.sorted().map(JSON.string)).text }
            let marks = [
                statement.bind(layout.model.name), statement.bind(announcement.kind.rawValue),
                statement.bind(DeltaJournal.text(of: announcement.item)),
                selected.map { statement.bind($0) } ?? "NULL::text", statement.bind(write.now),
            ]
            clauses.append(
                "\"_event\" AS (INSERT INTO \(eventsTable.quotedSQLIdentifier) "
                    + "(\"model\", \"kind\", \"item\", \"selected\", \"createdAt\") "
                    + "VALUES (\(marks.joined(separator: ", "))) RETURNING \"sequence\")"
            )
            final = "SELECT pg_notify(\(statement.bind(Self.channel)), \"sequence\"::text) FROM \"_event\""
        }
        _ = try await run("WITH " + clauses.joined(separator: ", ") + " " + final, statement)
        return .written
    }

    // MARK: - Idempotency

    /// A write of a mutation whose `Idempotency-Key` another run of the same request recorded
    /// (on another server): the transaction rolls back, and the request fails as an internal
    /// failure, which clients send again; the repeat is answered the first run's response.
    struct IdempotencyKeyRunElsewhere: Error, CustomStringConvertible {
        let key: String

        var description: String {
            "The mutation with the Idempotency-Key '\(key)' was applied by another run of the same request "
                + "(sent again while the first ran, to another server): this run writes nothing."
        }
    }

    func idempotencyRecord(scope: String, key: String, now: Int) async throws -> IdempotencyRecord? {
        var statement = PostgresStatement()
        let sql =
            "SELECT \"digest\", \"status\", \"body\" FROM \(SQLiteItemStore.idempotencyTable.quotedSQLIdentifier) "
            + "WHERE \"scope\" = \(statement.bind(scope)) AND \"key\" = \(statement.bind(key)) "
            + "AND \"expiresAt\" > \(statement.bind(now))"
        guard let row = try await rows(sql, statement).first else { return nil }
        let (digest, status, body) = try row.decode((String, Int64?, ByteBuffer?).self)
        guard let status else { return IdempotencyRecord(digest: digest, response: nil) }
        guard let body else {
            throw StorageError.corrupt("the Idempotency-Key '\(key)' has a status and no response body")
        }
        return IdempotencyRecord(
            digest: digest,
            response: .init(status: Int(status), body: Array(body.readableBytesView))
        )
    }

    func recordResponse(_ response: IdempotencyRecord.Response, for claim: IdempotencyClaim, now: Int) async throws {
        var purge = PostgresStatement()
        let cutoff = purge.bind(now)
        _ = try await rows(
            "DELETE FROM \(SQLiteItemStore.idempotencyTable.quotedSQLIdentifier) WHERE \"expiresAt\" <= \(cutoff)",
            purge
        )
        var statement = PostgresStatement()
        let marks = [
            statement.bind(claim.scope), statement.bind(claim.key), statement.bind(claim.digest),
            statement.bind(response.status), statement.bind(bytes: response.body), statement.bind(claim.expiresAt),
        ]
        let table = SQLiteItemStore.idempotencyTable.quotedSQLIdentifier
        _ = try await rows(
            "INSERT INTO \(table) (\"scope\", \"key\", \"digest\", \"status\", \"body\", \"expiresAt\") "
                + "VALUES (\(marks.joined(separator: ", "))) ON CONFLICT (\"scope\", \"key\") DO UPDATE SET "
                + "\"status\" = EXCLUDED.\"status\", \"body\" = EXCLUDED.\"body\", "
                + "\"expiresAt\" = EXCLUDED.\"expiresAt\" WHERE \(table).\"status\" IS NULL",
            statement
        )
    }

    func sharedSetting(_ name: String, proposing proposed: String) async throws -> String {
        let table = SQLiteItemStore.metaTable.quotedSQLIdentifier
        var insert = PostgresStatement()
        let key = insert.bind("setting:" + name)
        let value = insert.bind(bytes: Array(proposed.utf8))
        _ = try await rows(
            "INSERT INTO \(table) (\"key\", \"value\") VALUES (\(key), \(value)) ON CONFLICT (\"key\") DO NOTHING",
            insert
        )
        var select = PostgresStatement()
        let selectKey = select.bind("setting:" + name)
        guard let row = try await rows("SELECT \"value\" FROM \(table) WHERE \"key\" = \(selectKey)", select).first,
            let text = String(validating: try row.decode(ByteBuffer.self).readableBytesView, as: UTF8.self)
        else { throw StorageError.corrupt("the setting '\(name)' is not text") }
        return text
    }

    func checkHealth() async throws {
        _ = try await rows("SELECT 1", PostgresStatement())
    }

    // MARK: - Announcements

    var announcementsProblem: String? {
        guard feed.withLock({ $0 != nil }) else { return nil }
        return listener.isListening
            ? nil
            : "The connection that listens for other instances' writes is not listening to PostgreSQL; it is "
                + "connecting again."
    }

    func startAnnouncements(
        _ deliver: @escaping @Sendable (String, WriteAnnouncement) -> Void,
        published: @escaping @Sendable (PublishedResult) -> Void
    ) {
        let reader = EventReader(
            client: client,
            logger: logger,
            layouts: layouts,
            from: firstTransaction,
            deliver: deliver,
            published: published
        )
        let task = Task { [location, logger, listener] in
            await withTaskGroup(of: Void.self) { group in
                // Notifications make delivery prompt; the poll makes it certain, whatever becomes
                // of the listening connection.
                group.addTask {
                    await Self.listen(location: location, logger: logger, reader: reader, state: listener)
                }
                group.addTask {
                    while !Task.isCancelled {
                        // A read that fails is tried again at the next poll: the events wait in their table.
                        // The sleep ends early only when the loop is cancelled.
                        try? await reader.catchUp()
                        try? await Task.sleep(for: Self.pollInterval)
                    }
                }
            }
        }
        feed.withLock { $0 = task }
    }

    /// Appends `published` to the events, as a write's announcement is, and announces it: every
    /// server's reader delivers it with the writes.
    func announce(_ published: PublishedResult, now: Int) async throws {
        var statement = PostgresStatement()
        let marks = [
            statement.bind(published.mutation), statement.bind(Self.publishedKind),
            statement.bind(JSON.object(published.result).text), "NULL::text", statement.bind(now),
        ]
        let sql =
            "WITH \"_event\" AS (INSERT INTO \(Self.eventsTable.quotedSQLIdentifier) "
            + "(\"model\", \"kind\", \"item\", \"selected\", \"createdAt\") "
            + "VALUES (\(marks.joined(separator: ", "))) RETURNING \"sequence\") "
            + "SELECT pg_notify(\(statement.bind(Self.channel)), \"sequence\"::text) FROM \"_event\""
        _ = try await rows(sql, statement)
    }

    /// How often the events are read without a notification.
    static let pollInterval = Duration.seconds(1)

    /// Listens for announcements on a connection of its own (outside the pool, so that a
    /// connection lost while listening never holds a pooled one) and has `reader` catch up on
    /// each, until cancelled; after a lost connection it connects again, waiting up to 2 s.
    private static func listen(
        location: PostgresLocation,
        logger: Logger,
        reader: EventReader,
        state: ListenerState
    ) async {
        var delay = Duration.milliseconds(50)
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: try location.connectionConfiguration(),
                    id: 0,
                    logger: logger
                )
                do {
                    try await withTaskCancellationHandler {
                        try await connection.listen(on: channel) { notifications in
                            // Listening first: an event committed from here on is either read now
                            // or announced.
                            state.listening.store(true, ordering: .relaxed)
                            defer { state.listening.store(false, ordering: .relaxed) }
                            try await reader.catchUp()
                            delay = .milliseconds(50)
                            for try await _ in notifications {
                                try await reader.catchUp()
                            }
                        }
                    } onCancel: {
                        let closing: EventLoopFuture<Void> = connection.close()
                        _ = closing
                    }
                } catch {}
                // The connection is dropped after a failure or a cancellation; failing to close it changes nothing.
                try? await connection.close()
            } catch {}
            if Task.isCancelled { return }
            // Cancelled, the sleep ends early and the loop stops.
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(2))
        }
    }
}

/// Whether ``PostgresItemStore``'s listening connection listens, for readiness checks.
final class ListenerState: Sendable {
    let listening = Atomic<Bool>(false)
    var isListening: Bool { listening.load(ordering: .relaxed) }
}

/// Reads the events of the transactions that ended since the last read, in transaction id order,
/// one reader at a time: the notifications and the poll of ``PostgresItemStore`` share it.
private actor EventReader {
    private let client: PostgresClient
    private let logger: Logger
    private let layouts: [String: TableLayout]
    private let deliver: @Sendable (String, WriteAnnouncement) -> Void
    private let published: @Sendable (PublishedResult) -> Void
    /// Each read's events at debug level (`--log-level journal=debug`): which events a server
    /// delivered, in what order, from which transactions.
    private let journalLog = LogLevels.logger("journal", otherwise: .info)
    /// Where the next read starts: after the last event delivered, or from the store's first
    /// transaction id (sequence 0) before any was. Not the last read's horizon: an immediate
    /// restart of PostgreSQL hands out again the ids of transactions that ended without reaching
    /// the disk, and a horizon read before it may lie above them. The last event delivered was
    /// committed, so its id is below every id handed out after a restart.
    private var position: (xid: String, sequence: Int64)
    /// A catch-up is under way: a call meanwhile asks it to read once more instead of reading
    /// the same events beside it (an actor's calls interleave at each `await`).
    private var reading = false
    private var readAgain = false

    init(
        client: PostgresClient,
        logger: Logger,
        layouts: [String: TableLayout],
        from firstTransaction: String,
        deliver: @escaping @Sendable (String, WriteAnnouncement) -> Void,
        published: @escaping @Sendable (PublishedResult) -> Void
    ) {
        self.client = client
        self.logger = logger
        self.layouts = layouts
        self.position = (firstTransaction, 0)
        self.deliver = deliver
        self.published = published
    }

    /// Delivers the events of the transactions that ended since the last read, each once.
    func catchUp() async throws {
        guard !reading else {
            readAgain = true
            return
        }
        reading = true
        defer { reading = false }
        repeat {
            readAgain = false
            try await readAll()
        } while readAgain
    }

    private func readAll() async throws {
        // Every transaction below the new horizon has ended: a later statement sees all their
        // events, and no event below it can appear any more.
        // With the time PostgreSQL started: a horizon read before a crash may lie above the ids
        // it hands out again after, so the events are read only while it has not restarted.
        let read = try await client.answeredRows(
            "SELECT pg_snapshot_xmin(pg_current_snapshot())::text, pg_postmaster_start_time()::text",
            logger: logger
        )
        guard let (next, started) = try read.first?.decode((String, String).self) else {
            throw StorageError.corrupt("the transaction horizon could not be read")
        }
        // The events from the last one delivered to the new horizon, by transaction and sequence,
        // a page at a time: `after` is the last one delivered. Those of transactions between it
        // and the last horizon were all read already, unless PostgreSQL restarted and handed out
        // their ids again.
        var after = position
        defer { position = after }
        while true {
            var statement = PostgresStatement()
            // The id's text has a name of its own: named "xid", it is what ORDER BY "xid" would
            // sort, as text, which puts transaction 1002 before 967.
            let sql =
                "SELECT \"sequence\", \"model\", \"kind\", \"item\", \"selected\", \"createdAt\", "
                + "\"xid\"::text AS \"transaction\" FROM "
                + "\(PostgresItemStore.eventsTable.quotedSQLIdentifier) "
                + "WHERE (\"xid\", \"sequence\") > (\(statement.bind(after.xid))::xid8, \(statement.bind(Int(after.sequence)))) "
                + "AND \"xid\" < \(statement.bind(next))::xid8 "
                + "AND pg_postmaster_start_time()::text = \(statement.bind(started)) "
                + "ORDER BY \"xid\", \"sequence\" LIMIT 1000"
            let rows = try await client.answeredRows(statement.query(sql), logger: logger)
            let start = after
            var read: [String] = []
            defer {
                if !read.isEmpty {
                    journalLog.debug(
                        "read after \(start.xid)/\(start.sequence) below \(next): \(read.joined(separator: ", "))"
                    )
                }
            }
            let describes = journalLog.logLevel <= .debug
            for row in rows {
                let (sequence, model, kind, text, selected, createdAt, xid) = try row.decode(
                    (Int64, String, String, String, String?, Int64, String).self
                )
                after = (xid, sequence)
                if describes { read.append("\(xid)/\(sequence) \(model) \(kind)") }
                if kind == PostgresItemStore.publishedKind {
                    guard case .object(let result) = try JSON(parsing: text) else {
                        throw StorageError.corrupt("the event \(sequence) has a result that is not an object")
                    }
                    published(PublishedResult(mutation: model, result: result))
                    continue
                }
                guard let layout = layouts[model], let kind = WriteEvent.Kind(rawValue: kind) else { continue }
                let item = try DeltaJournal.item(text, layout: layout, position: Int(sequence))
                if describes {
                    let key = layout.model.primaryKey.map { item.values[$0]?.text ?? "null" }.joined(separator: ",")
                    read[read.count - 1] += " \(key) v\(item.version.map(String.init) ?? "-")"
                }
                let fields = try selected.map { text -> Set<String> in
                    guard case .array(let names) = try JSON(parsing: text) else {
                        throw StorageError.corrupt("the event \(sequence) has selected fields that are not a list")
                    }
                    return Set(names.compactMap(\.stringValue))
                }
                deliver(
                    model,
                    WriteAnnouncement(kind: kind, item: item, selectedFields: fields, committedAt: Int(createdAt))
                )
            }
            if rows.count < 1000 { break }
        }
    }
}

/// A database that could not be reached or opened.
struct PostgresUnreachable: Error, CustomStringConvertible {
    var location: PostgresLocation
    var failure: StorageError
    /// How long opening waited for the database to accept connections, when it waited.
    var waited: Duration? = nil

    var description: String {
        guard let waited else {
            return "The PostgreSQL database \(location) cannot be opened (\(failure)). "
                + "Check that the server runs, that the URL's user, host, port and database are right, "
                + "and that the user may create tables there."
        }
        return "The PostgreSQL database \(location) did not accept connections within \(waited) (\(failure)). "
            + "Check that the server runs and that the URL's host and port are right, or wait longer for it "
            + "(--database-wait)."
    }
}

extension TableLayout {
    /// The column values of an item, in ``columns`` order, as JSON.
    func postgresValues(of item: StoredItem, expiresAt: Int?) -> [JSON] {
        fieldColumns.map { item.values[$0.name] ?? .null } + [
            item.version.map(JSON.int) ?? .null,
            item.deleted.map(JSON.bool) ?? .null,
            item.lastChangedAt.map(JSON.int) ?? .null,
            expiresAt.map(JSON.int) ?? .null,
        ]
    }
}
