import AWSWire
import GraphQL
import StratusCodegen

/// A `start` message's subscription, validated against the API: which events it hears, which of
/// them pass its filters, and the selection set its `data` messages carry.
struct SubscriptionRequest: Sendable {
    let model: ModelType
    let kind: WriteEvent.Kind
    /// The key of the root field in `data`: its alias or its name (`onCreatePost`).
    let responseKey: String
    /// The argument equality filters and the `filter` argument, all of which must hold.
    let predicate: ItemPredicate
    /// The root field's selection set, read once.
    let selection: SelectionTrimmer.Plan
    /// The arguments other than `filter`, such as an owner rule's `owner`.
    var equalityArguments: JSONObject = [:]
    /// The root field's name: `onCreatePost`.
    var fieldName = ""
    /// The response key and the selection set written out: subscriptions with the same key
    /// get the same payload for an event, whatever their documents' spelling, operation names
    /// or variables.
    var selectionKey = ""

    /// The events the subscription hears.
    var topic: MutationBroadcaster.Topic { MutationBroadcaster.Topic(model: model.name, kind: kind) }

    /// Whether the event is one this subscription hears.
    func matches(_ event: WriteEvent) -> Bool {
        Self.matches(event, kind: kind, modelName: model.name, filter: filter)
    }

    /// The predicate to evaluate on events; `nil` when there is no filter, as for most
    /// subscriptions.
    var filter: ItemPredicate? {
        if case .all(let predicates) = predicate, predicates.isEmpty { return nil }
        return predicate
    }

    /// Whether `event` is a write of `kind` to model `modelName` that passes `filter`: the rule
    /// of ``matches(_:)``, for callers that keep these parts at hand.
    static func matches(_ event: WriteEvent, kind: WriteEvent.Kind, modelName: String, filter: ItemPredicate?) -> Bool {
        guard event.kind == kind, event.modelName == modelName else { return false }
        return filter?.evaluate(event.result.item) ?? true
    }

    /// The `payload` of the `data` message for `event`: the selection set over the mutation's
    /// result, fields the mutation did not select being `null`.
    func payload(for event: WriteEvent) -> JSON {
        let item = selection.apply(to: event.result.item)
        return ["data": .object(JSONObject([(responseKey, item)]))]
    }
}

/// Why a `start` message was refused: the `errors` of its `error` message.
struct RealtimeError: Error, Sendable, Hashable {
    var errorType: AppSyncErrorType
    var message: String
    var errorCode: Int?

    /// `{"errors":[{"errorType":…,"message":…}]}`, with `errorCode` when there is one.
    var payload: JSON {
        AppSyncError.body([AppSyncError(errorType, message, errorCode: errorCode)])
    }

    static let unauthorized = RealtimeError(
        errorType: .unauthorizedException,
        message: "You are not authorized to make this call.",
        errorCode: 401
    )

    static let notInitialized = RealtimeError(
        errorType: .badRequest,
        message: "The connection is not initialized. Send connection_init and wait for connection_ack before start."
    )

    static func maxSubscriptionsReached(_ limit: Int) -> RealtimeError {
        RealtimeError(
            errorType: .maxSubscriptionsReached,
            message: "Max number of \(limit) subscriptions reached. Stop a subscription before starting another."
        )
    }

    static func duplicateID(_ id: String) -> RealtimeError {
        RealtimeError(
            errorType: .duplicatedOperation,
            message: "A subscription with the id '\(id)' is already running on this connection."
        )
    }

    static func payloadTooLarge(_ limit: Int) -> RealtimeError {
        RealtimeError(
            errorType: .limitExceeded,
            message: "The message is larger than \(limit) bytes, the largest a subscription payload may be."
        )
    }

    static let malformed = RealtimeError(
        errorType: .malformedHttpRequest,
        message: "Unable to parse GraphQL query."
    )
}

