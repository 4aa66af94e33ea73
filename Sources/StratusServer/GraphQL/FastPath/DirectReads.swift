import GraphQL
import StratusCodegen
import Tracing

/// Answers the commonest reads, a single `list*`, `sync*` or index query over stored fields,
/// without GraphQLSwift's executor, which starts a task per item and per field.
///
/// It answers only what it answers exactly as the executor would: one root field, no
/// directives, connection fields `items`, `nextToken`, `startedAt` and `__typename`, items
/// selecting stored fields, embedded values and sync metadata (no relations), on a model whose
/// fields no `@aws_*` directive or field `@auth` rule guards. Anything else, and any failure,
/// goes to the executor, which then writes the response (errors included) as usual.
struct DirectReads: Sendable {
    let api: ServerAPI
    let resolver: ModelResolver
    private let stored: StoredSelection
    /// The model and kind of read of each root query field it may answer.
    private let targets: [String: (model: ModelType, kind: Kind)]

    private enum Kind {
        case list, sync
        case index(Index)
    }

    init(api: ServerAPI, resolver: ModelResolver) {
        self.api = api
        self.resolver = resolver
        stored = StoredSelection(api: api)
        var targets: [String: (model: ModelType, kind: Kind)] = [:]
        for model in api.schema.models {
            if let list = model.operations.list { targets[list] = (model, .list) }
            if api.configuration.detectsConflicts(on: model.name), let sync = model.operations.sync {
                targets[sync] = (model, .sync)
            }
            for index in model.indexes {
                if let field = index.queryField { targets[field] = (model, .index(index)) }
            }
        }
        self.targets = targets
    }

    func answer(
        operation: OperationDefinition,
        fragments: [String: FragmentDefinition],
        variables: JSONObject,
        identity: Identity
    ) async -> JSON? {
        guard let root = StoredSelection.soleRootField(of: operation, .query),
            let (model, kind) = targets[root.name.value],
            stored.eligible(model, identity: identity),
            let connection = root.selectionSet?.selections, let connectionFields = stored.plainFields(connection)
        else { return nil }
        for field in connectionFields {
            switch field.name.value {
            case "nextToken", "startedAt", "__typename":
                guard field.selectionSet == nil else { return nil }
            case "items":
                guard let items = field.selectionSet?.selections, stored.itemsAreStored(items, model: model) else {
                    return nil
                }
            default:
                return nil
            }
        }
        var variableValues: [String: Map] = [:]
        for (name, value) in variables {
            variableValues[name] = value.map
        }
        var arguments = JSONObject()
        for argument in root.arguments {
            // A variable the request declares but does not send leaves its argument out, as
            // GraphQL coerces it (DataStore's sync queries declare `$filter` and `$lastSync`).
            if let variable = argument.value as? Variable, variables[variable.name.value] == nil,
                operation.variableDefinitions.first(where: { $0.variable.name.value == variable.name.value })?
                    .defaultValue == nil
            {
                continue
            }
            // An argument this path cannot read leaves the request to the executor, which answers its error.
            guard let value = try? valueFromASTUntyped(valueAST: argument.value, variables: variableValues),
                let json = JSON(value)
            else { return nil }
            if !json.isNull { arguments[argument.name.value] = json }
        }
        let operationKind: Authorization.Operation = if case .sync = kind { .sync } else { .list }
        let restriction: ItemPredicate?
        switch Authorization.access(operationKind, on: model, for: identity) {
        case .denied: return nil
        case .all: restriction = nil
        case .rows(let rules): restriction = .any(rules.map(\.predicate))
        }
        let field = root.name.value
        let result: ResolvedConnection
        do {
            // Its span is named as the executor's resolver spans are.
            let span = "resolve \(api.schema.rootTypes.query).\(field)"
            result = try await Traces.span(span, attributes: { $0["stratus.resolver.kind"] = "direct" }) {
                switch kind {
                case .list:
                    return try await resolver.list(
                        model,
                        field: field,
                        arguments: arguments,
                        identity: identity,
                        restriction: restriction
                    )
                case .sync:
                    return try await resolver.sync(
                        model,
                        field: field,
                        arguments: arguments,
                        identity: identity,
                        restriction: restriction
                    )
                case .index(let index):
                    return try await resolver.indexQuery(
                        model,
                        index: index,
                        arguments: arguments,
                        identity: identity,
                        restriction: restriction
                    )
                }
            }
        } catch {
            return nil
        }
        let trimmer = SelectionTrimmer(schema: api.schema, fragments: fragments)
        var body = JSONObject()
        for selected in connectionFields {
            let key = selected.alias?.value ?? selected.name.value
            switch selected.name.value {
            case "items":
                let plan = trimmer.plan(for: model, selections: selected.selectionSet?.selections ?? [])
                body[key] = .array(result.items.map { plan.apply(to: $0.item) })
            case "nextToken":
                body[key] = result.nextToken.map(JSON.string) ?? .null
            case "startedAt":
                body[key] = result.startedAt.map(JSON.int) ?? .null
            default:
                body[key] = .string("Model\(model.name)Connection")
            }
        }
        return ["data": .object(JSONObject([(root.alias?.value ?? field, .object(body))]))]
    }
}
