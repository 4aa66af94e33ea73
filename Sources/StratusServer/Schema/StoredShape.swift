import GRDB
import StratusCodegen

/// What the stored data depends on in a schema: models with their stored fields, primary keys
/// and indexes, enum values, and the fields of embedded types.
///
/// The store records the shape it was migrated to in `_stratus_meta`, and compares it with the
/// shape of the schema it is opened with (see ``changes(to:)``). A type of `""` or `nil`
/// indexes and enums mean "not known": the shape of a database written before shapes were
/// recorded, read from its tables.
struct StoredShape: Codable, Sendable, Hashable {
    struct Model: Codable, Sendable, Hashable {
        var primaryKey: [String]
        /// Stored fields, by name.
        var fields: [String: FieldShape]
        /// Index names and their `CREATE INDEX` statements.
        var indexes: [String: String]?
    }

    struct FieldShape: Codable, Sendable, Hashable {
        /// The GraphQL type, `[String!]!`; `""` when not known.
        var type: String
        var hasDefault: Bool
    }

    var models: [String: Model]
    var enums: [String: [String]]?
    /// Embedded (non-model) types: their fields' GraphQL types, by field name.
    var embedded: [String: [String: String]]?

    /// The shape `schema` gives the store.
    init(schema: AnnotatedSchema) {
        var models: [String: Model] = [:]
        for model in schema.models {
            let layout = TableLayout(model: model)
            var fields: [String: FieldShape] = [:]
            for field in model.storedFields {
                fields[field.name] = FieldShape(type: field.type.description, hasDefault: field.defaultValue != nil)
            }
            let indexes = Dictionary(layout.indexes(in: schema).map { ($0.name, $0.sql) }) { first, _ in first }
            models[model.name] = Model(primaryKey: model.primaryKey, fields: fields, indexes: indexes)
        }
        self.models = models
        enums = Dictionary(schema.enums.map { ($0.name, $0.values) }) { first, _ in first }
        embedded = Dictionary(
            schema.nonModels.map { type in
                (type.name, Dictionary(type.fields.map { ($0.name, $0.type.description) }) { first, _ in first })
            }
        ) { first, _ in first }
    }

    /// The shape of the model tables in `db`, as far as the tables tell: names, columns and
    /// primary keys, without types, indexes or enums.
    init(tablesIn db: Database) throws {
        let names = try String.fetchAll(
            db,
            sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
                + "AND name NOT LIKE '\\_stratus\\_%' ESCAPE '\\'"
        )
        let metadata: Set = [
            TableLayout.versionColumn, TableLayout.deletedColumn, TableLayout.lastChangedAtColumn,
            TableLayout.expiryColumn,
        ]
        var models: [String: Model] = [:]
        for name in names {
            var fields: [String: FieldShape] = [:]
            for column in try db.columns(in: name) where !metadata.contains(column.name) {
                fields[column.name] = FieldShape(type: "", hasDefault: false)
            }
            let primaryKey = try db.primaryKey(name).columns
            models[name] = Model(primaryKey: primaryKey, fields: fields, indexes: nil)
        }
        self.models = models
        enums = nil
        embedded = nil
    }

    /// What changed from this shape to `new`, models and fields in name order.
    func changes(to new: StoredShape) -> [SchemaChange] {
        var changes: [SchemaChange.Kind] = []
        for name in Set(models.keys).union(new.models.keys).sorted() {
            switch (models[name], new.models[name]) {
            case (nil, _?):
                changes.append(.modelAdded(name))
            case (_?, nil):
                changes.append(.modelRemoved(name))
            case (let old?, let new?):
                changes += Self.changes(of: name, from: old, to: new)
            case (nil, nil):
                break
            }
        }
        if let enums, let newEnums = new.enums {
            for (name, values) in newEnums.sorted(by: { $0.key < $1.key }) {
                guard let old = enums[name] else { continue }
                let added = values.filter { !old.contains($0) }
                if !added.isEmpty { changes.append(.enumValuesAdded(enumeration: name, values: added)) }
                for value in old where !values.contains(value) {
                    changes.append(.enumValueRemoved(enumeration: name, value: value))
                }
            }
        }
        if let embedded, let newEmbedded = new.embedded {
            for (type, fields) in newEmbedded.sorted(by: { $0.key < $1.key }) {
                guard let old = embedded[type] else { continue }
                for field in Set(old.keys).union(fields.keys).sorted() {
                    switch (old[field], fields[field]) {
                    case (nil, _?):
                        changes.append(.embeddedFieldAdded(type: type, field: field))
                    case (_?, nil):
                        changes.append(.fieldRemoved(model: type, field: field))
                    case (let from?, let to?) where from != to && from != to + "!":
                        changes.append(.fieldTypeChanged(model: type, field: field, from: from, to: to))
                    default:
                        break
                    }
                }
            }
        }
        return changes.map(SchemaChange.init(kind:))
    }

    private static func changes(of model: String, from old: Model, to new: Model) -> [SchemaChange.Kind] {
        var changes: [SchemaChange.Kind] = []
        if old.primaryKey != new.primaryKey {
            changes.append(.primaryKeyChanged(model: model, from: old.primaryKey, to: new.primaryKey))
        }
        for field in Set(old.fields.keys).union(new.fields.keys).sorted() {
            switch (old.fields[field], new.fields[field]) {
            case (nil, let added?):
                if added.type.hasSuffix("!") && !added.hasDefault {
                    changes.append(.requiredFieldAdded(model: model, field: field, type: added.type))
                } else {
                    changes.append(.fieldAdded(model: model, field: field, type: added.type))
                }
            case (_?, nil):
                changes.append(.fieldRemoved(model: model, field: field))
            case (let before?, let after?) where !before.type.isEmpty && before.type != after.type:
                if before.type == after.type + "!" {
                    changes.append(.fieldMadeOptional(model: model, field: field))
                } else {
                    changes.append(.fieldTypeChanged(model: model, field: field, from: before.type, to: after.type))
                }
            default:
                break
            }
        }
        if let oldIndexes = old.indexes, let newIndexes = new.indexes {
            for index in Set(oldIndexes.keys).union(newIndexes.keys).sorted() {
                switch (oldIndexes[index], newIndexes[index]) {
                case (nil, _?): changes.append(.indexAdded(model: model, index: index))
                case (_?, nil): changes.append(.indexRemoved(model: model, index: index))
                case (let before?, let after?) where before != after:
                    changes.append(.indexChanged(model: model, index: index))
                default: break
                }
            }
        }
        return changes
    }
}
