import AWSWire

extension SchemaBuilder {
    /// Turns the relation directives into ``Relation`` values, expanding `@manyToMany` into join
    /// models and naming implicit foreign keys.
    func resolveRelations(_ models: inout [ModelType]) {
        expandManyToMany(&models)
        let order = pendingRelations.keys.sorted { ($0.model, $0.field) < ($1.model, $1.field) }
        // hasMany first: a belongsTo without fields takes the foreign key of its parent's hasMany.
        for kind in ["many", "one", "belongs"] {
            for key in order {
                guard let pending = pendingRelations[key],
                    let modelIndex = models.firstIndex(where: { $0.name == key.model }),
                    let fieldIndex = models[modelIndex].fields.firstIndex(where: { $0.name == key.field })
                else { continue }
                let field = models[modelIndex].fields[fieldIndex]
                guard relationKind(of: pending, field: field, in: models) == kind else { continue }
                if let relation = resolve(pending, field: field, in: models[modelIndex], models: models) {
                    models[modelIndex].fields[fieldIndex].relation = relation
                }
            }
        }
        pairAssociations(&models)
        addForeignKeyFields(&models)
    }

    /// Which pass resolves a pending relation: "many", "one" or "belongs".
    private func relationKind(of pending: PendingRelation, field: Field, in models: [ModelType]) -> String {
        switch pending.directive {
        case "hasMany", "manyToMany": return "many"
        case "hasOne": return "one"
        case "belongsTo": return "belongs"
        default: return field.type.isList ? "many" : "belongs"
        }
    }

    private func resolve(
        _ pending: PendingRelation,
        field: Field,
        in model: ModelType,
        models: [ModelType]
    ) -> Relation? {
        let directive = "@" + pending.directive
        guard field.type.kind == .model, let related = models.first(where: { $0.name == field.type.name }) else {
            let what =
                switch field.type.kind {
                case .scalar, .customScalar: "the scalar"
                case .enumeration: "the enum"
                case .nonModel: "the non-model type"
                case .model, .input, .connection: "the type"
                case .interface: "the interface"
                case .union: "the union"
                }
            report(
                .relationToNonModel,
                type: model.name,
                field: field.name,
                at: pending.position,
                "\(directive) needs a @model type, but '\(field.name)' has \(what) '\(field.type.name)'. "
                    + "Add @model to \(field.type.name), or remove \(directive) and store it as a plain field."
            )
            return nil
        }
        let wantsList =
            pending.directive == "hasMany" || pending.directive == "manyToMany"
            || (pending.directive == "connection" && field.type.isList)
        if wantsList != field.type.isList {
            report(
                .invalidRelation,
                type: model.name,
                field: field.name,
                at: pending.position,
                wantsList
                    ? "\(directive) needs a list type. Write '\(field.name): [\(related.name)]'."
                    : "\(directive) needs a single \(related.name), not a list. Use @hasMany for lists."
            )
            return nil
        }
        let fields = pending.arguments["fields"]?.texts
        switch pending.directive {
        case "manyToMany":
            return field.relation
        case "hasMany":
            return hasMany(
                model: model,
                field: field,
                related: related,
                indexName: pending.arguments["indexName"]?.text,
                fields: fields,
                pending: pending
            )
        case "hasOne":
            let targets =
                fields
                ?? related.primaryKey.map {
                    Naming.implicitForeignKey(model: model.name, field: field.name, keyField: $0)
                }
            guard
                checkTargets(
                    targets,
                    explicit: fields != nil,
                    on: model,
                    related: related,
                    field: field,
                    pending: pending
                )
            else { return nil }
            return Relation(
                kind: .hasOne,
                relatedModel: related.name,
                targetNames: targets,
                associatedFields: [],
                childKeyFields: [],
                indexName: nil
            )
        case "belongsTo":
            let targets = fields ?? implicitBelongsToTargets(model: model, field: field, related: related)
            guard
                checkTargets(
                    targets,
                    explicit: fields != nil,
                    on: model,
                    related: related,
                    field: field,
                    pending: pending
                )
            else { return nil }
            return Relation(
                kind: .belongsTo,
                relatedModel: related.name,
                targetNames: targets,
                associatedFields: [],
                childKeyFields: [],
                indexName: nil
            )
        default:
            return connection(pending, model: model, field: field, related: related, models: models)
        }
    }