extension StratusServer {
    /// Validates the subscription a `start` message carries for `identity`: its filter may name
    /// only fields the caller may read, and its events carry only those.
    ///
    /// - Throws: ``RealtimeError`` with the validation error, or `UnsupportedOperation` when the
    ///   document is a query or a mutation.
    func subscriptionRequest(
        query: String,
        variables: JSONObject,
        operationName: String?,
        identity: Identity
    ) throws(RealtimeError) -> SubscriptionRequest {
        let graphQLSchema = executable.schema
        let document: Document
        switch self.document(of: query) {
        case .success(let valid):
            document = valid
        case .failure(let failure):
            throw RealtimeError(
                errorType: failure.isSyntaxError ? .invalidSyntax : .validationError,
                message: failure.message
            )
        }
        let operations = document.definitions.compactMap { $0 as? OperationDefinition }
        guard let operation = operations.first(where: { operationName == nil || $0.name?.value == operationName })
        else {
            throw RealtimeError(
                errorType: .validationError,
                message: "Unknown operation named '\(operationName ?? "")'."
            )
        }
        guard operation.operation == .subscription else {
            throw RealtimeError(
                errorType: .unsupportedOperation,
                message: "\(operation.operation.rawValue) not supported through the realtime channel"
            )
        }
        if let problem = RequestValidation.checkVariables(of: operation, values: variables, schema: graphQLSchema) {
            throw RealtimeError(errorType: .validationError, message: problem.message)
        }
        var fragments: [String: FragmentDefinition] = [:]
        for case let fragment as FragmentDefinition in document.definitions {
            fragments[fragment.name.value] = fragment
        }
        guard let field = operation.selectionSet.selections.first as? GraphQL.Field,
            let match = api.schema.models.lazy.compactMap({ model in
                WriteEvent.Kind(subscription: field.name.value, of: model).map { (model: model, kind: $0) }
            }).first
        else {
            throw RealtimeError(
                errorType: .validationError,
                message: "A subscription selects one model subscription field, such as onCreate<Model>."
            )
        }
        let model = match.model
        var variableValues: [String: Map] = [:]
        for (name, value) in variables {
            variableValues[name] = value.map
        }
        var predicates: [ItemPredicate] = []
        var equalityArguments = JSONObject()
        do {
            for argument in field.arguments {
                let value = JSON(try valueFromASTUntyped(valueAST: argument.value, variables: variableValues)) ?? .null
                guard !value.isNull else { continue }
                if argument.name.value == "filter" {
                    try Self.checkMembershipOperands(value)
                    if let predicate = try PredicateParser(
                        model: model,
                        schema: api.schema,
                        identity: identity,
                        operation: .listen
                    ).parse(value) {
                        predicates.append(predicate)
                    }
                } else if let modelField = model.field(named: argument.name.value) {
                    equalityArguments[modelField.name] = value
                    predicates.append(
                        .field(
                            modelField.name,
                            .compare(.eq, try storedValue(value, type: modelField.type, in: api.schema))
                        )
                    )
                }
            }
        } catch let error as ResolverError {
            throw RealtimeError(errorType: error.errorType ?? .validationError, message: error.message)
        } catch {
            throw RealtimeError(errorType: .validationError, message: "\(error)")
        }
        let responseKey = field.alias?.value ?? field.name.value
        let selection = SelectionTrimmer(schema: api.schema, fragments: fragments).plan(
            for: model,
            selections: field.selectionSet?.selections ?? []
        )
        .readable(by: identity, in: model, schema: api.schema, operation: .listen)
        return SubscriptionRequest(
            model: model,
            kind: match.kind,
            responseKey: responseKey,
            predicate: predicates.count == 1 ? predicates[0] : .all(predicates),
            selection: selection,
            equalityArguments: equalityArguments,
            fieldName: field.name.value,
            selectionKey: selectionKeys.intern(JSON.string(responseKey).text + ":" + selection.signature)
        )
    }

    /// AppSync refuses `in` and `notIn` with more than five values in subscription filters.
    private static func checkMembershipOperands(_ filter: JSON) throws(ResolverError) {
        switch filter {
        case .object(let members):
            for (name, value) in members {
                if name == "in" || name == "notIn", let values = value.arrayValue, values.count > 5 {
                    throw ResolverError.invalidInput(
                        "The filter operator '\(name)' takes at most 5 values; it got \(values.count)."
                    )
                }
                try checkMembershipOperands(value)
            }
        case .array(let elements):
            for element in elements { try checkMembershipOperands(element) }
        default:
            break
        }
    }
}

extension SelectionTrimmer.Plan {
    /// The plan written out: two plans of one model with the same signature write the same
    /// object for every item.
    var signature: String {
        entries.map { key, entry in JSON.string(key).text + "=" + Self.signature(of: entry) }.joined(separator: ",")
    }

    private static func signature(of entry: Entry) -> String {
        switch entry {
        case .constant(let value): value.text
        case .version: "_version"
        case .deleted: "_deleted"
        case .lastChangedAt: "_lastChangedAt"
        case .value(let name, _, let members): "." + name + (members.map { "{" + $0.signature + "}" } ?? "")
        case .guarded(let rules, let entry):
            // Readers with the same rules read the same items' values.
            "?" + JSON.array(rules.map { .array([.string($0.field), .array($0.values.map(JSON.string))]) }).text
                + signature(of: entry)
        }
    }
}
