/// The shape of a model: its fields, relations, keys, indexes and auth rules.
///
/// Generated code builds it with ``Model/defineSchema(name:define:)``; DataStore and the API
/// category read it to build tables, documents and predicates.
public struct ModelSchema: Sendable, Hashable {
    /// The model's name as written in the GraphQL schema.
    public var name: String
    /// The plural used in `list<Plural>` queries.
    public var listPluralName: String?
    /// The plural used in `sync<Plural>` queries.
    public var syncPluralName: String?
    /// Model-level auth rules.
    public var authRules: [AuthRule]
    /// Indexes and the primary key.
    public var attributes: [ModelAttribute]
    /// Fields in declaration order.
    public var sortedFields: [ModelField]

    public init(
        name: String,
        listPluralName: String? = nil,
        syncPluralName: String? = nil,
        authRules: [AuthRule] = [],
        attributes: [ModelAttribute] = [],
        fields: [ModelField] = []
    ) {
        self.name = name
        self.listPluralName = listPluralName
        self.syncPluralName = syncPluralName
        self.authRules = authRules
        self.attributes = attributes
        self.sortedFields = fields
    }

    /// Fields by name.
    public var fields: [String: ModelField] {
        Dictionary(sortedFields.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The field named `name`, if the model has one.
    public func field(named name: String) -> ModelField? {
        sortedFields.first { $0.name == name }
    }

    /// The primary key: `@primaryKey` fields, else `id`.
    public var primaryKey: ModelPrimaryKey {
        for attribute in attributes {
            if case .primaryKey(let names) = attribute {
                return ModelPrimaryKey(fields: names.compactMap(field(named:)))
            }
        }
        return ModelPrimaryKey(fields: field(named: "id").map { [$0] } ?? [])
    }

    /// Secondary indexes: `(name, fields)` for each `@index`.
    public var indexes: [(name: String, fields: [String])] {
        attributes.compactMap {
            guard case .index(let fields, let name?) = $0 else { return nil }
            return (name, fields)
        }
    }
}

/// The fields that identify one record of a model.
public struct ModelPrimaryKey: Sendable, Hashable {
    /// Partition key first, then sort keys.
    public var fields: [ModelField]

    /// `true` when the key has more than one field.
    public var isComposite: Bool { fields.count > 1 }
}
