import GraphQL
import StratusCodegen

/// What every resolver of one request sees.
struct RequestContext: Sendable {
    let identity: Identity
}

/// The API's SDL built by GraphQLSwift, with the model resolvers attached to its fields.
struct ExecutableSchema: Sendable {
    let schema: GraphQLSchema

    /// Builds the schema of `api` and attaches `resolver`'s resolvers.
    ///
    /// - Throws: ``ServerError`` when GraphQLSwift rejects the SDL.
    init(api: ServerAPI, resolver: ModelResolver, log: @escaping @Sendable (String) -> Void) throws(ServerError) {
        do {
            schema = try buildSchema(source: api.sdl)
        } catch {
            throw ServerError.invalidAPI(String(describing: error))
        }
        let wiring = Wiring(api: api, resolver: resolver, log: log)
        do {
            try wiring.attach(to: schema)
        } catch {
            throw ServerError.invalidAPI(String(describing: error))
        }
        let problems = validateSchema(schema: schema)
        guard problems.isEmpty else {
            throw ServerError.invalidAPI(problems.map(\.message).joined(separator: " "))
        }
    }
}

/// Attaches resolvers to the fields of the built schema.
private struct Wiring {
    let api: ServerAPI
    let resolver: ModelResolver
    let log: @Sendable (String) -> Void

    func attach(to schema: GraphQLSchema) throws {
        var queries: [String: GraphQLFieldResolve] = [:]
        var mutations: [String: GraphQLFieldResolve] = [:]
        for model in api.schema.models {
            queries.merge(queryResolvers(of: model)) { first, _ in first }
            mutations.merge(mutationResolvers(of: model)) { first, _ in first }
            try attach(to: schema, type: model.name, resolvers: modelTypeResolvers(of: model))
            try attach(to: schema, type: "Model\(model.name)Connection", resolvers: Self.connectionResolvers)
        }
        for nonModel in api.schema.nonModels {
            var resolvers: [String: GraphQLFieldResolve] = [:]
            for field in nonModel.fields {
                let name = field.name
                let type = field.type
                resolvers[name] = { source, _, _, _ in
                    outputValue((source as? EmbeddedValue)?.values[name], type: type)
                }
            }
            try attach(to: schema, type: nonModel.name, resolvers: resolvers)
        }
        try attach(to: schema, type: "Query", resolvers: queries)
        try attach(to: schema, type: "Mutation", resolvers: mutations)
    }

    private func attach(to schema: GraphQLSchema, type name: String, resolvers: [String: GraphQLFieldResolve]) throws {
        guard let type = schema.getType(name: name) as? GraphQLObjectType else { return }
        let fields = try type.fields()
        for (name, field) in fields {
            if let resolve = resolvers[name] { field.resolve = resolve }
        }
        type.fields = { fields }
    }

    /// Runs a resolver, turning failures other than ``ResolverError`` into an internal failure
    /// that the log explains.
    private func guarded<T: Sendable>(_ field: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as ResolverError {
            throw error
        } catch {
            log("The resolver of '\(field)' failed: \(error)")
            throw ResolverError.internalFailure
        }
    }

    // MARK: - Root fields

    private func queryResolvers(of model: ModelType) -> [String: GraphQLFieldResolve] {
        var resolvers: [String: GraphQLFieldResolve] = [:]
        let resolver = resolver
        let operations = model.operations
        if let field = operations.get {
            resolvers[field] = { _, arguments, _, _ in
                try await guarded(field) { try await resolver.get(model, arguments: arguments.object) }
            }
        }
        if let field = operations.list {
            resolvers[field] = { _, arguments, _, _ in
                try await guarded(field) { try await resolver.list(model, field: field, arguments: arguments.object) }
            }
        }
        if api.configuration.conflictDetection, let field = operations.sync {
            resolvers[field] = { _, arguments, _, _ in
                try await guarded(field) { try await resolver.sync(model, field: field, arguments: arguments.object) }
            }
        }
        for index in model.indexes {
            guard let field = index.queryField else { continue }
            resolvers[field] = { _, arguments, _, _ in
                try await guarded(field) {
                    try await resolver.indexQuery(model, index: index, arguments: arguments.object)
                }
            }
        }
        return resolvers
    }

    private func mutationResolvers(of model: ModelType) -> [String: GraphQLFieldResolve] {
        typealias Write = @Sendable (ModelResolver, MutationRequest) async throws -> ResolvedItem
        let writes: [(String?, Write)] = [
            (model.operations.create, { try await $0.create($1) }),
            (model.operations.update, { try await $0.update($1) }),
            (model.operations.delete, { try await $0.delete($1) }),
        ]
        var resolvers: [String: GraphQLFieldResolve] = [:]
        let resolver = resolver
        let schema = api.schema
        for case (let field?, let write) in writes {
            resolvers[field] = { _, arguments, context, info in
                let request = MutationRequest(
                    model: model,
                    field: field,
                    arguments: arguments.object,
                    identity: (context as? RequestContext)?.identity ?? .anonymous,
                    trim: { item in
                        SelectionTrimmer(schema: schema, fragments: info.fragments)
                            .trim(item, selections: info.fieldASTs.flatMap { $0.selectionSet?.selections ?? [] })
                    }
                )
                return try await guarded(field) { try await write(resolver, request) }
            }
        }
        return resolvers
    }

    // MARK: - Object types

    private func modelTypeResolvers(of model: ModelType) -> [String: GraphQLFieldResolve] {
        var resolvers: [String: GraphQLFieldResolve] = [
            TableLayout.versionColumn: { source, _, _, _ in (source as? ResolvedItem)?.item.version },
            TableLayout.deletedColumn: { source, _, _, _ in (source as? ResolvedItem)?.item.deleted },
            TableLayout.lastChangedAtColumn: { source, _, _, _ in (source as? ResolvedItem)?.item.lastChangedAt },
        ]
        let resolver = resolver
        for field in model.fields {
            let name = field.name
            let type = field.type
            guard let relation = field.relation else {
                resolvers[name] = { source, _, _, _ in
                    outputValue((source as? ResolvedItem)?.item.values[name], type: type)
                }
                continue
            }
            let qualified = "\(model.name).\(name)"
            switch relation.kind {
            case .hasMany:
                resolvers[name] = { source, arguments, _, _ in
                    guard let item = source as? ResolvedItem else { return nil }
                    return try await guarded(qualified) {
                        try await resolver.relatedConnection(
                            of: item,
                            relation: relation,
                            field: name,
                            arguments: arguments.object
                        )
                    }
                }
            case .hasOne, .belongsTo:
                resolvers[name] = { source, _, _, _ in
                    guard let item = source as? ResolvedItem else { return nil }
                    return try await guarded(qualified) { try await resolver.relatedItem(of: item, relation: relation) }
                }
            }
        }
        return resolvers
    }

    private static let connectionResolvers: [String: GraphQLFieldResolve] = [
        "items": { source, _, _, _ in
            (source as? ResolvedConnection)?.items.map { $0 as (any Sendable)? }
        },
        "nextToken": { source, _, _, _ in (source as? ResolvedConnection)?.nextToken },
        "startedAt": { source, _, _, _ in (source as? ResolvedConnection)?.startedAt },
    ]
}

extension Map {
    /// The arguments of a field as a JSON object; arguments not given are absent.
    var object: JSONObject {
        JSON(self)?.objectValue ?? [:]
    }
}
