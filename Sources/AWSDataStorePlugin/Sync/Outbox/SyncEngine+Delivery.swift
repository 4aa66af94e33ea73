import AWSPluginsCore
import Amplify
import Synchronization
import Tracing

extension SyncEngine {
    /// What the backend answered to an outbox event.
    private enum Answer {
        case accepted(JSONValue)
        case conflict(JSONValue)
        case conditionFailed(String)
        case refused(String)
        case answerLost
    }

    /// What became of an outbox event after the backend answered it.
    private enum Outcome {
        /// The backend accepted it: the outbox loop settles it.
        case accepted
        /// It was settled here: applied as the backend's record, undone, or reported.
        case ended
        /// A conflict the handler settled by sending the change again.
        case sendAgain
    }

    /// Sends one event until the backend answers it. An accepted event goes to the outbox loop
    /// to be settled, and the call returns `true`: the record stays in flight until then. Any
    /// other answer is settled here, and the call returns `false`.
    ///
    /// When the event keeps the trace of its save (``OutboxTrace``), sending it is a span of that
    /// trace, `DataStore.send create Post`, parent of the API plugin's request spans.
    func send(_ taken: TakenEvent) async -> Bool {
        guard let tracer = storage.tracer, let trace = taken.traceContext else { return await sendTraced(taken) }
        let event = taken.event
        return await tracer.withSpan(
            "DataStore.send \(event.kind.rawValue) \(event.modelName)",
            context: OutboxTrace.context(of: trace, tracer),
            ofKind: .consumer
        ) { span in
            span.attributes["messaging.operation.type"] = "process"
            span.attributes["stratus.outbox.event_id"] = event.id
            return await sendTraced(taken)
        }
    }

    /// Sends `taken`, in its span when it has one: see ``send(_:)``.
    private func sendTraced(_ taken: TakenEvent) async -> Bool {
        if !taken.siblings.isEmpty { return await sendTransaction(taken) }
        let event = taken.event
        guard let table = storage.catalog.tables[event.modelName] else { return false }
        var outgoing: OutgoingMutation
        do {
            outgoing = try OutgoingMutation(taken)
        } catch {
            report(
                DataStoreError(.sync, "The outbox event '\(event.id)' of \(event.modelName) cannot be sent: \(error)")
            )
            return false
        }
        let modes = table.schema.authModes(for: event.kind.operation, strategy: configuration.authModeStrategy)
        for round in 0..<4 {
            let request = Self.mutation(table, event.kind, outgoing)
            guard let answer = await deliver(request, modes: modes) else { return false }
            switch await settle(answer, of: event, &outgoing, table: table) {
            case .accepted: return true
            case .ended: return false
            case .sendAgain: outgoing.key = "\(event.id).\(round + 1)"
            }
        }
        report(
            DataStoreError(
                .sync,
                "The \(event.kind.rawValue) of \(event.modelName) '\(event.modelId)' met a conflict four times in a "
                    + "row; the backend's record is kept."
            )
        )
        await revert(event, table: table)
        return false
    }

    /// Settles the backend's `answer` to `event`, sent as `outgoing`.
    private func settle(
        _ answer: Answer,
        of event: MutationEvent,
        _ outgoing: inout OutgoingMutation,
        table: ModelTable
    ) async -> Outcome {
        do {
            switch answer {
            case .accepted(let item):
                state.withLock { $0.accepted.append(AcceptedEvent(event: event, item: item)) }
                return .accepted
            case .conflict(let remote):
                return try await settleConflict(with: remote, of: event, &outgoing) ? .sendAgain : .ended
            case .conditionFailed(let message):
                let failed = HubPayload.EventName.DataStore.conditionalSaveFailed
                dispatch(failed, outboxEvent(event.modelName, .object(outgoing.json), telling: failed))
                storage.log(.init(level: .warning, message: message))
                await revert(event, table: table)
                return .ended
            case .answerLost:
                await revert(event, table: table)
                return .ended
            case .refused(let message):
                report(
                    DataStoreError(
                        .sync,
                        "The backend refused the \(event.kind.rawValue) of \(event.modelName) '\(event.modelId)': "
                            + "\(message) The local change is undone and the backend's record kept."
                    )
                )
                let failed = HubPayload.EventName.DataStore.outboxMutationFailed
                dispatch(failed, outboxEvent(event.modelName, .object(outgoing.json), telling: failed))
                await revert(event, table: table)
                return .ended
            }
        } catch {
            // Stopping cancels a send; the event stays in the outbox for the next start.
            if !Task.isCancelled {
                report("DataStore could not settle the outbox event '\(event.id)'", error)
            }
            return .ended
        }
    }