    private func hasMany(
        model: ModelType,
        field: Field,
        related: ModelType,
        indexName: String?,
        fields: [String]?,
        pending: PendingRelation
    ) -> Relation? {
        let parentFields = fields ?? model.primaryKey
        for name in parentFields where model.field(named: name) == nil {
            report(
                .missingField,
                type: model.name,
                field: field.name,
                at: pending.position,
                "@\(pending.directive)(fields:) names '\(name)', which \(model.name) does not have. "
                    + "Name fields of \(model.name) that identify it, such as [\"id\"]."
            )
            return nil
        }
        let childKeys: [String]
        if let indexName {
            guard let index = related.indexes.first(where: { $0.name == indexName }) else {
                report(
                    .missingField,
                    type: model.name,
                    field: field.name,
                    at: pending.position,
                    "@\(pending.directive) uses the index '\(indexName)', which \(related.name) does not have. "
                        + "Add @index(name: \"\(indexName)\") to the field of \(related.name) that holds the \(model.name)'s id."
                )
                return nil
            }
            childKeys = Array(index.fields.prefix(parentFields.count))
        } else if let fields {
            childKeys = Array(related.primaryKey.prefix(fields.count))
        } else if let explicit = explicitBelongsTo(in: related, pointingTo: model.name) {
            childKeys = explicit
        } else {
            childKeys = model.primaryKey.map {
                Naming.implicitForeignKey(model: model.name, field: field.name, keyField: $0)
            }
        }
        return Relation(
            kind: .hasMany,
            relatedModel: related.name,
            targetNames: [],
            associatedFields: [],
            childKeyFields: childKeys,
            indexName: indexName
        )
    }

    /// The `fields:` of a `@belongsTo` in `child` that points to `parent`, if exactly one has them.
    private func explicitBelongsTo(in child: ModelType, pointingTo parent: String) -> [String]? {
        let candidates = child.fields.compactMap { field -> [String]? in
            guard field.type.name == parent, !field.type.isList,
                let pending = pendingRelations[PendingKey(model: child.name, field: field.name)],
                pending.directive == "belongsTo" || pending.directive == "connection"
            else { return nil }
            return pending.arguments["fields"]?.texts
        }
        return candidates.count == 1 ? candidates[0] : nil
    }

    private func implicitBelongsToTargets(model: ModelType, field: Field, related: ModelType) -> [String] {
        let inverse = related.fields.filter { $0.type.name == model.name && $0.relation != nil }
        if inverse.count == 1, let relation = inverse[0].relation, relation.kind == .hasMany {
            return relation.childKeyFields
        }
        return related.primaryKey.map { Naming.implicitForeignKey(model: model.name, field: field.name, keyField: $0) }
    }

    private func connection(
        _ pending: PendingRelation,
        model: ModelType,
        field: Field,
        related: ModelType,
        models: [ModelType]
    ) -> Relation? {
        let fields = pending.arguments["fields"]?.texts
        let name = pending.arguments["name"]?.text
        // v1's `keyField` names the foreign key of a named connection, the same on both sides.
        let keyField = pending.arguments["keyField"]?.text
        if field.type.isList {
            if let keyName = pending.arguments["keyName"]?.text {
                return hasMany(
                    model: model,
                    field: field,
                    related: related,
                    indexName: keyName,
                    fields: fields,
                    pending: pending
                )
            }
            if let keyField {
                return Relation(
                    kind: .hasMany,
                    relatedModel: related.name,
                    targetNames: [],
                    associatedFields: [],
                    childKeyFields: [keyField],
                    indexName: nil
                )
            }
            if let name, let counterpart = connectionCounterpart(named: name, in: related, excluding: field.name) {
                let keys = model.primaryKey.map {
                    Naming.implicitForeignKey(model: related.name, field: counterpart, keyField: $0)
                }
                return Relation(
                    kind: .hasMany,
                    relatedModel: related.name,
                    targetNames: [],
                    associatedFields: [],
                    childKeyFields: keys,
                    indexName: nil
                )
            }
            return hasMany(model: model, field: field, related: related, indexName: nil, fields: nil, pending: pending)
        }
        let targets: [String]
        var kind = Relation.Kind.hasOne
        if let fields {
            targets = fields
            kind = .belongsTo
        } else if let keyField {
            targets = [keyField]
            kind = .belongsTo
        } else {
            targets = related.primaryKey.map {
                Naming.implicitForeignKey(model: model.name, field: field.name, keyField: $0)
            }
            if let name, let counterpart = connectionCounterpart(named: name, in: related, excluding: nil),
                related.field(named: counterpart)?.type.isList == true
            {
                kind = .belongsTo
            }
        }
        guard
            checkTargets(targets, explicit: fields != nil, on: model, related: related, field: field, pending: pending)
        else { return nil }
        return Relation(
            kind: kind,
            relatedModel: related.name,
            targetNames: targets,
            associatedFields: [],
            childKeyFields: [],
            indexName: nil
        )
    }

