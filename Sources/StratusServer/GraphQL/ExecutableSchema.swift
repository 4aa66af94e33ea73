import GraphQL
import StratusCodegen
import Synchronization
import Tracing

/// What every resolver of one request sees.
struct RequestContext: Sendable {
    let identity: Identity
    /// The resolvers the request may still run.
    let budget: ResolverBudget
    /// The store reads the request may have under way at once.
    let reads: AsyncGate
    /// The `Idempotency-Key` of a mutation, recorded with its writes.
    var idempotency: IdempotencyClaim? = nil
}

/// AppSync's `resolverCountLimit`, counted as resolvers run: a field under a list runs once per
/// item, which no count of the document alone can foresee.
///
/// A page of items pays at once for the relation fields its items select (see
/// ``ResolvedItem/isPaidFor``), so that a request bound to run out is known to as soon as a page
/// is read, not after thousands of relation reads. Once spent, every further resolver answers
/// `null` at once, without an error of its own (a list of a thousand items would otherwise make
/// a thousand errors), the request's execution is cancelled, and the server answers it with
/// the one error of ``exhaustedError`` instead of its partial result.
final class ResolverBudget: Sendable {
    let limit: Int
    private let spent = Atomic<Int>(0)
    private let onExhausted = Mutex<(@Sendable () -> Void)?>(nil)

    init(limit: Int) {
        self.limit = limit
    }

    /// Whether the request tried to run more resolvers than ``limit``.
    var isExhausted: Bool { spent.load(ordering: .relaxed) > limit }

    /// The resolvers counted so far.
    var count: Int { spent.load(ordering: .relaxed) }

    /// The error of a request that ran out of resolvers.
    var exhaustedError: AppSyncError {
        AppSyncError(
            errorType: nil,
            message: "maximum resolver count exceeded \(limit + 1) > \(limit). "
                + "Select fewer root fields, aliases and related models, or a smaller limit on lists.",
            shape: .document(locations: [])
        )
    }

    /// Counts `count` resolver runs; `false` once the request has run more than ``limit``
    /// resolvers, when the resolvers must answer `null` without running.
    func spend(_ count: Int = 1) -> Bool {
        let total = spent.add(count, ordering: .relaxed).newValue
        if total > limit, total - count <= limit, let handler = onExhausted.withLock({ $0.take() }) {
            handler()
        }
        return total <= limit
    }

    /// Runs `handler` once when the budget runs out, at once if it already has.
    func whenExhausted(_ handler: @escaping @Sendable () -> Void) {
        onExhausted.withLock { $0 = handler }
        if isExhausted, let handler = onExhausted.withLock({ $0.take() }) {
            handler()
        }
    }
}

/// The API's SDL built by GraphQLSwift, with the model resolvers attached to its fields.
struct ExecutableSchema: Sendable {
    let schema: GraphQLSchema

    /// Builds the schema of `api` and attaches `resolver`'s resolvers.
    ///
    /// - Throws: ``ServerError`` when GraphQLSwift rejects the SDL.
    init(
        api: ServerAPI,
        resolver: ModelResolver,
        custom: CustomFieldResolvers,
        log: @escaping @Sendable (String) -> Void
    ) throws(ServerError) {
        do {
            schema = try buildSchema(source: api.sdl)
        } catch {
            throw ServerError.invalidAPI(String(describing: error))
        }
        let wiring = Wiring(api: api, resolver: resolver, custom: custom, log: log)
        do {
            try wiring.attach(to: schema)
            try Self.settleInputFields(of: schema)
        } catch {
            throw ServerError.invalidAPI(String(describing: error))
        }
        let problems = validateSchema(schema: schema)
        guard problems.isEmpty else {
            throw ServerError.invalidAPI(problems.map(\.message).joined(separator: " "))
        }
    }
}

