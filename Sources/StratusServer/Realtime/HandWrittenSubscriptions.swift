import GraphQL
import StratusCodegen
import Synchronization

/// The results of hand-written mutations, heard by the hand-written subscriptions whose
/// `@aws_subscribe(mutations:)` lists them: the local-resolver pub/sub pattern, where a NONE
/// mutation's arguments reach every subscriber whose arguments match.
///
/// Each subscription argument given a value must equal the result's field of that name, as
/// AppSync filters them. Events reach the subscribers of this server only (not other instances
/// sharing a PostgreSQL database).
final class HandWrittenEvents: Sendable {
    struct Subscriber: Sendable {
        /// The mutation fields it hears: `publish`.
        let mutations: [String]
        let arguments: JSONObject
        let deliver: @Sendable (JSONObject) -> Void
    }

    private struct State {
        var next: UInt64 = 1
        var subscribers: [UInt64: Subscriber] = [:]
    }

    private let state = Mutex(State())

    func subscribe(_ subscriber: Subscriber) -> UInt64 {
        state.withLock { state in
            defer { state.next += 1 }
            state.subscribers[state.next] = subscriber
            return state.next
        }
    }

    func unsubscribe(_ token: UInt64) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: token) }
    }

    /// Hands `result`, the mutation `mutation`'s result as it selected it, to the subscribers
    /// that hear it.
    func publish(mutation: String, result: JSONObject) {
        let hearing = state.withLock { state in
            state.subscribers.values.filter { subscriber in
                subscriber.mutations.contains(mutation)
                    && subscriber.arguments.allSatisfy { name, value in value.isNull || result[name] == value }
            }
        }
        for subscriber in hearing { subscriber.deliver(result) }
    }
}

/// A `start` message's subscription to a hand-written subscription field.
struct HandWrittenSubscription: Sendable {
    let operation: CustomOperation
    /// The key of the root field in `data`.
    let responseKey: String
    /// The arguments given, variables replaced.
    let arguments: JSONObject
    let selections: [any Selection]
    let fragments: [String: FragmentDefinition]
    let schema: AnnotatedSchema

    /// The `payload` of the `data` message for a mutation's result.
    func payload(for result: JSONObject) -> JSON {
        ["data": .object(JSONObject([(responseKey, Self.shape(.object(result), selections, operation.type, self))]))]
    }

    /// `value` with the fields `selections` select, in their order and by their response keys;
    /// fields the mutation did not select are `null`.
    private static func shape(
        _ value: JSON,
        _ selections: [any Selection],
        _ type: FieldType,
        _ subscription: HandWrittenSubscription
    ) -> JSON {
        if case .array(let elements) = value {
            var element = type
            element.isList = false
            return .array(elements.map { shape($0, selections, element, subscription) })
        }
        guard case .object(let object) = value, !selections.isEmpty else { return value }
        var shaped = JSONObject()
        func collect(_ selections: [any Selection]) {
            for selection in selections {
                switch selection {
                case let field as GraphQL.Field:
                    let name = field.name.value
                    let key = field.alias?.value ?? name
                    if name == "__typename" {
                        shaped[key] = .string(type.name)
                        continue
                    }
                    let fieldType = subscription.schema.nonModel(named: type.name)?.field(named: name)?.type
                    let member = object[name] ?? .null
                    shaped[key] =
                        fieldType.map { shape(member, field.selectionSet?.selections ?? [], $0, subscription) }
                        ?? member
                case let inline as InlineFragment:
                    collect(inline.selectionSet.selections)
                case let spread as FragmentSpread:
                    if let fragment = subscription.fragments[spread.name.value] {
                        collect(fragment.selectionSet.selections)
                    }
                default:
                    continue
                }
            }
        }
        collect(selections)
        return .object(shaped)
    }
}

