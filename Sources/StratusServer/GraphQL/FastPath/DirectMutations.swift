import GraphQL
import StratusCodegen
import Tracing

/// Answers the commonest mutations, a single `create*`, `update*` or `delete*` whose arguments
/// are variables, without GraphQLSwift's executor, which starts a task for each selected field
/// of the answer: with nine fields selected, a `create*` cost twice the server time of one
/// selecting `id`.
///
/// It runs the mutation's resolver with the arguments the executor would give it (each variable
/// coerced as GraphQL coerces it: input fields in their type's order, scalars through their
/// `parseValue`) and writes the body the executor writes, errors included. It answers only
/// what it answers exactly so: one root field without directives, every argument a variable
/// without a default, values that coerce without an error, a selection of stored fields
/// (``StoredSelection``), and a caller the model's rules let write. Anything else goes to the
/// executor before the resolver runs.
struct DirectMutations: Sendable {
    private let resolver: ModelResolver
    private let schema: GraphQLSchema
    private let log: @Sendable (String) -> Void
    private let stored: StoredSelection
    /// The model and kind of each mutation field it may answer.
    private let targets: [String: (model: ModelType, kind: WriteEvent.Kind)]

    init(api: ServerAPI, schema: GraphQLSchema, resolver: ModelResolver, log: @escaping @Sendable (String) -> Void) {
        self.resolver = resolver
        self.schema = schema
        self.log = log
        stored = StoredSelection(api: api)
        // Fields that cannot be listed leave every mutation to the executor, which reports the problem.
        let fields = (try? schema.mutationType?.fields()) ?? [:]
        var targets: [String: (model: ModelType, kind: WriteEvent.Kind)] = [:]
        for model in api.schema.models {
            for (field, kind) in ModelResolver.mutationFields(of: model) where targets[field] == nil {
                // A field whose errors would null its parent, or whose arguments have defaults,
                // is the executor's.
                guard let definition = fields[field], !(definition.type is GraphQLNonNull),
                    definition.args.values.allSatisfy({ $0.defaultValue == nil })
                else { continue }
                targets[field] = (model, kind)
            }
        }
        self.targets = targets
    }

    func answer(
        operation: OperationDefinition,
        document: Document,
        fragments: [String: FragmentDefinition],
        variables: JSONObject,
        identity: Identity,
        idempotency: IdempotencyClaim?
    ) async -> JSON? {
        guard let root = StoredSelection.soleRootField(of: operation, .mutation),
            let (model, kind) = targets[root.name.value],
            stored.eligible(model, identity: identity),
            let selections = root.selectionSet?.selections, stored.itemsAreStored(selections, model: model),
            let values = coerceVariables(of: operation, variables)
        else { return nil }
        var arguments = JSONObject()
        for argument in root.arguments {
            guard let variable = argument.value as? Variable else { return nil }
            // A variable left out leaves its argument out, as it does in the executor.
            if let value = values[variable.name.value] { arguments[argument.name.value] = value }
        }
        let access = Authorization.access(kind.operation, on: model, for: identity)
        // A caller refused, and a request cancelled before its write, get the executor's error.
        if access == .denied || Task.isCancelled { return nil }

        let field = root.name.value
        let key = root.alias?.value ?? field
        let plan = SelectionTrimmer(schema: stored.api.schema, fragments: fragments).plan(
            for: model,
            selections: selections
        )
        let request = MutationRequest(
            model: model,
            schema: stored.api.schema,
            field: field,
            arguments: arguments,
            identity: identity,
            access: access,
            selection: plan,
            idempotency: idempotency
        )
        do {
            // Its span is named as the executor's resolver spans are.
            let span = "resolve \(stored.api.schema.rootTypes.mutation).\(field)"
            let item = try await Traces.span(span, attributes: { $0["stratus.resolver.kind"] = "direct" }) {
                try await guardedResolve(field, log: log) { try await resolver.mutate(kind, request) }
            }
            return ["data": .object(JSONObject([(key, plan.apply(to: item.item))]))]
        } catch {
            // As the executor locates a resolver's error: at the field, which answers `null`.
            let located =
                error as? GraphQLError
                ?? GraphQLError(message: String(describing: error), nodes: [root], path: [key], originalError: error)
            return ResponseFormatter.body(
                GraphQLResult(data: [key: .null], errors: [located]),
                document: document
            )
        }
    }

