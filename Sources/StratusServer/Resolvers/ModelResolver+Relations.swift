import StratusCodegen

/// Relation fields: `@belongsTo` and `@hasOne` resolve one item, `@hasMany` a connection.
extension ModelResolver {
    /// The item a `@belongsTo` or `@hasOne` field points to: the related model's item whose
    /// primary key is in the source's foreign-key fields; `nil` when one of them is absent.
    func relatedItem(of source: ResolvedItem, relation: Relation) async throws -> ResolvedItem? {
        guard let related = schema.model(named: relation.relatedModel),
            relation.targetNames.count == related.primaryKey.count
        else { return nil }
        var key: [JSON] = []
        for name in relation.targetNames {
            guard let value = source.item.values[name], !value.isNull else { return nil }
            key.append(value)
        }
        return try await storeCalls.fetchItem(model: related.name, key: key, now: now()).map {
            ResolvedItem(model: related, item: $0)
        }
    }

    /// The children of a `@hasMany` field: the related model's items whose foreign-key fields
    /// hold the source's primary key, in the order of the relation's index (or of their primary
    /// key), filtered and paged like a list.
    func relatedConnection(
        of source: ResolvedItem,
        relation: Relation,
        field: String,
        arguments: JSONObject,
        identity: Identity,
        restriction: ItemPredicate? = nil
    ) async throws -> ResolvedConnection {
        guard let child = schema.model(named: relation.relatedModel) else { return ResolvedConnection(items: []) }
        var parentKey: [JSON] = []
        for name in source.model.primaryKey.prefix(relation.childKeyFields.count) {
            guard let value = source.item.values[name], !value.isNull else { return ResolvedConnection(items: []) }
            parentKey.append(value)
        }
        var keyCondition: [ItemPredicate] = zip(relation.childKeyFields, parentKey).map { name, value in
            .field(name, .compare(.eq, value))
        }
        var order = relation.childKeyFields
        if let indexName = relation.indexName, let index = child.indexes.first(where: { $0.name == indexName }) {
            let sortFields = Array(index.fields.dropFirst(relation.childKeyFields.count))
            keyCondition += sortFields.map { .field($0, .exists(true)) }
            order += sortFields
            if let sortKey = child.hasManySortKey(of: relation), let condition = arguments[sortKey.name] {
                keyCondition.append(try sortKeyCondition(condition, sortKey: sortKey, model: child))
            }
        }
        order += child.primaryKey.filter { !order.contains($0) }
        return try await page(
            child,
            field: "\(source.model.name).\(field)",
            arguments: arguments,
            keyCondition: .all(keyCondition),
            order: order,
            scope: .array(parentKey),
            identity: identity,
            restriction: restriction
        )
    }
}

extension ResolvedConnection {
    init(items: [ResolvedItem]) {
        self.init(items: items, nextToken: nil, startedAt: nil)
    }
}
