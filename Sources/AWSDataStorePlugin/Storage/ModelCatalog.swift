import Amplify

/// The tables of every model a registration holds.
struct ModelCatalog: Sendable {
    /// Tables by model name.
    let tables: [String: ModelTable]
    /// Model names in registration order.
    let modelNames: [String]
    /// The registered Swift types, by model name.
    let modelTypes: [String: any Model.Type]
    private let registered: Set<ObjectIdentifier>

    /// The catalog of `modelTypes`.
    ///
    /// - Throws: ``DataStoreError`` when a model cannot be stored (see ``ModelTable``) or two
    ///   models have names that differ only in case.
    init(modelTypes types: [any Model.Type]) throws(DataStoreError) {
        var schemas: [String: ModelSchema] = [:]
        var names: [String] = []
        var byLowercasedName: [String: String] = [:]
        var typesByName: [String: any Model.Type] = [:]
        for type in types {
            let schema = type.schema
            if let other = byLowercasedName[schema.name.lowercased()], other != schema.name {
                throw DataStoreError(
                    .configuration,
                    "The models \(other) and \(schema.name) have names that differ only in case; SQLite table "
                        + "names ignore case. Rename one of them in the schema."
                )
            }
            if schemas[schema.name] == nil { names.append(schema.name) }
            byLowercasedName[schema.name.lowercased()] = schema.name
            schemas[schema.name] = schema
            typesByName[schema.name] = type
        }
        for name in names {
            for field in schemas[name]!.sortedFields {
                guard case .collection(let childName) = field.type, schemas[childName] == nil else { continue }
                throw DataStoreError(
                    .configuration,
                    "\(name).\(field.name) relates to \(childName), which the model registration does not contain. "
                        + "Regenerate the models with `stratus codegen models` so that AmplifyModels registers "
                        + "\(childName)."
                )
            }
        }
        var tables: [String: ModelTable] = [:]
        for name in names {
            tables[name] = try ModelTable(schema: schemas[name]!, schemas: schemas)
        }
        for name in names {
            tables[name]!.children = Self.children(of: tables[name]!, in: tables)
        }
        self.tables = tables
        self.modelNames = names
        self.modelTypes = typesByName
        self.registered = Set(types.map { ObjectIdentifier($0) })
    }

    /// The table of `type`.
    ///
    /// - Throws: ``DataStoreError`` with ``DataStoreError/Code/unregisteredModel`` when the
    ///   registration does not contain `type`.
    func table<M: Model>(for type: M.Type) throws(DataStoreError) -> ModelTable {
        guard registered.contains(ObjectIdentifier(type)), let table = tables[M.modelName] else {
            let list = modelNames.isEmpty ? "none" : modelNames.joined(separator: ", ")
            throw DataStoreError(
                .unregisteredModel,
                "\(M.modelName) is not one of the models this DataStore stores (registered: \(list)). "
                    + "Pass the AmplifyModels() that contains \(M.modelName) to "
                    + "AWSDataStorePlugin(modelRegistration:), regenerating it with `stratus codegen models` "
                    + "if the schema changed."
            )
        }
        return table
    }

    /// The hasMany and hasOne relations of `parent` whose children hold its primary key.
    private static func children(of parent: ModelTable, in tables: [String: ModelTable]) -> [ChildRelation] {
        parent.schema.sortedFields.compactMap { field -> ChildRelation? in
            guard let association = field.association, let childName = field.associatedModelName,
                let child = tables[childName]
            else { return nil }
            switch association {
            case .hasMany, .hasOne: break
            case .belongsTo: return nil
            }
            let childColumns = association.associatedFields.flatMap { name -> [String] in
                child.associations[name] ?? (child.column(named: name) != nil ? [name] : [])
            }
            guard !childColumns.isEmpty, childColumns.count == parent.primaryKey.count else { return nil }
            return ChildRelation(field: field.name, childTable: childName, childColumns: childColumns)
        }
    }
}