extension ExecutableSchema {
    /// Builds the fields of every input object type once. A built schema's input types keep
    /// the function that makes their fields from the SDL, and GraphQLSwift calls it each time it
    /// coerces a variable of the type: every mutation's input was built anew from its
    /// definition.
    fileprivate static func settleInputFields(of schema: GraphQLSchema) throws {
        for type in schema.typeMap.values {
            guard let input = type as? GraphQLInputObjectType else { continue }
            let fields = try input.fields()
            input.fields = { fields }
        }
    }
}

/// Attaches resolvers to the fields of the built schema.
private struct Wiring {
    let api: ServerAPI
    let resolver: ModelResolver
    let custom: CustomFieldResolvers
    let log: @Sendable (String) -> Void

    func attach(to schema: GraphQLSchema) throws {
        // Hand-written fields first: a generated field of the same name is an error of the schema.
        var queries = custom.resolvers(of: .query)
        var mutations = custom.resolvers(of: .mutation)
        for model in api.schema.models {
            queries.merge(queryResolvers(of: model)) { first, _ in first }
            mutations.merge(mutationResolvers(of: model)) { first, _ in first }
            let paid = paidRelations(of: model)
            let batches = custom.batches(model.name)
            try attach(
                to: schema,
                type: model.name,
                resolvers: modelTypeResolvers(of: model, paidRelations: paid),
                reading: Set(model.fields.filter { $0.relation != nil }.map(\.name))
            )
            try attach(
                to: schema,
                type: "Model\(model.name)Connection",
                resolvers: connectionResolvers(paying: paid, batches: batches)
            )
            if let field = model.operations.search {
                queries[field] = SearchWiring.queryResolver(of: model, field: field, resolver: resolver, log: log)
                try attach(
                    to: schema,
                    type: "Searchable\(model.name)Connection",
                    resolvers: SearchWiring.connectionResolvers(
                        page: connectionResolvers(paying: paid, batches: batches)
                    )
                )
            }
        }
        try SearchWiring.attachAggregateTypes(to: schema)
        for nonModel in api.schema.nonModels {
            var resolvers: [String: GraphQLFieldResolve] = [:]
            for field in nonModel.fields {
                let name = field.name
                let type = field.type
                let directives = field.awsAuth.isEmpty ? nonModel.awsAuth : field.awsAuth
                let typeName = nonModel.name
                let custom = custom.objectResolvers(of: typeName, fields: [field])[name]
                resolvers[name] = { source, arguments, context, info in
                    guard Authorization.allows(directives, Self.identity(context)) else {
                        throw Authorization.unauthorized(field: name, type: typeName)
                    }
                    if let custom { return try await custom(source, arguments, context, info) }
                    return outputValue((source as? EmbeddedValue)?.values[name], type: type)
                }
            }
            try attach(to: schema, type: nonModel.name, resolvers: resolvers)
        }
        // The root types go by the names a `schema { }` block gives them.
        let roots = api.schema.rootTypes
        try attach(to: schema, type: roots.query, resolvers: queries, countsResolvers: true, reading: Set(queries.keys))
        try attach(
            to: schema,
            type: roots.mutation,
            resolvers: mutations,
            countsResolvers: true,
            reading: Set(mutations.keys)
        )
    }

