/// The selection sets of the generated operations.
extension StatementsGenerator {
    /// The selection set of `model`, spanning `depth` levels of models.
    ///
    /// In order: the primary key fields in key order; the other scalar and enum fields, lists of
    /// them included, alphabetically; embedded non-model fields alphabetically; when `depth` is
    /// more than 1, the associations alphabetically (a `@hasMany` as a connection
    /// `{ items { … } nextToken }`, a `@belongsTo` or `@hasOne` as the related object) each one
    /// level shallower; `__typename`; and with conflict detection `_version _deleted
    /// _lastChangedAt`. Fields with required arguments are left out: a statement cannot select
    /// them without values.
    func selectionSet(of model: ModelType, depth: Int, in schema: AnnotatedSchema) -> [Selection] {
        let others = model.fields.filter { !model.primaryKey.contains($0.name) && $0.isSelectableWithoutArguments }
            .sorted { $0.name < $1.name }
        var result = model.primaryKey.map(Selection.field)
        result += others.filter(\.type.isLeaf).map { .field($0.name) }
        result += others.filter { $0.type.kind == .nonModel }.compactMap { field in
            composite(field, depth: depth - 1, path: [], in: schema)
        }
        if depth > 1 {
            for field in others where field.type.kind == .model {
                guard let relation = field.relation, let related = schema.model(named: relation.relatedModel) else {
                    continue
                }
                let nested = selectionSet(of: related, depth: depth - 1, in: schema)
                switch relation.kind {
                case .hasMany:
                    result.append(.object(field.name, [.object("items", nested), .field("nextToken")]))
                case .hasOne, .belongsTo:
                    result.append(.object(field.name, nested))
                }
            }
        }
        result.append(.field("__typename"))
        if conflictDetection {
            result += ["_version", "_deleted", "_lastChangedAt"].map(Selection.field)
        }
        return result
    }

    /// The selection set of a value of type `type`, the result of a hand-written operation or a
    /// field of another result: `nil` for scalars and enums, which have none, and for what
    /// `depth` leaves out.
    ///
    /// `depth` counts levels of models, as for the model operations: a model or a connection
    /// selects its own fields and `depth - 1` levels of associations, and appears only while
    /// `depth` is at least 1. Non-model types, interfaces and unions are not levels: they nest
    /// freely, except within themselves.
    func selectionSet(
        ofType type: FieldType,
        depth: Int,
        path: Set<String>,
        in schema: AnnotatedSchema
    )
        -> [Selection]?
    {
        switch type.kind {
        case .scalar, .enumeration, .customScalar, .input:
            return nil
        case .model:
            guard depth >= 1, let model = schema.model(named: type.name) else { return nil }
            return selectionSet(of: model, depth: depth, in: schema)
        case .connection:
            guard depth >= 1, let model = type.connectedModel.flatMap(schema.model(named:)) else { return nil }
            let items = selectionSet(of: model, depth: depth, in: schema)
            return [.object("items", items), .field("nextToken")] + (conflictDetection ? [.field("startedAt")] : [])
        case .nonModel:
            guard !path.contains(type.name), let nonModel = schema.nonModel(named: type.name) else { return nil }
            return fieldsSelection(nonModel.fields, depth: depth, path: path.union([type.name]), in: schema)
                + [.field("__typename")]
        case .interface:
            guard !path.contains(type.name), let interface = schema.interface(named: type.name) else { return nil }
            let inner = path.union([type.name])
            let own = fieldsSelection(interface.fields, depth: depth, path: inner, in: schema)
            return own + fragments(of: type.name, selecting: own, depth: depth, path: inner, in: schema)
        case .union:
            guard !path.contains(type.name) else { return nil }
            return fragments(of: type.name, selecting: [], depth: depth, path: path.union([type.name]), in: schema)
        }
    }

    /// The fields of a non-model type or an interface: scalars and enums alphabetically, then
    /// the others alphabetically, those that select nothing left out.
    private func fieldsSelection(
        _ fields: [Field],
        depth: Int,
        path: Set<String>,
        in schema: AnnotatedSchema
    )
        -> [Selection]
    {
        let sorted = fields.filter(\.isSelectableWithoutArguments).sorted { $0.name < $1.name }
        return sorted.filter(\.type.isLeaf).map { Selection.field($0.name) }
            + sorted.filter { !$0.type.isLeaf }.compactMap { composite($0, depth: depth, path: path, in: schema) }
    }

    /// A field with a selection set of its own, `nil` when it would select nothing.
    private func composite(_ field: Field, depth: Int, path: Set<String>, in schema: AnnotatedSchema) -> Selection? {
        guard let selection = selectionSet(ofType: field.type, depth: depth, path: path, in: schema),
            !selection.isEmpty
        else { return nil }
        return .object(field.name, selection)
    }

    /// `... on Type { … }` for each object type an interface or union may be, with the fields
    /// `selecting` does not already select; those left with nothing are left out.
    private func fragments(
        of abstract: String,
        selecting selected: [Selection],
        depth: Int,
        path: Set<String>,
        in schema: AnnotatedSchema
    ) -> [Selection] {
        let selectedNames = Set(selected.map(\.name))
        return schema.possibleTypes(of: abstract).compactMap { name in
            let kind: FieldType.Kind = schema.model(named: name) != nil ? .model : .nonModel
            let type = FieldType(name: name, kind: kind, isRequired: true, isList: false, isElementRequired: false)
            guard let selection = selectionSet(ofType: type, depth: depth, path: path, in: schema) else { return nil }
            let remaining = selection.filter { !selectedNames.contains($0.name) }
            return remaining.isEmpty ? nil : .inlineFragment(name, remaining)
        }
    }
}

extension Field {
    /// `false` for fields with a required argument, which no generated statement can select.
    var isSelectableWithoutArguments: Bool {
        !arguments.contains { $0.type.isRequired && $0.defaultValue == nil }
    }
}
