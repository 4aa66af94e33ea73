import Amplify

/// The table that stores one model: its columns, keys, indexes and relations, worked out once
/// from the model's schema.
///
/// Every stored field is a column named after the field. Relations have no column of their own:
/// a belongsTo or hasOne field is stored as its foreign-key columns (its `targetNames`), and a
/// hasMany field is found through the children's foreign keys.
struct ModelTable: Sendable {
    /// The model's schema.
    let schema: ModelSchema
    /// The table's columns, in the schema's field order.
    let columns: [ModelColumn]
    /// Column positions by name.
    let columnIndex: [String: Int]
    /// The primary-key column names, in key order.
    let primaryKey: [String]
    /// Secondary indexes, `@index` ones first, then one per foreign key no index covers.
    let indexes: [TableIndex]
    /// Foreign keys to the parents of belongsTo relations.
    let foreignKeys: [TableForeignKey]
    /// The foreign-key columns of each belongsTo or hasOne field, by field name.
    let associations: [String: [String]]
    /// The relations whose records go when a record of this table goes: hasMany and hasOne
    /// children, set by ``ModelCatalog``.
    var children: [ChildRelation] = []
    /// The statements every save, read and delete uses.
    let statements: TableStatements
    /// Column positions in the order of their names: the key order of the JSON a record is
    /// written as.
    let jsonOrder: [Int]

    /// The table's name: the model's name.
    var name: String { schema.name }

    /// The column named `name`.
    func column(named name: String) -> ModelColumn? {
        columnIndex[name].map { columns[$0] }
    }

    /// Works out the table of `schema`; `schemas` holds every model of the registration.
    ///
    /// - Throws: ``DataStoreError`` naming the model and field when the schema cannot be stored:
    ///   no primary key, a relation to a model that is not registered, two fields whose names
    ///   differ only in case.
    init(schema: ModelSchema, schemas: [String: ModelSchema]) throws(DataStoreError) {
        self.schema = schema
        var associationOfTarget: [String: String] = [:]
        for field in schema.sortedFields where field.type.isAssociation {
            for target in field.association?.targetNames ?? [] { associationOfTarget[target] = field.name }
        }
        var columns: [ModelColumn] = []
        var associations: [String: [String]] = [:]
        var foreignKeys: [TableForeignKey] = []
        for field in schema.sortedFields {
            if let kind = ColumnKind(field.type, isArray: field.isArray) {
                columns.append(
                    ModelColumn(
                        name: field.name,
                        kind: kind,
                        typeName: field.isArray && !field.type.swiftTypeName.hasPrefix("[")
                            ? "[\(field.type.swiftTypeName)]" : field.type.swiftTypeName,
                        isRequired: field.isRequired && !field.isReadOnly,
                        association: associationOfTarget[field.name]
                    )
                )
                continue
            }
            guard case .model(let parentName) = field.type, let association = field.association,
                !association.targetNames.isEmpty
            else { continue }
            guard let parent = schemas[parentName] else {
                throw DataStoreError(
                    .configuration,
                    "\(schema.name).\(field.name) relates to \(parentName), which the model registration does not "
                        + "contain. Regenerate the models with `stratus codegen models` so that AmplifyModels "
                        + "registers \(parentName)."
                )
            }
            let parentKey = parent.primaryKey.fields
            let targets = association.targetNames
            guard targets.count == parentKey.count else {
                throw DataStoreError(
                    .configuration,
                    "\(schema.name).\(field.name) stores \(targets.count) foreign-key field(s) "
                        + "(\(targets.joined(separator: ", "))) but \(parentName) has a primary key of "
                        + "\(parentKey.count) field(s) (\(parentKey.map(\.name).joined(separator: ", "))). "
                        + "Give the relation one field per key field and regenerate the models."
                )
            }
            for (target, keyField) in zip(targets, parentKey) where schema.field(named: target) == nil {
                columns.append(
                    ModelColumn(
                        name: target,
                        kind: ColumnKind(keyField.type, isArray: false) ?? .string,
                        typeName: keyField.type.swiftTypeName,
                        isRequired: field.isRequired && !field.isReadOnly,
                        association: field.name
                    )
                )
            }
            associations[field.name] = targets
            if case .belongsTo = association {
                foreignKeys.append(
                    TableForeignKey(
                        field: field.name,
                        columns: targets,
                        parentTable: parentName,
                        parentColumns: parentKey.map(\.name)
                    )
                )
            }
        }
        var seen: [String: String] = [:]
        for column in columns {
            if let other = seen[column.name.lowercased()] {
                throw DataStoreError(
                    .configuration,
                    "\(schema.name) has the fields '\(other)' and '\(column.name)', whose names differ only in "
                        + "case; SQLite column names ignore case. Rename one of them in the schema."
                )
            }
            seen[column.name.lowercased()] = column.name
        }
        let columnIndex = Dictionary(
            columns.enumerated().map { ($1.name, $0) },
            uniquingKeysWith: { first, _ in first }
        )
        let primaryKey = schema.primaryKey.fields.map(\.name)
        guard !primaryKey.isEmpty, primaryKey.allSatisfy({ columnIndex[$0] != nil }) else {
            throw DataStoreError(
                .configuration,
                "\(schema.name) has no primary key: it needs an `id` field or a `@primaryKey`. "
                    + "Add `id: ID!` to the type and regenerate the models."
            )
        }
        var indexes: [TableIndex] = []
        for (indexName, fields) in schema.indexes {
            let indexColumns = fields.flatMap { associations[$0] ?? [$0] }
            guard indexColumns.allSatisfy({ columnIndex[$0] != nil }) else {
                throw DataStoreError(
                    .configuration,
                    "The index '\(indexName)' of \(schema.name) names fields the model does not store "
                        + "(\(fields.joined(separator: ", "))). Index stored fields and regenerate the models."
                )
            }
            indexes.append(TableIndex(name: indexName, columns: indexColumns))
        }
        for foreignKey in foreignKeys {
            let covered =
                primaryKey.starts(with: foreignKey.columns)
                || indexes.contains { $0.columns.starts(with: foreignKey.columns) }
            if !covered {
                indexes.append(TableIndex(name: "fk_\(foreignKey.field)", columns: foreignKey.columns))
            }
        }
        self.columns = columns
        self.columnIndex = columnIndex
        self.primaryKey = primaryKey
        self.indexes = indexes
        self.foreignKeys = foreignKeys
        self.associations = associations
        self.jsonOrder = columns.indices.sorted { columns[$0].name < columns[$1].name }
        self.statements = TableStatements(table: schema.name, columns: columns.map(\.name), primaryKey: primaryKey)
    }
}