extension StratusServer {
    /// The hand-written subscription a `start` message asks for; `nil` when its root field is
    /// not a hand-written subscription with `@aws_subscribe(mutations:)`.
    ///
    /// - Throws: ``RealtimeError`` when the caller's mode is not one the field's `@aws_*`
    ///   directives or static `@auth` rules admit.
    func handWrittenSubscription(
        query: String,
        variables: JSONObject,
        operationName: String?,
        identity: Identity
    ) throws(RealtimeError) -> HandWrittenSubscription? {
        guard case .success(let document) = self.document(of: query) else { return nil }
        let operations = document.definitions.compactMap { $0 as? OperationDefinition }
        guard let definition = operations.first(where: { operationName == nil || $0.name?.value == operationName }),
            definition.operation == .subscription,
            definition.selectionSet.selections.count == 1,
            let field = definition.selectionSet.selections.first as? GraphQL.Field,
            let operation = api.schema.operations.first(where: {
                $0.kind == .subscription && $0.name == field.name.value && $0.subscribedMutations != nil
            })
        else { return nil }
        let directives =
            operation.awsAuth.isEmpty
            ? Authorization.typeModes(awsAuth: [], rules: operation.authRules) : operation.awsAuth
        guard Authorization.admits(directives, identity) else {
            throw RealtimeError(
                errorType: .unauthorized,
                message: "Not Authorized to access \(operation.name) on type \(api.schema.rootTypes.subscription)"
            )
        }
        var variableValues: [String: Map] = [:]
        for (name, value) in variables { variableValues[name] = value.map }
        var arguments = JSONObject()
        for argument in field.arguments {
            // A literal or a variable of a validated document: it always reads.
            if let value = try? valueFromASTUntyped(valueAST: argument.value, variables: variableValues) {
                arguments[argument.name.value] = JSON(value) ?? .null
            }
        }
        var fragments: [String: FragmentDefinition] = [:]
        for case let fragment as FragmentDefinition in document.definitions {
            fragments[fragment.name.value] = fragment
        }
        return HandWrittenSubscription(
            operation: operation,
            responseKey: field.alias?.value ?? field.name.value,
            arguments: arguments,
            selections: field.selectionSet?.selections ?? [],
            fragments: fragments,
            schema: api.schema
        )
    }
}

/// The hand-written subscriptions of one connection, by their `start` ids.
final class HandWrittenStarts: Sendable {
    private struct State {
        var tokens: [String: UInt64] = [:]
        var events: HandWrittenEvents?
    }

    private let state = Mutex(State())

    /// Starts `subscription` as `id`: `start_ack`, then a `data` message for each result.
    func start(
        id: String,
        _ subscription: HandWrittenSubscription,
        on connection: RealtimeConnection,
        events: HandWrittenEvents
    ) throws(RealtimeError) {
        let taken = state.withLock { $0.tokens[id] != nil }
        if taken || connection.hasSubscription(id: id) { throw .duplicateID(id) }
        connection.send(["id": .string(id), "type": "start_ack"])
        let token = events.subscribe(
            HandWrittenEvents.Subscriber(
                mutations: subscription.operation.subscribedMutations ?? [],
                arguments: subscription.arguments
            ) { result in
                connection.send(["id": .string(id), "type": "data", "payload": subscription.payload(for: result)])
            }
        )
        state.withLock { state in
            state.tokens[id] = token
            state.events = events
        }
    }

    /// Stops the subscription `id` with `complete`; `false` when it is not a hand-written one.
    func stop(id: String, on connection: RealtimeConnection) -> Bool {
        let (token, events) = state.withLock { ($0.tokens.removeValue(forKey: id), $0.events) }
        guard let token else { return false }
        events?.unsubscribe(token)
        connection.send(["id": .string(id), "type": "complete"])
        return true
    }

    /// Stops every subscription: the connection ended.
    func stopAll() {
        let (tokens, events) = state.withLock { state in
            defer { state.tokens = [:] }
            return (Array(state.tokens.values), state.events)
        }
        for token in tokens { events?.unsubscribe(token) }
    }
}
