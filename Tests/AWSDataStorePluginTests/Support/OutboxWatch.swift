import Amplify
import Foundation

/// What a hub said of the outbox, in order: `outboxStatus`, `outboxMutationEnqueued` and
/// `outboxMutationProcessed`, with the record each of the last two names.
final class OutboxWatch: Sendable {
    enum Event: Sendable, Equatable {
        case status(isEmpty: Bool)
        case enqueued(String)
        case processed(String)
    }

    private let log = Recorder<Event>()

    init(_ hub: HubCategory) {
        let log = log
        hub.listen(to: .dataStore) { payload in
            let event: Event? =
                switch payload.eventName {
                case HubPayload.EventName.DataStore.outboxStatus:
                    (payload.data as? OutboxStatusEvent).map { .status(isEmpty: $0.isEmpty) }
                case HubPayload.EventName.DataStore.outboxMutationEnqueued:
                    (payload.data as? OutboxMutationEvent).map { .enqueued($0.element.model.identifier) }
                case HubPayload.EventName.DataStore.outboxMutationProcessed:
                    (payload.data as? OutboxMutationEvent).map { .processed($0.element.model.identifier) }
                default: nil
                }
            if let event { log.append(event) }
        }
    }

    /// Every event so far.
    var events: [Event] { log.values }

    /// The statuses so far.
    var statuses: [Bool] {
        events.compactMap { if case .status(let isEmpty) = $0 { isEmpty } else { nil } }
    }

    /// The last status, `nil` before the first.
    var lastStatus: Bool? { statuses.last }

    /// The events after the first one that is `event`; empty when there is none.
    func events(after event: Event) -> [Event] {
        let events = events
        guard let index = events.firstIndex(of: event) else { return [] }
        return Array(events[(index + 1)...])
    }
}