    // MARK: - Coercion

    /// The values of the operation's variables as the executor coerces them, by name; a
    /// variable not sent and without a default is left out. `nil` when a variable has a default
    /// or a value the executor would refuse (it then writes the error).
    private func coerceVariables(of operation: OperationDefinition, _ variables: JSONObject) -> JSONObject? {
        var values = JSONObject()
        for definition in operation.variableDefinitions {
            guard definition.defaultValue == nil, let type = InputShape(definition.type, schema: schema),
                let coerced = coerce(variables[definition.variable.name.value], type)
            else { return nil }
            if case .value(let value) = coerced { values[definition.variable.name.value] = value }
        }
        return values
    }

    /// A value coerced: absent (GraphQL's undefined) or a value.
    private enum Coerced {
        case absent
        case value(JSON)
    }

    /// `value` coerced to `type` as GraphQLSwift validates and coerces a variable; `nil` when
    /// its validation would fail.
    private func coerce(_ value: JSON?, _ type: InputShape) -> Coerced? {
        guard let value, !value.isNull else {
            if type.isNonNull { return nil }
            return value == nil ? .absent : .value(.null)
        }
        switch type.kind {
        case .list(let item):
            // A value that is not a list is a list of one.
            guard case .array(let elements) = value else {
                guard case .value(let element)? = coerce(value, item) else { return nil }
                return .value(.array([element]))
            }
            var coerced: [JSON] = []
            coerced.reserveCapacity(elements.count)
            for element in elements {
                guard case .value(let element)? = coerce(element, item) else { return nil }
                coerced.append(element)
            }
            return .value(.array(coerced))
        case .named(let named):
            if let leaf = named as? any GraphQLLeafType {
                // A value this path cannot coerce leaves the request to the executor, which answers its error.
                guard let parsed = try? leaf.parseValue(value: value.map), parsed != .null, parsed != .undefined,
                    let json = JSON(parsed)
                else { return nil }
                return .value(json)
            }
            // An input type whose fields cannot be listed leaves the request to the executor as well.
            guard let object = named as? GraphQLInputObjectType, !object.isOneOf, case .object(let members) = value,
                let fields = try? object.fields(), members.keys.allSatisfy({ fields[$0] != nil })
            else { return nil }
            var coerced = JSONObject()
            for (name, field) in fields {
                guard let fieldType = InputShape(field.type) else { return nil }
                if let member = members[name] {
                    guard case .value(let member)? = coerce(member, fieldType) else { return nil }
                    coerced[name] = member
                } else if fieldType.isNonNull {
                    return nil
                } else if let defaultValue = field.defaultValue {
                    guard let json = JSON(defaultValue) else { return nil }
                    coerced[name] = json
                }
            }
            return .value(.object(coerced))
        }
    }

    /// An input type: the type of a variable's definition or of an input field.
    private struct InputShape {
        indirect enum Kind {
            case list(InputShape)
            case named(any GraphQLInputType)
        }

        var isNonNull = false
        var kind: Kind

        init?(_ type: any GraphQL.`Type`, schema: GraphQLSchema) {
            switch type {
            case let nonNull as NonNullType:
                guard let inner = InputShape(nonNull.type, schema: schema) else { return nil }
                self = inner
                isNonNull = true
            case let list as ListType:
                guard let inner = InputShape(list.type, schema: schema) else { return nil }
                kind = .list(inner)
            case let named as NamedType:
                guard let type = schema.getType(name: named.name.value) as? any GraphQLInputType else { return nil }
                kind = .named(type)
            default:
                return nil
            }
        }

        init?(_ type: any GraphQLInputType) {
            switch type {
            case let nonNull as GraphQLNonNull:
                guard let inner = (nonNull.ofType as? any GraphQLInputType).flatMap(InputShape.init) else { return nil }
                self = inner
                isNonNull = true
            case let list as GraphQLList:
                guard let inner = (list.ofType as? any GraphQLInputType).flatMap(InputShape.init) else { return nil }
                kind = .list(inner)
            default:
                kind = .named(type)
            }
        }
    }
}
