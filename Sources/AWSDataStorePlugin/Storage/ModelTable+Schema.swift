import GRDB

extension ModelTable {
    /// The column's definition in `CREATE TABLE`: `"rating" INTEGER NOT NULL`.
    func definition(of column: ModelColumn) -> String {
        var definition = "\(column.name.quotedIdentifier) \(column.kind.sqlType)"
        if column.isRequired { definition += " NOT NULL" }
        if column.kind == .boolean { definition += " CHECK (\(column.name.quotedIdentifier) IN (0, 1))" }
        return definition
    }

    /// `CREATE TABLE` for this table, named `tableName` (the model's name by default).
    ///
    /// The table is `STRICT`, so that every column holds values of its type only. Foreign keys
    /// are checked when a transaction commits, so that a cascade can delete children and parent
    /// in any order within it.
    ///
    /// ```sql
    /// CREATE TABLE "Comment" (
    ///   "id" TEXT NOT NULL,
    ///   "content" TEXT NOT NULL,
    ///   "postCommentsId" TEXT,
    ///   PRIMARY KEY ("id"),
    ///   FOREIGN KEY ("postCommentsId") REFERENCES "Post" ("id") DEFERRABLE INITIALLY DEFERRED
    /// ) STRICT
    /// ```
    func createTableSQL(named tableName: String? = nil) -> String {
        var lines = columns.map(definition(of:))
        lines.append("PRIMARY KEY (\(primaryKey.map(\.quotedIdentifier).joined(separator: ", ")))")
        for foreignKey in foreignKeys {
            lines.append(
                "FOREIGN KEY (\(foreignKey.columns.map(\.quotedIdentifier).joined(separator: ", "))) "
                    + "REFERENCES \(foreignKey.parentTable.quotedIdentifier) "
                    + "(\(foreignKey.parentColumns.map(\.quotedIdentifier).joined(separator: ", "))) "
                    + "DEFERRABLE INITIALLY DEFERRED"
            )
        }
        return "CREATE TABLE \((tableName ?? name).quotedIdentifier) (\n  "
            + lines.joined(separator: ",\n  ") + "\n) STRICT"
    }

    /// `CREATE INDEX` for `index`.
    func createIndexSQL(_ index: TableIndex) -> String {
        "CREATE INDEX \(index.sqlName(table: name).quotedIdentifier) ON \(name.quotedIdentifier) "
            + "(\(index.columns.map(\.quotedIdentifier).joined(separator: ", ")))"
    }

    /// Creates the table and its indexes.
    func create(_ db: Database) throws {
        try db.execute(sql: createTableSQL())
        for index in indexes {
            try db.execute(sql: createIndexSQL(index))
        }
    }
}