    /// Sets `resolvers` on the fields of the type `name`; with `countsResolvers`, each run is
    /// counted against the request's ``ResolverBudget``; the fields of `reading` read the store,
    /// through the request's ``AsyncGate``.
    private func attach(
        to schema: GraphQLSchema,
        type name: String,
        resolvers: [String: GraphQLFieldResolve],
        countsResolvers: Bool = false,
        reading: Set<String> = []
    ) throws {
        guard let type = schema.getType(name: name) as? GraphQLObjectType else { return }
        let fields = try type.fields()
        for (name, field) in fields {
            guard let resolve = resolvers[name] else { continue }
            guard countsResolvers || reading.contains(name) else {
                // Most fields: those of every item. A request past its deadline is cancelled
                // and its remaining fields end at once; one out of resolvers is cancelled too,
                // but its answer is decided, and these fields cost nothing and raise no error.
                field.resolve = { source, arguments, context, info in
                    if Task.isCancelled, Self.budget(context)?.isExhausted != true { throw CancellationError() }
                    return try await resolve(source, arguments, context, info)
                }
                continue
            }
            let spanName = "resolve \(type.name).\(name)"
            field.resolve = { source, arguments, context, info in
                let request = context as? RequestContext
                let budget = request?.budget
                if Task.isCancelled, budget?.isExhausted != true { throw CancellationError() }
                if countsResolvers, budget?.spend() == false { return nil }
                if Traces.tracer != nil {
                    return try await Traces.span(spanName, attributes: { $0["stratus.resolver.kind"] = "generated" }) {
                        try await Self.resolve(source, arguments, context, info, resolve, request: request)
                    }
                }
                return try await Self.resolve(source, arguments, context, info, resolve, request: request)
            }
        }
        type.fields = { fields }
    }

    /// Runs the resolver `resolve` of a root field or of a field that reads the store: through
    /// the request's ``AsyncGate``, and to `null` once the request's answer is decided.
    private static func resolve(
        _ source: any Sendable,
        _ arguments: Map,
        _ context: any Sendable,
        _ info: GraphQLResolveInfo,
        _ resolve: GraphQLFieldResolve,
        request: RequestContext?
    ) async throws -> (any Sendable)? {
        let budget = request?.budget
        do {
            guard let gate = request?.reads else { return try await resolve(source, arguments, context, info) }
            return try await gate.run {
                // A resolver that waited may find the request's answer decided.
                if budget?.isExhausted == true { return nil }
                return try await resolve(source, arguments, context, info)
            }
        } catch is CancellationError where budget?.isExhausted == true {
            // Its fields end with `null` rather than errors, which cost more.
            return nil
        }
    }

    /// ``guardedResolve(_:log:_:)`` with the wiring's log.
    private func guarded<T: Sendable>(_ field: String, _ body: () async throws -> T) async throws -> T {
        try await guardedResolve(field, log: log, body)
    }

    // MARK: - Root fields

    private func queryResolvers(of model: ModelType) -> [String: GraphQLFieldResolve] {
        var resolvers: [String: GraphQLFieldResolve] = [:]
        let resolver = resolver
        let operations = model.operations
        if let field = operations.get {
            resolvers[field] = { _, arguments, context, _ in
                let access = try Self.access(.get, model, context, field: field, type: "Query")
                let item = try await guarded(field) { try await resolver.get(model, arguments: arguments.object) }
                if case .rows(let rules) = access, let item, !rules.contains(where: { $0.admits(item.item.values) }) {
                    throw Authorization.unauthorized(field: field, type: "Query")
                }
                return item
            }
        }
        if let field = operations.list {
            resolvers[field] = { _, arguments, context, _ in
                let restriction = try Self.restriction(.list, model, context, field: field)
                return try await guarded(field) {
                    try await resolver.list(
                        model,
                        field: field,
                        arguments: arguments.object,
                        identity: Self.identity(context),
                        restriction: restriction
                    )
                }
            }
        }
        if api.configuration.detectsConflicts(on: model.name), let field = operations.sync {
            resolvers[field] = { _, arguments, context, _ in
                let restriction = try Self.restriction(.sync, model, context, field: field)
                return try await guarded(field) {
                    try await resolver.sync(
                        model,
                        field: field,
                        arguments: arguments.object,
                        identity: Self.identity(context),
                        restriction: restriction
                    )
                }
            }
        }
        for index in model.indexes {
            guard let field = index.queryField else { continue }
            resolvers[field] = { _, arguments, context, _ in
                let restriction = try Self.restriction(.list, model, context, field: field)
                return try await guarded(field) {
                    try await resolver.indexQuery(
                        model,
                        index: index,
                        arguments: arguments.object,
                        identity: Self.identity(context),
                        restriction: restriction
                    )
                }
            }
        }
        return resolvers
    }

