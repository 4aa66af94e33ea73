import GraphQL
import StratusCodegen

/// The resolvers of hand-written queries and mutations, as ``CustomFieldPlan`` plans them.
struct CustomFieldResolvers {
    let schema: AnnotatedSchema
    let plan: CustomFieldPlan
    let functions: LocalFunctions
    /// Where hand-written mutations publish their results to hand-written subscriptions.
    let events: HandWrittenEvents
    /// What `@http` fields and HTTP data sources send their requests with.
    let http: HTTPDataSource

    /// The resolvers of the root type of `kind`, by field name.
    func resolvers(of kind: CustomOperation.Kind) -> [String: GraphQLFieldResolve] {
        var resolvers: [String: GraphQLFieldResolve] = [:]
        let typeName = schema.rootTypes.name(of: kind)
        for operation in schema.operations where operation.kind == kind {
            guard let source = plan.sources["\(typeName).\(operation.name)"] else { continue }
            let directives =
                operation.awsAuth.isEmpty
                ? Authorization.typeModes(awsAuth: [], rules: operation.authRules) : operation.awsAuth
            let (name, type, schema, functions, events, http) = (
                operation.name, operation.type, schema, functions, events, self.http
            )
            // Whether a subscription's `@aws_subscribe(mutations:)` lists this mutation.
            let publishes =
                kind == .mutation
                && schema.operations.contains { $0.subscribedMutations?.contains(operation.name) == true }
            resolvers[name] = { parent, arguments, context, info in
                let identity = (context as? RequestContext)?.identity ?? .anonymous
                guard Authorization.admits(directives, identity) else {
                    throw Authorization.unauthorized(field: name, type: typeName)
                }
                let event = FunctionEvent(arguments: arguments.object, source: .null, identity: identity, info: info)
                guard
                    let value = try await Self.value(
                        of: source,
                        event: event,
                        parent: nil,
                        functions: functions,
                        http: http
                    )
                else {
                    return nil
                }
                if publishes, case .object(let result) = value {
                    let selections = info.fieldASTs.flatMap { $0.selectionSet?.selections ?? [] }
                    try await events.announce(mutation: name, result: Self.selected(result, selections, info.fragments))
                }
                return Self.output(value, type: type, schema: schema)
            }
        }
        return resolvers
    }

    /// The resolvers of the fields of the object type `typeName` that a function or a NONE data
    /// source answers, by field name: the function receives the parent (a model's item, an
    /// embedded value) as `source`. Each run counts against the request's ``ResolverBudget``;
    /// who may read the field is decided where the type's other fields are guarded.
    func objectResolvers(of typeName: String, fields: [StratusCodegen.Field]) -> [String: GraphQLFieldResolve] {
        var resolvers: [String: GraphQLFieldResolve] = [:]
        for field in fields {
            guard let source = plan.sources["\(typeName).\(field.name)"] else { continue }
            let (type, schema, functions, http) = (field.type, schema, functions, self.http)
            resolvers[field.name] = { parent, arguments, context, info in
                let request = context as? RequestContext
                if let budget = request?.budget, !budget.spend() { return nil }
                let parentValue: JSON =
                    switch parent {
                    case let item as ResolvedItem: item.source
                    case let embedded as EmbeddedValue: .object(embedded.values)
                    default: .null
                    }
                let event = FunctionEvent(
                    arguments: arguments.object,
                    source: parentValue,
                    identity: request?.identity ?? .anonymous,
                    info: info
                )
                guard
                    let value = try await Self.value(
                        of: source,
                        event: event,
                        parent: parent,
                        functions: functions,
                        http: http
                    )
                else { return nil }
                return Self.output(value, type: type, schema: schema)
            }
        }
        return resolvers
    }

    /// Whether a field of the object type `typeName` batches its invocations.
    func batches(_ typeName: String) -> Bool {
        plan.sources.contains { key, source in
            guard case .batch = source else { return false }
            return key.hasPrefix(typeName + ".")
        }
    }

    /// The value `source` gives the field of `event`; `nil` for a field without a resolver.
    private static func value(
        of source: CustomFieldPlan.Source,
        event: FunctionEvent,
        parent: Any?,
        functions: LocalFunctions,
        http: HTTPDataSource
    ) async throws -> JSON? {
        let field = "\(event.parentTypeName).\(event.fieldName)"
        switch source {
        case .unresolved:
            return nil
        case .none:
            return .object(event.arguments)
        case .http(let request):
            return try await http.send(try request.request(for: event, field: field), field: field)
        case .httpDataSource(let url):
            var request = HTTPDataSource.Request(method: .post, url: url.absoluteString, body: event.direct)
            request.headers = HTTPDataSource.copiedHeaders(event.headers)
            request.setHeader("accept-encoding", "application/json")
            request.setHeader("Content-Type", "application/json")
            return try await http.send(request, field: field)
        case .direct(let function):
            return try await Self.invoke(functions, function, event.direct)
        case .batch(let function, let size):
            let field = event.responseKey
            guard let item = parent as? ResolvedItem, let (list, index) = item.siblings else {
                // A parent read alone is a batch of one.
                return try await invokeBatch(functions, function, event: event, sources: [event.source])[0].get()
            }
            return try await list.answer(for: index, field: field, size: size) { items in
                await invokeBatch(functions, function, event: event, sources: items.map(\.source))
            }.get()
        case .pipeline(let names):
            var previous: JSON = [:]
            for function in names {
                previous = try await Self.invoke(functions, function, event.amplify(previous: previous))
            }
            return previous
        }
    }