    /// The mutation of an outbox event, with its idempotency key.
    private static func mutation(
        _ table: ModelTable,
        _ kind: MutationEvent.MutationType,
        _ outgoing: OutgoingMutation
    ) -> GraphQLRequest<JSONValue> {
        var request = GraphQLRequest<JSONValue>.syncMutation(
            modelSchema: table.schema,
            kind: kind.rawValue,
            json: outgoing.json,
            version: outgoing.version,
            condition: outgoing.condition
        )
        request.headers["Idempotency-Key"] = outgoing.key
        let input = outgoing.trimming(request.variables?["input"], kind: kind)
        request.variables?["input"] = input
        return request
    }

    /// Sends `request` until the backend answers, backing off while the network fails;
    /// `nil` when the engine stopped first.
    private func deliver(_ request: GraphQLRequest<JSONValue>, modes: [AWSAuthorizationType?]) async -> Answer? {
        var attempt = 0
        while !Task.isCancelled {
            let generation = outboxSignal.generation
            do {
                return Self.answer(try await send(request, modes: modes, mutation: true))
            } catch {
                // Without a signed-in user the request never reached the backend: the change
                // waits for the next sign-in, as a network failure waits for the network.
                if !Self.isRetryable(error, sentWithIdempotencyKey: true), await !awaitsUser() {
                    return .refused("\(error)")
                }
                attempt += 1
                await outboxSignal.wait(after: generation, timeout: Self.backoff(attempt: attempt))
            }
        }
        return nil
    }

    /// What the backend's `response` to a mutation means.
    private static func answer(_ response: GraphQLResponse<JSONValue>) -> Answer {
        switch response {
        case .success(let item) where !item.isNull:
            return .accepted(item)
        case .success:
            return .refused("it answered null.")
        case .failure(.partial(let item, _)) where !item.isNull:
            return .accepted(item)
        case .failure(.error(let errors)), .failure(.partial(_, let errors)):
            let types = Set(errors.compactMap(\.appSyncErrorType))
            if let conflict = errors.first(where: { $0.appSyncErrorType == .conflictUnhandled }),
                let remote = conflict.data, !remote.isNull
            {
                return .conflict(remote)
            }
            // The backend applied the change but lost its answer: read its record.
            if types.contains(.idempotentResponseLost) { return .answerLost }
            let message = errors.map(\.description).joined(separator: "; ")
            return types.contains(.conditionalCheckFailed) ? .conditionFailed(message) : .refused(message)
        case .failure(let error):
            return .refused("\(error)")
        }
    }