    /// The resolver budget of a request.
    static func budget(_ context: Any) -> ResolverBudget? {
        (context as? RequestContext)?.budget
    }

    /// The caller of a request.
    static func identity(_ context: Any) -> Identity {
        (context as? RequestContext)?.identity ?? .anonymous
    }

    /// The caller's reach for a root field of `model`: `@auth` rules when the model has some, else
    /// its `@aws_*` directives.
    static func access(
        _ operation: Authorization.Operation,
        _ model: ModelType,
        _ context: Any,
        field: String,
        type: String
    ) throws(ResolverError) -> Authorization.Access {
        let caller = identity(context)
        let access = Authorization.access(operation, on: model, for: caller)
        if access == .denied {
            Authorization.noteRefusal(Authorization.denial(of: field, on: model, for: caller))
            throw Authorization.unauthorized(field: field, type: type)
        }
        return access
    }

    /// The predicate that narrows a read to the caller's items; `nil` when it may read all.
    static func restriction(
        _ operation: Authorization.Operation,
        _ model: ModelType,
        _ context: Any,
        field: String,
        type: String = "Query"
    ) throws(ResolverError) -> ItemPredicate? {
        guard case .rows(let rules) = try access(operation, model, context, field: field, type: type) else {
            return nil
        }
        return .any(rules.map(\.predicate))
    }

    private func mutationResolvers(of model: ModelType) -> [String: GraphQLFieldResolve] {
        var resolvers: [String: GraphQLFieldResolve] = [:]
        let resolver = resolver
        let schema = api.schema
        let fieldAccess = FieldAccessMatrix(model: model)
        for (field, kind) in ModelResolver.mutationFields(of: model) {
            resolvers[field] = { _, arguments, context, info in
                let access: Authorization.Access
                if let fieldAccess {
                    access = Authorization.writeAccess(kind, to: model, fieldAccess, for: Self.identity(context))
                    if access == .denied { throw Authorization.unauthorized(field: field, type: "Mutation") }
                } else {
                    access = try Self.access(kind.operation, model, context, field: field, type: "Mutation")
                }
                let request = MutationRequest(
                    model: model,
                    schema: schema,
                    field: field,
                    arguments: arguments.object,
                    identity: Self.identity(context),
                    access: access,
                    fieldAccess: fieldAccess,
                    selection: SelectionTrimmer(schema: schema, fragments: info.fragments).plan(
                        for: model,
                        selections: info.fieldASTs.flatMap { $0.selectionSet?.selections ?? [] }
                    ),
                    idempotency: (context as? RequestContext)?.idempotency
                )
                return try await guarded(field) { try await resolver.mutate(kind, request) }
            }
        }
        return resolvers
    }

    // MARK: - Object types

