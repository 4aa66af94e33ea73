import Foundation
import GraphQL
import StratusCodegen
import Synchronization

/// The results of hand-written mutations, heard by the hand-written subscriptions whose
/// `@aws_subscribe(mutations:)` lists them: the local-resolver pub/sub pattern, where a NONE
/// mutation's arguments reach every subscriber whose arguments match.
///
/// Each subscription argument given a value must equal the result's field of that name, as
/// AppSync filters them. On a store several servers share, a result is recorded in the store
/// (``announce(mutation:result:)``) and every server publishes it from there, so subscribers of
/// every instance hear it. The generated mutations a subscription lists reach it through the
/// ``MutationBroadcaster`` instead (``HandWrittenSubscription/models``).
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
    /// The store whose servers all hear each result, when it announces writes.
    private let store: (any ServerStore)?
    private let clock: @Sendable () -> Date

    init(store: (any ServerStore)? = nil, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store?.announcesWrites == true ? store : nil
        self.clock = clock
    }

    /// Hands the mutation `mutation`'s `result` to the subscribers that hear it: through the
    /// store when several servers share it (every server's subscribers then hear it, this one's
    /// included), directly otherwise.
    ///
    /// - Throws: The store's error when it cannot record the result: the mutation fails rather
    ///   than reach only some subscribers.
    func announce(mutation: String, result: JSONObject) async throws {
        guard let store else { return publish(mutation: mutation, result: result) }
        try await store.announce(
            PublishedResult(mutation: mutation, result: result),
            now: Timestamp.milliseconds(clock())
        )
    }

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
    /// The generated model mutations it lists, as the model subscriptions that hear their
    /// writes: its arguments as equality filters, its selection set read as the model's `@auth`
    /// rules let its caller read it, and the rows the caller may read.
    var models: [ModelSubscription] = []

    /// The writes of one model a hand-written subscription hears, by the mutations it lists.
    struct ModelSubscription: Sendable {
        let request: SubscriptionRequest
        let access: Authorization.Access
    }

    /// The topics of ``models``.
    var topics: [MutationBroadcaster.Topic] { models.map(\.request.topic) }

    /// The `payload` of the `data` message for a write by a generated mutation it lists; `nil`
    /// when it does not hear `event`: another model or kind, arguments the result's fields do
    /// not equal, or a row its caller may not read.
    func payload(for event: WriteEvent) -> JSON? {
        for model in models
        where model.request.matches(event)
            && SubscriptionAuthorization.mayRead(item: event.item.item, access: model.access)
        {
            return model.request.payload(for: event)
        }
        return nil
    }

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
        var subscription = HandWrittenSubscription(
            operation: operation,
            responseKey: field.alias?.value ?? field.name.value,
            arguments: arguments,
            selections: field.selectionSet?.selections ?? [],
            fragments: fragments,
            schema: api.schema
        )
        subscription.models = try modelSubscriptions(of: subscription, identity: identity)
        return subscription
    }

    /// The model subscriptions of the generated mutations `subscription` lists: the writes of
    /// `createTodo` and `updateTodo` for `onAnyTodo: Todo @aws_subscribe(mutations:
    /// ["createTodo", "updateTodo"])`.
    ///
    /// - Throws: ``RealtimeError`` when the field does not return the mutation's model, or the
    ///   model's `@auth` rules do not let the caller read it (as for its `onCreate` field).
    private func modelSubscriptions(
        of subscription: HandWrittenSubscription,
        identity: Identity
    ) throws(RealtimeError) -> [HandWrittenSubscription.ModelSubscription] {
        let operation = subscription.operation
        var kinds: [(model: ModelType, kind: WriteEvent.Kind)] = []
        for mutation in operation.subscribedMutations ?? [] {
            for model in api.schema.models {
                if let kind = WriteEvent.Kind(field: mutation, of: model) { kinds.append((model, kind)) }
            }
        }
        var subscriptions: [HandWrittenSubscription.ModelSubscription] = []
        for (model, kind) in kinds {
            guard operation.type.name == model.name, !operation.type.isList else {
                let returned = operation.type.isList ? "[\(operation.type.name)]" : operation.type.name
                throw RealtimeError(
                    errorType: .validationError,
                    message: "\(operation.name) returns \(returned), but @aws_subscribe(mutations:) lists "
                        + "\(kind.mutationField(of: model) ?? ""), which returns \(model.name). "
                        + "Make \(operation.name) return \(model.name), or list mutations that return its type."
                )
            }
            // Each argument given must equal the result's field of its name; one the model does
            // not have never does, so the model's writes never reach the subscription.
            var predicates: [ItemPredicate] = []
            var equalityArguments = JSONObject()
            var unmatchable = false
            for (name, value) in subscription.arguments where !value.isNull {
                guard let field = model.field(named: name) else {
                    unmatchable = true
                    break
                }
                do throws(ResolverError) {
                    predicates.append(
                        .field(field.name, .compare(.eq, try storedValue(value, type: field.type, in: api.schema)))
                    )
                } catch {
                    throw RealtimeError(errorType: error.errorType ?? .validationError, message: error.message)
                }
                equalityArguments[field.name] = value
            }
            let selection = SelectionTrimmer(schema: api.schema, fragments: subscription.fragments).plan(
                for: model,
                selections: subscription.selections
            )
            .readable(by: identity, in: model, schema: api.schema, operation: .listen)
            let request = SubscriptionRequest(
                model: model,
                kind: kind,
                responseKey: subscription.responseKey,
                predicate: predicates.count == 1 ? predicates[0] : .all(predicates),
                selection: selection,
                equalityArguments: equalityArguments,
                fieldName: operation.name,
                selectionKey: selectionKeys.intern(
                    JSON.string(subscription.responseKey).text + ":" + selection.signature
                )
            )
            let access = try SubscriptionAuthorization.authorize(request, identity: identity)
            if !unmatchable { subscriptions.append(.init(request: request, access: access)) }
        }
        return subscriptions
    }
}