    /// Undoes a refused change: the backend's record replaces the local one, or the local one
    /// goes when the backend has none.
    ///
    /// The backend's record is read until it answers, backing off while the network fails, as
    /// the change itself was sent: given up, the refused record would stay on the device for
    /// good (a later sync brings the backend's record only when its `_version` is newer). When
    /// the engine stops first, the event stays in the outbox, and is sent again at the next start.
    func revert(_ event: MutationEvent, table: ModelTable) async {
        do {
            let keyValues = try JSONValue(parsing: event.json)
            var key: [String: JSONValue] = [:]
            for name in table.primaryKey { key[name] = keyValues[name] ?? .null }
            let request = GraphQLRequest<JSONValue>.syncGet(modelSchema: table.schema, key: key)
            let modes = table.schema.authModes(for: .read, strategy: configuration.authModeStrategy)
            guard let answer = try await readUntilAnswered(request, modes: modes) else { return }
            switch answer {
            case .success(let item) where !item.isNull:
                _ = try await storage.finish(event, item: item, force: true)
            case .success:
                _ = try await storage.dropLocal(event)
            case .failure(.error(let errors)) where Self.isUnauthorized(errors):
                // The user may not read the record (another owner's): it has no place here.
                _ = try await storage.dropLocal(event)
            case .failure(let error):
                _ = try await storage.finish(event, item: nil)
                report("DataStore could not read the backend's \(table.name)", error)
            }
        } catch {
            report("DataStore could not undo the refused change '\(event.id)'", error)
            await forget(event)
        }
    }

    /// Sends the query `request` until the backend answers, backing off while the network
    /// fails; `nil` when the engine stopped first. An answer that is only a failure of the
    /// backend's own (`InternalFailure`, `ExecutionTimeout`: its store restarting, say) is asked
    /// again too, up to ``transientAnswerAttempts`` times: taken as the answer, it left the
    /// refused record on the device.
    ///
    /// - Throws: what ``send(_:modes:mutation:)`` throws that no retry can mend.
    private func readUntilAnswered(
        _ request: GraphQLRequest<JSONValue>,
        modes: [AWSAuthorizationType?]
    ) async throws -> GraphQLResponse<JSONValue>? {
        var attempt = 0
        var transientAnswers = 0
        while !Task.isCancelled {
            let generation = outboxSignal.generation
            do {
                let response = try await send(request, modes: modes, mutation: false)
                guard Self.isTransientFailure(response), transientAnswers < Self.transientAnswerAttempts else {
                    return response
                }
                transientAnswers += 1
            } catch {
                if !Self.isRetryable(error, sentWithIdempotencyKey: false), await !awaitsUser() { throw error }
            }
            attempt += 1
            await outboxSignal.wait(after: generation, timeout: Self.backoff(attempt: attempt))
        }
        return nil
    }

    /// How many answers that are only the backend's own failure a read takes before it keeps
    /// one: about a minute and a half of backing off.
    static let transientAnswerAttempts = 8

    /// Whether `response` is no answer but a failure of the backend's own, which asking again
    /// may mend.
    static func isTransientFailure(_ response: GraphQLResponse<JSONValue>) -> Bool {
        guard case .failure(.error(let errors)) = response, !errors.isEmpty else { return false }
        return errors.allSatisfy { $0.appSyncErrorType == .internalFailure || $0.appSyncErrorType == .executionTimeout }
    }

    /// Removes `event` from the outbox without applying a record, after its undo failed.
    private func forget(_ event: MutationEvent) async {
        do {
            _ = try await storage.finish(event, item: nil)
        } catch {
            report("DataStore could not remove the refused change '\(event.id)' from its outbox", error)
        }
    }

    /// The payload of the hub's `eventName` for an outbox event whose record is `item`;
    /// `nil` when the record does not decode as its model, which is reported: the hub still
    /// hears of the event, without its model.
    func outboxEvent(
        _ modelName: String,
        _ item: JSONValue,
        telling eventName: String
    ) -> OutboxMutationEvent? {
        let model: any Model
        do {
            model = try ModelRegistry.decode(modelName: modelName, from: item)
        } catch {
            report(
                DataStoreError(
                    .sync,
                    "DataStore tells the hub's \(eventName) of \(modelName) without its model: the record "
                        + "\(item.shortDescription) does not decode as \(modelName): \(error). Regenerate the models "
                        + "with `stratus codegen models` so that they match the backend's schema."
                )
            )
            return nil
        }
        return OutboxMutationEvent(
            modelName: modelName,
            element: .init(
                model: model,
                version: item["_version"]?.intValue,
                lastChangedAt: item["_lastChangedAt"]?.intValue,
                deleted: item["_deleted"]?.booleanValue
            )
        )
    }
}