    /// The field resolvers of `model`'s type; those of `paidRelations` do not count again for an
    /// item its page paid for.
    private func modelTypeResolvers(
        of model: ModelType,
        paidRelations: Set<String>
    ) -> [String: GraphQLFieldResolve] {
        var resolvers: [String: GraphQLFieldResolve] = [
            TableLayout.versionColumn: { source, _, _, _ in (source as? ResolvedItem)?.item.version },
            TableLayout.deletedColumn: { source, _, _, _ in (source as? ResolvedItem)?.item.deleted },
            TableLayout.lastChangedAtColumn: { source, _, _, _ in (source as? ResolvedItem)?.item.lastChangedAt },
        ]
        let resolver = resolver
        let answered = custom.objectResolvers(of: model.name, fields: model.fields)
        for field in model.fields {
            let name = field.name
            let type = field.type
            let isPaidByPage = paidRelations.contains(name)
            if let answer = answered[name] {
                resolvers[name] = answer
                continue
            }
            guard let relation = field.relation else {
                resolvers[name] = { source, _, _, _ in
                    outputValue((source as? ResolvedItem)?.item.values[name], type: type)
                }
                continue
            }
            let qualified = "\(model.name).\(name)"
            switch relation.kind {
            case .hasMany:
                let child = api.schema.model(named: relation.relatedModel)
                resolvers[name] = { source, arguments, context, _ in
                    guard let item = source as? ResolvedItem, Self.mayResolve(item, isPaidByPage, context) else {
                        return nil
                    }
                    let restriction = try child.flatMap { child throws(ResolverError) in
                        try Self.restriction(.list, child, context, field: name, type: model.name)
                    }
                    return try await guarded(qualified) {
                        try await resolver.relatedConnection(
                            of: item,
                            relation: relation,
                            field: name,
                            arguments: arguments.object,
                            identity: Self.identity(context),
                            restriction: restriction
                        )
                    }
                }
            case .hasOne, .belongsTo:
                let related = api.schema.model(named: relation.relatedModel)
                resolvers[name] = { source, _, context, _ in
                    guard let item = source as? ResolvedItem, Self.mayResolve(item, isPaidByPage, context) else {
                        return nil
                    }
                    let access = try related.map { related throws(ResolverError) in
                        try Self.access(.get, related, context, field: name, type: model.name)
                    }
                    let found = try await guarded(qualified) {
                        try await resolver.relatedItem(of: item, relation: relation)
                    }
                    if case .rows(let rules) = access, let found,
                        !rules.contains(where: { $0.admits(found.item.values) })
                    {
                        return nil
                    }
                    return found
                }
            }
        }
        return guardedFields(of: model, resolvers)
    }

    /// Wraps the resolvers of fields that `@aws_*` directives or field `@auth` rules guard: a
    /// caller they do not admit gets `null` and an `Unauthorized` error for the field.
    private func guardedFields(
        of model: ModelType,
        _ resolvers: [String: GraphQLFieldResolve]
    ) -> [String: GraphQLFieldResolve] {
        let typeLevel = Authorization.typeModes(awsAuth: model.awsAuth, rules: model.authRules)
        var wrapped = resolvers
        for (name, resolve) in resolvers {
            let field = model.field(named: name)
            let directives: [AWSAuthDirective]
            if let field, !field.awsAuth.isEmpty {
                directives = field.awsAuth
            } else if let field, !field.authRules.isEmpty {
                directives = Authorization.typeModes(awsAuth: [], rules: field.authRules)
            } else {
                directives = typeLevel
            }
            let fieldRules = field?.authRules ?? []
            guard !directives.isEmpty || !fieldRules.isEmpty else { continue }
            let typeName = model.name
            wrapped[name] = { source, arguments, context, info in
                let identity = Self.identity(context)
                guard Authorization.allows(directives, identity) else {
                    throw Authorization.unauthorized(field: name, type: typeName)
                }
                if let field, !fieldRules.isEmpty {
                    switch Authorization.readAccess(to: field, of: model, for: identity, operation: .get) {
                    case .all: break
                    case .denied: throw Authorization.unauthorized(field: name, type: typeName)
                    case .rows(let rules):
                        let values = (source as? ResolvedItem)?.item.values ?? [:]
                        guard rules.contains(where: { $0.admits(values) }) else {
                            throw Authorization.unauthorized(field: name, type: typeName)
                        }
                    }
                }
                return try await resolve(source, arguments, context, info)
            }
        }
        return wrapped
    }

    /// The relation fields of `model` whose resolvers always run when selected: those no
    /// `@aws_*` directive or `@auth` rule guards (a guard may refuse before the resolver runs).
    private func paidRelations(of model: ModelType) -> Set<String> {
        guard Authorization.typeModes(awsAuth: model.awsAuth, rules: model.authRules).isEmpty else { return [] }
        return Set(
            model.fields.filter { $0.relation != nil && $0.awsAuth.isEmpty && $0.authRules.isEmpty }.map(\.name)
        )
    }