/// A secondary index.
struct TableIndex: Sendable, Hashable {
    /// The index's name in the schema (`byBlog`), or `fk_<field>` for a foreign-key index.
    let name: String
    /// The indexed columns, in order.
    let columns: [String]

    /// The index's name in the database, unique across tables: `Post:byBlog`.
    func sqlName(table: String) -> String { "\(table):\(name)" }
}

/// A foreign key from a belongsTo relation to its parent's primary key.
struct TableForeignKey: Sendable, Hashable {
    /// The belongsTo field.
    let field: String
    /// The child's columns.
    let columns: [String]
    /// The parent model's table.
    let parentTable: String
    /// The parent's primary-key columns.
    let parentColumns: [String]
}

/// The records of `childTable` that belong to a record of the parent table: those whose
/// `childColumns` hold the parent's primary key.
struct ChildRelation: Sendable, Hashable {
    /// The parent's hasMany or hasOne field.
    let field: String
    /// The child model's table.
    let childTable: String
    /// The child's foreign-key columns, in the parent's key order.
    let childColumns: [String]
}

/// The SQL of the statements a table uses for every record, built once.
struct TableStatements: Sendable, Hashable {
    /// `"id", "title", …`
    let columnList: String
    /// `SELECT "id", … FROM "Post"`
    let select: String
    /// `SELECT rowid FROM "Post" WHERE "id" = ?`
    let rowidByKey: String
    /// `SELECT "id", … FROM "Post" WHERE "id" = ?`
    let selectByKey: String
    /// `INSERT INTO "Post" ("id", …) VALUES (?, …)`
    let insert: String
    /// `UPDATE "Post" SET "id" = ?, … WHERE rowid = ?`
    let update: String
    /// `DELETE FROM "Post" WHERE rowid = ?`
    let deleteByRowid: String

    init(table: String, columns: [String], primaryKey: [String]) {
        let quotedTable = table.quotedIdentifier
        columnList = columns.map(\.quotedIdentifier).joined(separator: ", ")
        select = "SELECT \(columnList) FROM \(quotedTable)"
        let keyCondition = primaryKey.map { "\($0.quotedIdentifier) = ?" }.joined(separator: " AND ")
        rowidByKey = "SELECT rowid FROM \(quotedTable) WHERE \(keyCondition)"
        selectByKey = "SELECT rowid, \(columnList) FROM \(quotedTable) WHERE \(keyCondition)"
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        insert = "INSERT INTO \(quotedTable) (\(columnList)) VALUES (\(placeholders))"
        let assignments = columns.map { "\($0.quotedIdentifier) = ?" }.joined(separator: ", ")
        update = "UPDATE \(quotedTable) SET \(assignments) WHERE rowid = ?"
        deleteByRowid = "DELETE FROM \(quotedTable) WHERE rowid = ?"
    }
}