    private func connectionCounterpart(named name: String, in model: ModelType, excluding: String?) -> String? {
        model.fields.first { field in
            field.name != excluding
                && pendingRelations[PendingKey(model: model.name, field: field.name)]?.arguments["name"]?.text == name
        }?.name
    }

    private func checkTargets(
        _ targets: [String],
        explicit: Bool,
        on model: ModelType,
        related: ModelType,
        field: Field,
        pending: PendingRelation
    ) -> Bool {
        if explicit {
            for name in targets where model.field(named: name) == nil {
                report(
                    .missingField,
                    type: model.name,
                    field: field.name,
                    at: pending.position,
                    "@\(pending.directive)(fields:) names '\(name)', which \(model.name) does not have. "
                        + "Add '\(name): ID' to \(model.name) or name an existing field."
                )
                return false
            }
        }
        if targets.count != related.primaryKey.count {
            report(
                .invalidRelation,
                type: model.name,
                field: field.name,
                at: pending.position,
                "@\(pending.directive)(fields:) names \(targets.count) field(s), but the primary key of \(related.name) has "
                    + "\(related.primaryKey.count) (\(related.primaryKey.joined(separator: ", "))). Name one field per key field, in order."
            )
            return false
        }
        return true
    }

    // MARK: - Many-to-many

