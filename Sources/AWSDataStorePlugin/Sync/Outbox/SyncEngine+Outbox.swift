import Amplify

extension SyncEngine {
    /// A local change was committed: tell the hub of the events it put in the outbox and of the
    /// outbox's status (not empty, unless the change only cancelled an unsent event), and wake
    /// the outbox. Called on the writer's queue as the change commits, before its save returns.
    func enqueued(_ change: OutboxChange) {
        tellEnqueued(change.enqueued)
        // As Amplify does, each enqueue says the outbox is not empty.
        outboxStatus.report(
            change.snapshot,
            idle: state.withLock { $0.isIdle },
            always: !change.enqueued.isEmpty
        )
        outboxSignal.fire()
        // A change merged away (a create and a delete) leaves the backend's record, if it sent
        // one. Only a delete merges an event away.
        let deletions = change.events.filter { $0.kind == .delete }
        guard !deletions.isEmpty else { return }
        Task {
            do {
                let result = try await storage.applyDeferred(after: deletions)
                for event in result.applied { dispatch(HubPayload.EventName.DataStore.syncReceived, event) }
            } catch {
                report("DataStore could not apply a record the backend sent", error)
            }
        }
    }

    /// Tells the hub `outboxMutationEnqueued` for each of `events`, with its model; an event
    /// whose model does not decode is reported instead.
    private func tellEnqueued(_ events: [MutationEvent]) {
        let enqueued = HubPayload.EventName.DataStore.outboxMutationEnqueued
        // Decoding each saved model for the payload is wasted work when nothing listens.
        guard hub.hasListeners(on: .dataStore, eventName: enqueued) else { return }
        for event in events {
            let model: any Model
            do {
                model = try event.decodeModel()
            } catch {
                report(
                    DataStoreError(
                        .sync,
                        "DataStore cannot tell the hub's \(enqueued) of \(event.modelName) '\(event.modelId)': the "
                            + "saved record does not decode as \(event.modelName): \(error). Make the model decode "
                            + "what it encodes (regenerate it with `stratus codegen models`)."
                    )
                )
                continue
            }
            dispatch(
                enqueued,
                OutboxMutationEvent(
                    modelName: event.modelName,
                    element: .init(model: model, version: event.version, deleted: event.kind == .delete)
                )
            )
        }
    }

