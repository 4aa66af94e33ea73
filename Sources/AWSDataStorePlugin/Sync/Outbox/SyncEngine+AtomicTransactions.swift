import AWSPluginsCore
import Amplify

/// The outbox's transactions sent whole (``DataStoreConfiguration/TransactionSync/atomic``): one
/// request with every change of the transaction, sent with `Stratus-Transaction: atomic`, which
/// `stratus serve` applies all or nothing, and with the transaction's first event id as its
/// `Idempotency-Key`.
extension SyncEngine {
    /// Sends `taken` and its siblings in one request until the backend answers it. Accepted, every
    /// event goes to the outbox loop to be settled, and the call returns `true`. Refused, every
    /// event is undone and reported here, and the call returns `false`.
    func sendTransaction(_ taken: TakenEvent) async -> Bool {
        let all = [taken] + taken.siblings
        var changes: [GraphQLRequest<JSONValue>.SyncChange] = []
        var tables: [ModelTable] = []
        var outgoings: [OutgoingMutation] = []
        // A record changed twice in the transaction: each later change is based on the version
        // the earlier one makes, one more than the version it was based on.
        var versions: [RecordKey: Int] = [:]
        for item in all {
            let event = item.event
            guard let table = storage.catalog.tables[event.modelName] else { return false }
            var outgoing: OutgoingMutation
            do {
                outgoing = try OutgoingMutation(item)
            } catch {
                report(
                    DataStoreError(
                        .sync,
                        "The outbox event '\(event.id)' of \(event.modelName) cannot be sent: \(error)"
                    )
                )
                return false
            }
            if let version = versions[event.recordKey] { outgoing.version = version }
            versions[event.recordKey] = (outgoing.version ?? 0) + 1
            changes.append(
                .init(
                    modelSchema: table.schema,
                    kind: event.kind.rawValue,
                    json: outgoing.json,
                    version: outgoing.version,
                    condition: outgoing.condition
                )
            )
            tables.append(table)
            outgoings.append(outgoing)
        }
        var request = GraphQLRequest<JSONValue>.syncTransaction(changes)
        for (index, outgoing) in outgoings.enumerated() {
            let name = "input\(index)"
            let input = outgoing.trimming(request.variables?[name], kind: all[index].event.kind)
            request.variables?[name] = input
        }
        request.headers["Idempotency-Key"] = taken.event.id
        request.headers["Stratus-Transaction"] = "atomic"
        let modes = tables[0].schema.authModes(
            for: taken.event.kind.operation,
            strategy: configuration.authModeStrategy
        )

        var attempt = 0
        while !Task.isCancelled {
            let generation = outboxSignal.generation
            let response: GraphQLResponse<JSONValue>
            do {
                response = try await send(request, modes: modes, mutation: true)
            } catch {
                if !Self.isRetryable(error, sentWithIdempotencyKey: true), await !awaitsUser() {
                    await refuse(
                        Sent(events: all, tables: tables, records: outgoings.map(\.json)),
                        because: "\(error)",
                        errors: []
                    )
                    return false
                }
                attempt += 1
                await outboxSignal.wait(after: generation, timeout: Self.backoff(attempt: attempt))
                continue
            }
            return await settleTransaction(response, Sent(events: all, tables: tables, records: outgoings.map(\.json)))
        }
        return false
    }

    /// The events of a transaction sent whole, with their tables and records as sent.
    private struct Sent {
        var events: [TakenEvent]
        var tables: [ModelTable]
        var records: [[String: JSONValue]]
    }

    /// Settles the backend's answer to a transaction sent whole.
    private func settleTransaction(_ response: GraphQLResponse<JSONValue>, _ sent: Sent) async -> Bool {
        switch response {
        case .success(let data):
            let items = sent.events.indices.map { data["m\($0)"] ?? .null }
            guard items.allSatisfy({ !$0.isNull }) else {
                await refuse(sent, because: "it answered null.", errors: [])
                return false
            }
            state.withLock { state in
                state.accepted += zip(sent.events, items).map { AcceptedEvent(event: $0.event, item: $1) }
            }
            return true
        case .failure(.error(let errors)), .failure(.partial(_, let errors)):
            // The backend applied the transaction but lost its answer: read its records.
            if errors.contains(where: { $0.appSyncErrorType == .idempotentResponseLost }) {
                for (item, table) in zip(sent.events, sent.tables) { await revert(item.event, table: table) }
                return false
            }
            await refuse(sent, because: errors.map(\.description).joined(separator: "; "), errors: errors)
            return false
        case .failure(let error):
            await refuse(sent, because: "\(error)", errors: [])
            return false
        }
    }

    /// Undoes every change of a transaction the backend refused, and reports each: the changes
    /// the errors name with their own error, the others as cancelled with them.
    private func refuse(_ sent: Sent, because message: String, errors: [GraphQLError]) async {
        var failures: [Int: GraphQLError] = [:]
        for error in errors {
            guard case .string(let root)? = error.path?.first, root.hasPrefix("m"),
                let index = Int(root.dropFirst()), sent.events.indices.contains(index), failures[index] == nil
            else { continue }
            failures[index] = error
        }
        let refused = failures.keys.sorted().map { Self.describe(sent.events[$0].event) }
        let cause = refused.isEmpty ? message : refused.joined(separator: ", ") + " was refused"
        for index in sent.events.indices {
            let event = sent.events[index].event
            let failure = failures[index]
            report(
                DataStoreError(
                    .sync,
                    "The backend cancelled the transaction of \(sent.events.count) changes, applying none of them, so "
                        + "\(Self.describe(event)) is undone and the backend's record kept: "
                        + (failure.map { "it refused this change: \($0.description)" } ?? "\(cause).")
                )
            )
            let name =
                failure?.appSyncErrorType == .conditionalCheckFailed
                ? HubPayload.EventName.DataStore.conditionalSaveFailed
                : HubPayload.EventName.DataStore.outboxMutationFailed
            dispatch(name, outboxEvent(event.modelName, .object(sent.records[index]), telling: name))
            await revert(event, table: sent.tables[index])
        }
    }

    /// `the update of Post 'p1'`.
    private static func describe(_ event: MutationEvent) -> String {
        "the \(event.kind.rawValue) of \(event.modelName) '\(event.modelId)'"
    }
}