    private func expandManyToMany(_ models: inout [ModelType]) {
        var created: [String: (String, String)] = [:]
        let keys = pendingRelations.keys.sorted { ($0.model, $0.field) < ($1.model, $1.field) }
        var declaredTypes: [PendingKey: String] = [:]
        for model in models {
            for field in model.fields {
                declaredTypes[PendingKey(model: model.name, field: field.name)] = field.type.name
            }
        }
        for key in keys {
            guard let pending = pendingRelations[key], pending.directive == "manyToMany",
                let modelIndex = models.firstIndex(where: { $0.name == key.model }),
                let fieldIndex = models[modelIndex].fields.firstIndex(where: { $0.name == key.field })
            else { continue }
            let model = models[modelIndex]
            let field = model.fields[fieldIndex]
            guard let relationName = pending.arguments["relationName"]?.text else {
                report(
                    .invalidArgument,
                    type: model.name,
                    field: field.name,
                    at: pending.position,
                    "@manyToMany needs relationName, the name of the join model, such as @manyToMany(relationName: \"PostTags\")."
                )
                continue
            }
            guard field.type.kind == .model, field.type.isList,
                let other = models.first(where: { $0.name == field.type.name })
            else {
                report(
                    .relationToNonModel,
                    type: model.name,
                    field: field.name,
                    at: pending.position,
                    "@manyToMany needs a list of a @model type, but '\(field.name)' has '\(field.type)'. "
                        + "Add @model to \(field.type.name) and write '\(field.name): [\(field.type.name)]'."
                )
                continue
            }
            guard other.name != model.name else {
                report(
                    .unsupported,
                    type: model.name,
                    field: field.name,
                    at: pending.position,
                    "@manyToMany from a model to itself is not supported. Declare the join model yourself with two @belongsTo fields."
                )
                continue
            }
            let counterpart = other.fields.first { candidate in
                let candidatePending = pendingRelations[PendingKey(model: other.name, field: candidate.name)]
                return candidatePending?.directive == "manyToMany"
                    && candidatePending?.arguments["relationName"]?.text == relationName
                    && declaredTypes[PendingKey(model: other.name, field: candidate.name)] == model.name
            }
            guard counterpart != nil else {
                report(
                    .invalidRelation,
                    type: model.name,
                    field: field.name,
                    at: pending.position,
                    "\(other.name) has no field with @manyToMany(relationName: \"\(relationName)\") pointing back to \(model.name). "
                        + "Add '\(Naming.lowerFirst(Naming.plural(model.name))): [\(model.name)] @manyToMany(relationName: \"\(relationName)\")' to \(other.name)."
                )
                continue
            }
            if created[relationName] == nil {
                if modelNames.contains(relationName) || nonModelNames.contains(relationName)
                    || enumNames.contains(relationName)
                {
                    report(
                        .duplicateType,
                        type: model.name,
                        field: field.name,
                        at: pending.position,
                        "@manyToMany(relationName: \"\(relationName)\") would create a join model named like an existing type. Choose another relationName."
                    )
                    continue
                }
                let (first, second) = model.name < other.name ? (model, other) : (other, model)
                models.append(joinModel(named: relationName, first, second, at: pending.position))
                modelNames.insert(relationName)
                created[relationName] = (first.name, second.name)
            }
            let keyFields = model.primaryKey.map { Naming.lowerFirst(model.name) + Naming.upperFirst($0) }
            models[modelIndex].fields[fieldIndex].type = FieldType(
                name: relationName,
                kind: .model,
                isRequired: field.type.isRequired,
                isList: true,
                isElementRequired: false
            )
            models[modelIndex].fields[fieldIndex].relation = Relation(
                kind: .hasMany,
                relatedModel: relationName,
                targetNames: [],
                associatedFields: [Naming.lowerFirst(model.name)],
                childKeyFields: keyFields,
                indexName: "by\(model.name)"
            )
        }
    }

    private func joinModel(
        named name: String,
        _ first: ModelType,
        _ second: ModelType,
        at position: SourcePosition
    ) -> ModelType {
        var fields = [implicitField("id", scalar: .id, required: true, at: position)]
        var indexes: [Index] = []
        for side in [first, second] {
            let keys = side.primaryKey.map { Naming.lowerFirst(side.name) + Naming.upperFirst($0) }
            for (key, sideKey) in zip(keys, side.primaryKey) {
                let scalar =
                    side.field(named: sideKey).flatMap { field -> Scalar? in
                        if case .scalar(let scalar) = field.type.kind { return scalar }
                        return nil
                    } ?? .id
                fields.append(implicitField(key, scalar: scalar, required: true, at: position))
            }
            indexes.append(Index(name: "by\(side.name)", fields: keys, queryField: nil))
        }
        for side in [first, second] {
            let keys = side.primaryKey.map { Naming.lowerFirst(side.name) + Naming.upperFirst($0) }
            var field = implicitField(Naming.lowerFirst(side.name), scalar: .id, required: true, at: position)
            field.type = FieldType(
                name: side.name,
                kind: .model,
                isRequired: true,
                isList: false,
                isElementRequired: false
            )
            field.relation = Relation(
                kind: .belongsTo,
                relatedModel: side.name,
                targetNames: keys,
                associatedFields: [],
                childKeyFields: [],
                indexName: nil
            )
            fields.append(field)
        }
        return ModelType(
            name: name,
            fields: fields,
            primaryKey: ["id"],
            indexes: indexes,
            authRules: first.authRules.isEmpty ? second.authRules : first.authRules,
            operations: ModelOperations.defaults(for: name),
            timestamps: Timestamps(createdAt: "createdAt", updatedAt: "updatedAt"),
            isJoinModel: true,
            position: position
        )
    }

    // MARK: - Pairing and foreign keys

