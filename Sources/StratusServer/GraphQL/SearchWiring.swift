import GraphQL
import StratusCodegen

/// The resolvers of `@searchable` models' `search<Plural>` queries and of the types they return.
enum SearchWiring {
    /// The resolver of `model`'s search query `field`: the caller's reach as for `list` (the
    /// `search` operation of `@auth` rules, which `read` includes), then ``ModelResolver/search``.
    static func queryResolver(
        of model: ModelType,
        field: String,
        resolver: ModelResolver,
        log: @escaping @Sendable (String) -> Void
    ) -> GraphQLFieldResolve {
        { _, arguments, context, _ in
            let identity = (context as? RequestContext)?.identity ?? .anonymous
            let restriction: ItemPredicate?
            switch Authorization.access(.search, on: model, for: identity) {
            case .denied: throw Authorization.unauthorized(field: field, type: "Query")
            case .all: restriction = nil
            case .rows(let rules): restriction = .any(rules.map(\.predicate))
            }
            return try await guardedResolve(field, log: log) {
                try await resolver.search(
                    model,
                    field: field,
                    arguments: arguments.object,
                    identity: identity,
                    restriction: restriction
                )
            }
        }
    }

    /// The fields of a `Searchable<Model>Connection`: `items` and `nextToken` as those of the
    /// `Model<Model>Connection` resolvers `page` (its page), `total` and `aggregateItems`.
    static func connectionResolvers(
        page: [String: GraphQLFieldResolve]
    ) -> [String: GraphQLFieldResolve] {
        var resolvers: [String: GraphQLFieldResolve] = [
            "total": { source, _, _, _ in (source as? ResolvedSearch)?.total },
            "aggregateItems": { source, _, _, _ in
                ((source as? ResolvedSearch)?.aggregateItems ?? []).map { $0 as (any Sendable)? }
            },
        ]
        for name in ["items", "nextToken"] {
            guard let resolve = page[name] else { continue }
            resolvers[name] = { source, arguments, context, info in
                guard let search = source as? ResolvedSearch else { return nil }
                return try await resolve(search.page, arguments, context, info)
            }
        }
        return resolvers
    }

    /// Sets the resolvers of the aggregation result types, when the schema has them.
    ///
    /// A union built from SDL has no way to tell the type of a value, and GraphQLSwift offers no
    /// way to give it one afterwards: `SearchableAggregateResult.result` gets a copy of the
    /// union that names each result's type.
    static func attachAggregateTypes(to schema: GraphQLSchema) throws {
        guard let resultType = schema.getType(name: "SearchableAggregateResult") as? GraphQLObjectType,
            let union = schema.getType(name: "SearchableAggregateGenericResult") as? GraphQLUnionType,
            let scalarType = schema.getType(name: "SearchableAggregateScalarResult") as? GraphQLObjectType,
            let bucketsType = schema.getType(name: "SearchableAggregateBucketResult") as? GraphQLObjectType,
            let bucketType = schema.getType(name: "SearchableAggregateBucketResultItem") as? GraphQLObjectType
        else { return }
        let typed = try GraphQLUnionType(
            name: union.name,
            resolveType: { value, _ in (value as? SearchAggregate.Result)?.typeName ?? union.name },
            types: [scalarType, bucketsType]
        )
        var fields = try resultType.fields()
        fields["name"]?.resolve = { source, _, _, _ in (source as? SearchAggregate)?.name }
        fields["result"] = GraphQLField(
            type: typed,
            args: fields["result"]?.args ?? [:],
            resolve: { source, _, _, _ in (source as? SearchAggregate)?.result }
        )
        resultType.fields = { fields }
        try attach(
            to: scalarType,
            [
                "value": { source, _, _, _ in
                    guard case .scalar(let value) = source as? SearchAggregate.Result else { return nil }
                    return value
                }
            ]
        )
        try attach(
            to: bucketsType,
            [
                "buckets": { source, _, _, _ in
                    guard case .buckets(let buckets) = source as? SearchAggregate.Result else { return nil }
                    return buckets.map { $0 as (any Sendable)? }
                }
            ]
        )
        try attach(
            to: bucketType,
            [
                "key": { source, _, _, _ in (source as? SearchAggregate.Bucket)?.key },
                "doc_count": { source, _, _, _ in (source as? SearchAggregate.Bucket)?.docCount },
            ]
        )
    }

    private static func attach(to type: GraphQLObjectType, _ resolvers: [String: GraphQLFieldResolve]) throws {
        let fields = try type.fields()
        for (name, resolve) in resolvers {
            fields[name]?.resolve = resolve
        }
        type.fields = { fields }
    }
}
