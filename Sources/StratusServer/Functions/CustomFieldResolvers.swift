import GraphQL
import StratusCodegen

/// The resolvers of hand-written queries and mutations, as ``CustomFieldPlan`` plans them.
struct CustomFieldResolvers {
    let schema: AnnotatedSchema
    let plan: CustomFieldPlan
    let functions: LocalFunctions
    /// Where hand-written mutations publish their results to hand-written subscriptions.
    let events: HandWrittenEvents

    /// The resolvers of the root type of `kind`, by field name.
    func resolvers(of kind: CustomOperation.Kind) -> [String: GraphQLFieldResolve] {
        var resolvers: [String: GraphQLFieldResolve] = [:]
        let typeName = schema.rootTypes.name(of: kind)
        for operation in schema.operations where operation.kind == kind {
            guard let source = plan.sources["\(typeName).\(operation.name)"] else { continue }
            let directives =
                operation.awsAuth.isEmpty
                ? Authorization.typeModes(awsAuth: [], rules: operation.authRules) : operation.awsAuth
            let (name, type, schema, functions, events) = (operation.name, operation.type, schema, functions, events)
            // Whether a subscription's `@aws_subscribe(mutations:)` lists this mutation.
            let publishes =
                kind == .mutation
                && schema.operations.contains { $0.subscribedMutations?.contains(operation.name) == true }
            resolvers[name] = { parent, arguments, context, info in
                let identity = (context as? RequestContext)?.identity ?? .anonymous
                guard Authorization.admits(directives, identity) else {
                    throw Authorization.unauthorized(field: name, type: typeName)
                }
                let value: JSON
                switch source {
                case .unresolved:
                    return nil
                case .none:
                    value = .object(arguments.object)
                case .direct(let function):
                    let event = FunctionEvent(
                        arguments: arguments.object,
                        source: .null,
                        identity: identity,
                        info: info
                    )
                    value = try await Self.invoke(functions, function, event.direct)
                case .pipeline(let names):
                    let event = FunctionEvent(
                        arguments: arguments.object,
                        source: .null,
                        identity: identity,
                        info: info
                    )
                    var previous: JSON = [:]
                    for function in names {
                        previous = try await Self.invoke(functions, function, event.amplify(previous: previous))
                    }
                    value = previous
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

    private static func invoke(_ functions: LocalFunctions, _ name: String, _ event: JSON) async throws -> JSON {
        do {
            return try await functions.invoke(name, event: event)
        } catch {
            throw error.resolverError
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
            return elements.compactMap(item).map { $0 as (any Sendable)? }
        }
        return item(value)
    }
}