    /// Fills `associatedFields`: the field on the other side that pairs with each relation.
    private func pairAssociations(_ models: inout [ModelType]) {
        let snapshot = models
        for modelIndex in models.indices {
            let model = models[modelIndex]
            for fieldIndex in model.fields.indices {
                guard var relation = model.fields[fieldIndex].relation, relation.associatedFields.isEmpty,
                    let related = snapshot.first(where: { $0.name == relation.relatedModel })
                else { continue }
                switch relation.kind {
                case .hasMany:
                    let inverse = related.fields.first {
                        $0.relation?.kind == .belongsTo && $0.relation?.relatedModel == model.name
                            && $0.relation?.targetNames == relation.childKeyFields
                    }
                    relation.associatedFields = inverse.map { [$0.name] } ?? relation.childKeyFields
                case .hasOne:
                    let inverse = related.fields.first {
                        $0.relation?.kind == .belongsTo && $0.relation?.relatedModel == model.name
                    }
                    relation.associatedFields = inverse.map { [$0.name] } ?? related.primaryKey
                case .belongsTo:
                    let inverse = related.fields.first {
                        ($0.relation?.kind == .hasMany && $0.relation?.childKeyFields == relation.targetNames)
                            || ($0.relation?.kind == .hasOne && $0.relation?.relatedModel == model.name)
                    }
                    relation.associatedFields = inverse.map { [$0.name] } ?? related.primaryKey
                }
                models[modelIndex].fields[fieldIndex].relation = relation
            }
        }
    }

    /// Adds implicit foreign-key fields and checks index fields that name them.
    private func addForeignKeyFields(_ models: inout [ModelType]) {
        var needed: [String: [(name: String, scalar: Scalar, position: SourcePosition)]] = [:]
        for model in models {
            for field in model.fields {
                guard let relation = field.relation,
                    let related = models.first(where: { $0.name == relation.relatedModel })
                else { continue }
                switch relation.kind {
                case .hasMany:
                    for (key, parentKey) in zip(relation.childKeyFields, model.primaryKey) {
                        needed[related.name, default: []].append(
                            (key, scalar(of: parentKey, in: model), field.position)
                        )
                    }
                case .hasOne, .belongsTo:
                    for (key, parentKey) in zip(relation.targetNames, related.primaryKey) {
                        needed[model.name, default: []].append(
                            (key, scalar(of: parentKey, in: related), field.position)
                        )
                    }
                }
            }
        }
        for index in models.indices {
            for key in needed[models[index].name] ?? [] where models[index].field(named: key.name) == nil {
                models[index].fields.append(
                    implicitField(key.name, scalar: key.scalar, required: false, at: key.position)
                )
            }
            let model = models[index]
            for modelIndex in model.indexes {
                for name in modelIndex.fields where model.field(named: name) == nil {
                    report(
                        .missingField,
                        type: model.name,
                        at: model.position,
                        "the index '\(modelIndex.name)' names '\(name)', which \(model.name) does not have. Add the field or fix the name."
                    )
                }
            }
        }
    }

    private func scalar(of fieldName: String, in model: ModelType) -> Scalar {
        if let field = model.field(named: fieldName), case .scalar(let scalar) = field.type.kind { return scalar }
        return .id
    }

    /// Adds owner and groups fields that auth rules need, and the timestamps.
    func addImplicitFields(_ model: ModelType) -> ModelType {
        var model = model
        for rule in model.authRules {
            if rule.allow == .owner, let ownerField = rule.ownerField, model.field(named: ownerField) == nil {
                model.fields.append(implicitField(ownerField, scalar: .string, required: false, at: model.position))
            }
            if rule.allow == .groups, let groupsField = rule.groupsField, model.field(named: groupsField) == nil {
                model.fields.append(
                    implicitField(groupsField, scalar: .string, required: false, list: true, at: model.position)
                )
            }
        }
        if let timestamps = model.timestamps {
            for name in [timestamps.createdAt, timestamps.updatedAt].compactMap({ $0 }) {
                if let index = model.fields.firstIndex(where: { $0.name == name }) {
                    model.fields[index].isReadOnly = true
                } else {
                    var field = implicitField(name, scalar: .awsDateTime, required: true, at: model.position)
                    field.isReadOnly = true
                    model.fields.append(field)
                }
            }
        }
        return model
    }
}