    /// Whether the relation resolver of `item` may run: a field its page paid for runs unless the
    /// budget is spent; any other counts one resolver.
    private static func mayResolve(_ item: ResolvedItem, _ isPaidByPage: Bool, _ context: Any) -> Bool {
        guard let budget = budget(context) else { return true }
        return item.isPaidFor && isPaidByPage ? !budget.isExhausted : budget.spend()
    }

    /// The fields of a `Model<T>Connection`; its `items` pay the budget for the relation fields of
    /// `paidRelations` that the selection set asks of every item, and, when `batches` (a field of
    /// the model batches its invocations), know the page they came in.
    private func connectionResolvers(
        paying paidRelations: Set<String>,
        batches: Bool = false
    ) -> [String: GraphQLFieldResolve] {
        [
            "items": { source, _, context, info in
                guard let connection = source as? ResolvedConnection else { return nil }
                var items = connection.items
                if !items.isEmpty, !paidRelations.isEmpty, let budget = Self.budget(context),
                    let selected = RelationSelection.count(of: paidRelations, in: info), selected > 0
                {
                    let (product, overflow) = selected.multipliedReportingOverflow(by: items.count)
                    // Out of resolvers, the request's answer is the one error of the budget: its
                    // items would never be seen.
                    guard !overflow, budget.spend(product) else { return [] as [(any Sendable)?] }
                    for index in items.indices { items[index].isPaidFor = true }
                }
                if batches { items = ResolvedItem.siblings(items) }
                return items.map { $0 as (any Sendable)? }
            },
            "nextToken": { source, _, _, _ in (source as? ResolvedConnection)?.nextToken },
            "startedAt": { source, _, _, _ in (source as? ResolvedConnection)?.startedAt },
        ]
    }
}

/// The relation fields a selection set asks of each item of a list.
enum RelationSelection {
    /// How many distinct response keys of `items`' selection set name a field of `relations`;
    /// `nil` when a directive (`@include`, `@skip`) decides whether some selection runs, which
    /// only execution knows.
    static func count(of relations: Set<String>, in info: GraphQLResolveInfo) -> Int? {
        var keys: Set<String> = []
        var visited: Set<String> = []
        func collect(_ selections: [any Selection]) -> Bool {
            for selection in selections {
                switch selection {
                case let field as GraphQL.Field:
                    guard field.directives.isEmpty else { return false }
                    if relations.contains(field.name.value) { keys.insert(field.alias?.value ?? field.name.value) }
                case let fragment as InlineFragment:
                    guard fragment.directives.isEmpty, collect(fragment.selectionSet.selections) else { return false }
                case let spread as FragmentSpread:
                    guard spread.directives.isEmpty else { return false }
                    guard visited.insert(spread.name.value).inserted else { continue }
                    guard let fragment = info.fragments[spread.name.value], fragment.directives.isEmpty,
                        collect(fragment.selectionSet.selections)
                    else { return false }
                default:
                    return false
                }
            }
            return true
        }
        for field in info.fieldASTs {
            guard collect(field.selectionSet?.selections ?? []) else { return nil }
        }
        return keys.count
    }
}

extension Map {
    /// The arguments of a field as a JSON object; arguments not given are absent.
    var object: JSONObject {
        JSON(self)?.objectValue ?? [:]
    }
}

/// Runs a resolver, turning failures other than ``ResolverError`` into an internal failure that
/// `log` explains. A request cancelled (at its execution deadline, or by its client leaving)
/// runs no more resolvers: each throws `CancellationError` at once.
func guardedResolve<T: Sendable>(
    _ field: String,
    log: @Sendable (String) -> Void,
    _ body: () async throws -> T
) async throws -> T {
    try Task.checkCancellation()
    do {
        return try await body()
    } catch let error as ResolverError {
        throw error
    } catch let error as CancellationError {
        throw error
    } catch {
        log("The resolver of '\(field)' failed: \(error)")
        throw ResolverError.internalFailure
    }
}