/// The hand-written subscriptions of one connection, by their `start` ids.
///
/// They count toward the connection's subscription limit with its model subscriptions
/// (``RealtimeConnection/startHandWritten(id:)``).
final class HandWrittenStarts: Sendable {
    /// What one running subscription is registered with.
    private struct Registration {
        /// Its token in ``HandWrittenEvents``.
        var token: UInt64
        /// Its listener in the ``MutationBroadcaster``, when it lists generated mutations.
        var listener: UInt64?
        /// The token its `start` carried, when it expires or can be revoked.
        var credentials: RealtimeToken?
    }

    private struct State {
        var registrations: [String: Registration] = [:]
        var events: HandWrittenEvents?
        var broadcaster: MutationBroadcaster?
    }

    private let state = Mutex(State())

    /// Starts `subscription` as `id`: `start_ack`, then a `data` message for each result of a
    /// hand-written mutation it lists (from `events`) and each write of a generated one (from
    /// `broadcaster`).
    ///
    /// - Throws: ``RealtimeError`` when `id` is running or the connection holds the most
    ///   subscriptions it may.
    func start(
        id: String,
        _ subscription: HandWrittenSubscription,
        on connection: RealtimeConnection,
        events: HandWrittenEvents,
        broadcaster: MutationBroadcaster,
        credentials: RealtimeToken? = nil
    ) throws(RealtimeError) {
        try connection.startHandWritten(id: id)
        let token = events.subscribe(
            HandWrittenEvents.Subscriber(
                mutations: subscription.operation.subscribedMutations ?? [],
                arguments: subscription.arguments
            ) { result in
                connection.sendData(["id": .string(id), "type": "data", "payload": subscription.payload(for: result)])
            }
        )
        var listener: UInt64?
        if !subscription.models.isEmpty {
            // Called under the broadcaster's lock, in publication order: the payload is made for
            // this subscriber alone and enqueued, which never waits for the client.
            let added = broadcaster.addListener { event in
                guard let payload = subscription.payload(for: event) else { return }
                connection.sendData(["id": .string(id), "type": "data", "payload": payload])
            }
            for topic in subscription.topics { broadcaster.subscribe(added, to: topic) }
            listener = added
        }
        state.withLock { state in
            state.registrations[id] = Registration(token: token, listener: listener, credentials: credentials)
            state.events = events
            state.broadcaster = broadcaster
        }
        // Acknowledged once it listens: a client that publishes on hearing `start_ack` is heard.
        connection.acknowledgeHandWritten(id: id)
    }

    /// Stops the subscription `id` with `complete`; `false` when it is not a hand-written one.
    func stop(id: String, on connection: RealtimeConnection) -> Bool {
        let (registration, events, broadcaster) = state.withLock {
            ($0.registrations.removeValue(forKey: id), $0.events, $0.broadcaster)
        }
        guard let registration else { return false }
        events?.unsubscribe(registration.token)
        // Once removed, the listener is called no more: no `data` follows `complete`.
        if let listener = registration.listener { broadcaster?.removeListener(listener) }
        connection.stopHandWritten(id: id)
        return true
    }

    /// The tokens of the running subscriptions that carried their own, by subscription id.
    var credentials: [(id: String, token: RealtimeToken)] {
        state.withLock { state in
            state.registrations.compactMap { id, registration in registration.credentials.map { (id, $0) } }
        }
    }

    /// Ends the subscription `id`, whose credentials no longer hold, with an `error` carrying
    /// `payload` instead of `complete`; `false` when it is not running.
    func end(id: String, payload: JSON, on connection: RealtimeConnection) -> Bool {
        let (registration, events, broadcaster) = state.withLock {
            ($0.registrations.removeValue(forKey: id), $0.events, $0.broadcaster)
        }
        guard let registration else { return false }
        events?.unsubscribe(registration.token)
        if let listener = registration.listener { broadcaster?.removeListener(listener) }
        connection.endHandWritten(id: id, payload: payload)
        return true
    }

    /// Stops every subscription: the connection ended.
    func stopAll() {
        let (registrations, events, broadcaster) = state.withLock { state in
            defer { state.registrations = [:] }
            return (Array(state.registrations.values), state.events, state.broadcaster)
        }
        for registration in registrations {
            events?.unsubscribe(registration.token)
            if let listener = registration.listener { broadcaster?.removeListener(listener) }
        }
    }
}
