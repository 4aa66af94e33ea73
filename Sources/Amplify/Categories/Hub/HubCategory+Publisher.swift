#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif

extension HubCategory {
    /// The payloads dispatched to `channel` from now on, as a publisher that never fails; the
    /// listener is removed when the subscription is cancelled.
    ///
    /// Where Combine exists (Apple platforms) this is Combine's `AnyPublisher`; elsewhere it is
    /// OpenCombine's, which has the same API.
    ///
    /// ```swift
    /// let cancellable = Amplify.Hub.publisher(for: .dataStore)
    ///     .filter { $0.eventName == HubPayload.EventName.DataStore.ready }
    ///     .sink { _ in print("DataStore is synced") }
    /// ```
    public func publisher(for channel: HubChannel) -> AnyPublisher<HubPayload, Never> {
        let subject = HubSubject()
        let token = listen(to: channel) { subject.send($0) }
        return subject.subject
            .handleEvents(receiveCancel: { [weak self] in self?.removeListener(token) })
            .eraseToAnyPublisher()
    }
}

/// A subject that listeners on any thread send to: `PassthroughSubject` (Combine's and
/// OpenCombine's alike) takes a lock around every send and subscription.
private final class HubSubject: @unchecked Sendable {
    let subject = PassthroughSubject<HubPayload, Never>()

    func send(_ payload: HubPayload) {
        subject.send(payload)
    }
}
