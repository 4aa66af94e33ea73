import GraphQL
import StratusCodegen

/// The resolvers of hand-written queries and mutations, as ``CustomFieldPlan`` plans them.
struct CustomFieldResolvers {
    let schema: AnnotatedSchema
    let plan: CustomFieldPlan
    let functions: LocalFunctions

    /// The resolvers of the root type of `kind`, by field name.
    func resolvers(of kind: CustomOperation.Kind) -> [String: GraphQLFieldResolve] {
        var resolvers: [String: GraphQLFieldResolve] = [:]
        let typeName = schema.rootTypes.name(of: kind)
        for operation in schema.operations where operation.kind == kind {
            guard let source = plan.sources["\(typeName).\(operation.name)"] else { continue }
            let directives =
                operation.awsAuth.isEmpty
                ? Authorization.typeModes(awsAuth: [], rules: operation.authRules) : operation.awsAuth
            let (name, type, schema, functions) = (operation.name, operation.type, schema, functions)
            resolvers[name] = { parent, arguments, context, info in
                let identity = (context as? RequestContext)?.identity ?? .anonymous
                guard Authorization.allows(directives, identity) else {
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
