/// The selection sets of the generated operations.
extension StatementsGenerator {
    /// The selection set of `model`, spanning `depth` levels of models.
    ///
    /// In order: the primary key fields in key order; the other scalar and enum fields, lists of
    /// them included, alphabetically; embedded non-model fields alphabetically; when `depth` is
    /// more than 1, the associations alphabetically (a `@hasMany` as a connection
    /// `{ items { … } nextToken }`, a `@belongsTo` or `@hasOne` as the related object) each one
    /// level shallower; `__typename`; and with conflict detection `_version _deleted
    /// _lastChangedAt`.
    func selectionSet(of model: ModelType, depth: Int, in schema: AnnotatedSchema) -> [Selection] {
        let others = model.fields.filter { !model.primaryKey.contains($0.name) }.sorted { $0.name < $1.name }
        var result = model.primaryKey.map(Selection.field)
        result += others.filter(\.isLeaf).map { .field($0.name) }
        result += others.compactMap { embeddedSelection(of: $0, path: [], in: schema) }
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

    /// A non-model field with its own fields: scalars and enums alphabetically, then nested
    /// non-model fields alphabetically, then `__typename`.
    ///
    /// Non-model types nest without a depth limit. A type can only contain itself through a list
    /// (the schema parser rejects other cycles); such a field is left out where its type already
    /// encloses it, so the selection set stays finite. `nil` for fields of other kinds and for
    /// those left out.
    private func embeddedSelection(of field: Field, path: Set<String>, in schema: AnnotatedSchema) -> Selection? {
        guard field.type.kind == .nonModel, !path.contains(field.type.name),
            let type = schema.nonModel(named: field.type.name)
        else { return nil }
        let path = path.union([type.name])
        let fields = type.fields.sorted { $0.name < $1.name }
        let selectionSet =
            fields.filter(\.isLeaf).map { Selection.field($0.name) }
            + fields.compactMap { embeddedSelection(of: $0, path: path, in: schema) }
            + [.field("__typename")]
        return .object(field.name, selectionSet)
    }
}

extension Field {
    /// `true` for scalar and enum fields, single or lists: those selected without a selection set.
    fileprivate var isLeaf: Bool {
        switch type.kind {
        case .scalar, .enumeration: return true
        case .nonModel, .model: return false
        }
    }
}