    /// Sends the outbox while the engine runs.
    ///
    /// This loop alone writes the outbox's bookkeeping: each round settles the events the
    /// backend accepted since the last one and takes the events to send next, in one
    /// transaction (``StorageEngine/outboxRound(settling:take:excluding:)``); the sends only
    /// talk to the backend. An accepted event keeps its record in flight until it is settled,
    /// so a record never has two events in flight.
    ///
    /// The rounds take up to twice ``DataStoreConfiguration/outboxConcurrency`` events ahead,
    /// and at most that many senders run: a sender whose send ends starts the next taken event
    /// at once, while the loop settles the answer, instead of leaving its slot empty until the
    /// next round commits.
    func runOutbox() async {
        let concurrency = max(1, configuration.outboxConcurrency)
        await reportStartStatus()
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled {
                let generation = outboxSignal.generation
                let turn = takeTurn(concurrency: concurrency)
                for _ in 0..<turn.senders { group.addTask { await self.sendReady() } }
                // Events ended by senders get a round too, for the status after them.
                guard turn.hasWork else {
                    await outboxSignal.wait(after: generation)
                    continue
                }
                let round: OutboxRound
                do {
                    round = try await storage.outboxRound(
                        settling: turn.accepted,
                        take: turn.room,
                        excluding: turn.busy,
                        wholeTransactions: configuration.transactionSync == .atomic
                    )
                } catch {
                    await roundFailed(turn, error)
                    await outboxSignal.wait(after: generation, timeout: .seconds(5))
                    continue
                }
                let (idle, started, echoes) = admit(round, settling: turn.settling, concurrency: concurrency)
                for _ in 0..<started { group.addTask { await self.sendReady() } }
                await tell(round, of: turn, idle: idle, releasing: echoes)
                await outboxSignal.wait(after: generation)
            }
            group.cancelAll()
        }
    }

    /// What the outbox loop takes from the engine's state for one round.
    struct OutboxTurn {
        /// The events the backend accepted since the last round, to settle.
        let accepted: [AcceptedEvent]
        /// How many events the senders ended since the last round.
        let ended: Int
        /// How many senders to start now.
        let senders: Int
        /// The records of `accepted`.
        let settling: Set<RecordKey>
        /// The records in flight that this round does not settle.
        let busy: Set<RecordKey>
        /// How many events to take.
        let room: Int

        /// Whether the round has anything to do: events to take, settle or tell the status after.
        var hasWork: Bool { room > 0 || !accepted.isEmpty || ended > 0 }
    }

    /// Takes the accepted and ended events from the state and claims the senders to start.
    private func takeTurn(concurrency: Int) -> OutboxTurn {
        let (open, inFlight, accepted, ended, senders) = state.withLock { state in
            defer {
                state.accepted = []
                state.endedBySenders = 0
            }
            let senders = state.claimSenders(concurrency: concurrency)
            return (state.outboxOpen, state.inFlight, state.accepted, state.endedBySenders, senders)
        }
        let settling = Set(accepted.map(\.event.recordKey))
        let busy = inFlight.subtracting(settling)
        return OutboxTurn(
            accepted: accepted,
            ended: ended,
            senders: senders,
            settling: settling,
            busy: busy,
            room: open ? max(0, 2 * concurrency - busy.count) : 0
        )
    }

    /// A round's transaction failed as a whole: nothing was settled or taken.
    private func roundFailed(_ turn: OutboxTurn, _ error: any Error) async {
        // The accepted events stay in the outbox: they are sent again under their keys, and a
        // backend that honours the keys answers them without applying them twice.
        let echoes = state.withLock { state in
            state.inFlight.subtract(turn.settling)
            state.endedBySenders += turn.ended
            return state.takeEchoes(turn.settling)
        }
        report("DataStore could not update its outbox", error)
        await release(echoes)
    }

    /// Puts the events `round` took in flight and ready to send, and the settled ones out of
    /// flight; returns whether the outbox is idle in memory, how many senders to start, and the
    /// held echoes of the records no longer in flight.
    private func admit(
        _ round: OutboxRound,
        settling: Set<RecordKey>,
        concurrency: Int
    ) -> (idle: Bool, started: Int, echoes: [RecordKey: HeldEcho]) {
        state.withLock { state in
            state.inFlight.subtract(settling)
            for taken in round.taken {
                state.inFlight.formUnion(taken.recordKeys)
            }
            state.ready += round.taken
            // A record taken again keeps its held record for the next answer, newer still.
            let echoes = state.takeEchoes(settling.subtracting(state.inFlight))
            return (state.isIdle, state.claimSenders(concurrency: concurrency), echoes)
        }
    }

    /// Tells the hub what `round` settled and the outbox's status after it, and applies the
    /// echoes its answers do not already carry.
    private func tell(
        _ round: OutboxRound,
        of turn: OutboxTurn,
        idle: Bool,
        releasing echoes: [RecordKey: HeldEcho]
    ) async {
        settled(turn.accepted, round.settled)
        // As Amplify does, each time events finished processing the status is told again;
        // otherwise only when it changed. A local change committed since the round has told a
        // later status, and this one is dropped.
        outboxStatus.report(round.snapshot, idle: idle, always: !turn.accepted.isEmpty || turn.ended > 0)
        guard !echoes.isEmpty else { return }
        // An answer the round could not settle is sent again and answered the same.
        let answered = Dictionary(
            turn.accepted.map { ($0.event.recordKey, $0.item) },
            uniquingKeysWith: { _, last in last }
        )
        await release(echoes, answered: answered)
    }

    /// Tells the hub the outbox's status as sync starts, as Amplify does.
    private func reportStartStatus() async {
        do {
            let snapshot = try await storage.outboxSnapshot()
            outboxStatus.report(snapshot, idle: state.withLock { $0.isIdle }, always: true)
        } catch {
            report("DataStore could not read its outbox", error)
        }
    }

    /// One sender: sends the taken events, oldest first, until none is left or the outbox
    /// closes, then leaves its slot. An accepted event stays in flight until the loop settles it.
    private func sendReady() async {
        while true {
            let next = state.withLock { state -> TakenEvent? in
                guard state.outboxOpen, !state.ready.isEmpty, !Task.isCancelled else {
                    state.senders -= 1
                    return nil
                }
                return state.ready.removeFirst()
            }
            guard let next else { return }
            if await !send(next) {
                let keys = Set(next.recordKeys)
                let echoes = state.withLock { state in
                    state.inFlight.subtract(keys)
                    state.endedBySenders += 1
                    return state.takeEchoes(keys)
                }
                await release(echoes)
            }
            outboxSignal.fire()
        }
    }

    /// Tells the hub of the accepted events a round settled, and reports those it could not.
    private func settled(_ accepted: [AcceptedEvent], _ outcomes: [Result<ReconcileResult, DataStoreError>]) {
        let processed = HubPayload.EventName.DataStore.outboxMutationProcessed
        // Decoding each record for the payload is wasted work when nothing listens.
        let heard = hub.hasListeners(on: .dataStore, eventName: processed)
        for (accepted, outcome) in zip(accepted, outcomes) {
            switch outcome {
            case .success:
                if heard {
                    dispatch(processed, outboxEvent(accepted.event.modelName, accepted.item, telling: processed))
                }
            case .failure(let error):
                report("DataStore could not settle the outbox event '\(accepted.event.id)'", error)
            }
        }
    }
}