    /// Invokes `name` once for the parents `sources` (`BatchInvoke`): the event is an array of
    /// context objects, one per parent, and the answer an array of results in the same order,
    /// each a value or `{"data": …, "errorMessage": …, "errorType": …}`.
    private static func invokeBatch(
        _ functions: LocalFunctions,
        _ name: String,
        event: FunctionEvent,
        sources: [JSON]
    ) async -> ItemSiblings.Answers {
        let events = sources.map { source in
            var event = event
            event.source = source
            return event.direct
        }
        let answer: JSON
        do {
            answer = try await observed(functions, name, event: .array(events))
        } catch {
            return Array(repeating: .failure(error.resolverError), count: sources.count)
        }
        guard case .array(let results) = answer, results.count == sources.count else {
            let failure = ResolverError(
                errorType: .lambdaUnhandled,
                message:
                    "The function '\(name)' answered \(answer.arrayValue.map { "\($0.count) results" } ?? "no array") "
                    + "for a batch of \(sources.count). A batched function answers an array with one result per "
                    + "event, in order."
            )
            return Array(repeating: .failure(failure), count: sources.count)
        }
        return results.map(Self.batchResult)
    }

    /// One result of a batch: `{"data": …, "errorMessage": …, "errorType": …}` (an object with
    /// those keys only) gives its `data`, or its error when `errorMessage` is set; any other value
    /// is the field's value.
    static func batchResult(_ result: JSON) -> Result<JSON, ResolverError> {
        let keys: Set<String> = ["data", "errorMessage", "errorType"]
        guard case .object(let object) = result, !object.isEmpty, Set(object.keys).isSubset(of: keys) else {
            return .success(result)
        }
        if let message = object["errorMessage"]?.stringValue {
            var error = ResolverError(errorType: nil, message: message)
            error.reportedErrorType = object["errorType"]?.stringValue
            return .failure(error)
        }
        return .success(object["data"] ?? .null)
    }

    private static func invoke(_ functions: LocalFunctions, _ name: String, _ event: JSON) async throws -> JSON {
        do {
            return try await observed(functions, name, event: event)
        } catch {
            throw error.resolverError
        }
    }

    /// Invokes `name` in a span of its own, counted and timed in the request's metrics.
    private static func observed(
        _ functions: LocalFunctions,
        _ name: String,
        event: JSON
    ) async throws(FunctionFailure) -> JSON {
        let start = ContinuousClock.now
        do {
            let answer = try await Traces.span("function \(name)", attributes: { $0["faas.invoked_name"] = name }) {
                () async throws(FunctionFailure) -> JSON in try await functions.invoke(name, event: event)
            }
            ServerMetrics.current?.functionInvoked(name, outcome: "success", duration: .now - start)
            return answer
        } catch {
            let outcome =
                switch error.kind {
                case .handled: "error"
                case .timedOut: "timeout"
                case .exited: "crash"
                case .invalidResult: "invalid_result"
                }
            ServerMetrics.current?.functionInvoked(name, outcome: outcome, duration: .now - start)
            throw error
        }
    }

    /// `object` with only the fields `selections` select, by field name, as a mutation's result
    /// reaches subscriptions.
    static func selected(
        _ object: JSONObject,
        _ selections: [any Selection],
        _ fragments: [String: FragmentDefinition]
    ) -> JSONObject {
        var result = JSONObject()
        func keep(_ value: JSON, _ selections: [any Selection]) -> JSON {
            switch value {
            case .object(let nested) where !selections.isEmpty: .object(Self.selected(nested, selections, fragments))
            case .array(let elements): .array(elements.map { keep($0, selections) })
            default: value
            }
        }
        for selection in selections {
            switch selection {
            case let field as GraphQL.Field:
                let name = field.name.value
                guard name != "__typename", let value = object[name] else { continue }
                result[name] = keep(value, field.selectionSet?.selections ?? [])
            case let inline as InlineFragment:
                for (key, value) in Self.selected(object, inline.selectionSet.selections, fragments) {
                    result[key] = value
                }
            case let spread as FragmentSpread:
                guard let fragment = fragments[spread.name.value] else { continue }
                for (key, value) in Self.selected(object, fragment.selectionSet.selections, fragments) {
                    result[key] = value
                }
            default:
                continue
            }
        }
        return result
    }

    /// A function's result as GraphQL execution takes it: items of models as ``ResolvedItem``s,
    /// other values as ``outputValue(_:type:)`` makes them.
    static func output(_ value: JSON, type: FieldType, schema: AnnotatedSchema) -> (any Sendable)? {
        guard type.kind == .model, let model = schema.model(named: type.name) else {
            return outputValue(value, type: type)
        }
        func item(_ value: JSON) -> ResolvedItem? {
            guard case .object(let values) = value else { return nil }
            return ResolvedItem(
                model: model,
                item: StoredItem(
                    values: values,
                    version: values[TableLayout.versionColumn]?.intValue,
                    deleted: values[TableLayout.deletedColumn]?.boolValue,
                    lastChangedAt: values[TableLayout.lastChangedAtColumn]?.intValue
                )
            )
        }
        if type.isList, case .array(let elements) = value {
            return ResolvedItem.siblings(elements.compactMap(item)).map { $0 as (any Sendable)? }
        }
        return item(value)
    }
}
