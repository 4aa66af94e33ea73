import Amplify
import Foundation
#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif

extension DataStoreCategory {
    /// The changes to models of type `modelType`, as a publisher: the `Combine` form of
    /// `DataStoreCategory.observe(_:)`.
    ///
    /// Where Combine exists (Apple platforms) this is Combine's `AnyPublisher`, so it works with
    /// SwiftUI and every Combine operator; elsewhere it is OpenCombine's, which has the same API.
    /// Import the one your platform has: `import Combine`, or `import OpenCombine` on Linux.
    ///
    /// ```swift
    /// let postSubscription = Amplify.DataStore.publisher(for: Post.self)
    ///     .sink(receiveCompletion: { completion in
    ///         if case .failure(let err) = completion { print("Subscription received error - \(err)") }
    ///     }) { print("Subscription received mutation: \($0)") }
    /// postSubscription.cancel()
    /// ```
    ///
    /// Observation starts when a subscriber subscribes and ends when it cancels. Events a
    /// subscriber has not yet demanded are buffered.
    public func publisher<M: Model>(for modelType: M.Type) -> AnyPublisher<MutationEvent, DataStoreError> {
        MutationEventPublisher(subscribe: { observe(modelType) }).eraseToAnyPublisher()
    }
}

/// A publisher of the events of an `observe` stream, one stream per subscription.
struct MutationEventPublisher: Publisher {
    typealias Output = MutationEvent
    typealias Failure = DataStoreError

    let subscribe: @Sendable () -> AsyncThrowingStream<MutationEvent, any Error>

    func receive<S: Subscriber>(subscriber: S) where S.Input == MutationEvent, S.Failure == DataStoreError {
        let subscription = MutationEventSubscription(subscriber: AnySubscriber(subscriber))
        subscriber.receive(subscription: subscription)
        subscription.start(subscribe())
    }
}

/// Delivers the events of a stream to one subscriber, as far as it demands them.
final class MutationEventSubscription: Subscription, @unchecked Sendable {
    typealias S = AnySubscriber<MutationEvent, DataStoreError>

    private struct State {
        var subscriber: S?
        var demand: Subscribers.Demand = .none
        var buffer: [MutationEvent] = []
        var completion: Subscribers.Completion<DataStoreError>?
        var task: Task<Void, Never>?
        var isDelivering = false
    }

    // Guards every access to the subscriber, which is not Sendable, and the buffer.
    private let lock = NSLock()
    private var unsafeState: State

    init(subscriber: S) {
        unsafeState = State(subscriber: subscriber)
    }

    private var state: LockedState { LockedState(subscription: self) }

    /// Runs closures on the state with the lock held.
    private struct LockedState {
        let subscription: MutationEventSubscription

        func withLock<T>(_ body: (inout State) -> T) -> T {
            subscription.lock.lock()
            defer { subscription.lock.unlock() }
            return body(&subscription.unsafeState)
        }
    }

    let combineIdentifier = CombineIdentifier()

    func start(_ stream: AsyncThrowingStream<MutationEvent, any Error>) {
        let task = Task { [weak self] in
            do {
                for try await event in stream {
                    guard let self else { return }
                    self.state.withLock { $0.buffer.append(event) }
                    self.deliver()
                }
                self?.state.withLock { $0.completion = .finished }
            } catch {
                self?.state.withLock { $0.completion = .failure(DataStoreError(error)) }
            }
            self?.deliver()
        }
        let cancelled = state.withLock { state in
            guard state.subscriber != nil else { return true }
            state.task = task
            return false
        }
        if cancelled { task.cancel() }
    }

    func request(_ demand: Subscribers.Demand) {
        state.withLock { $0.demand += demand }
        deliver()
    }

    func cancel() {
        let task = state.withLock { state in
            state.subscriber = nil
            state.buffer.removeAll()
            return state.task
        }
        task?.cancel()
    }

    /// Sends buffered events while there is demand, then the completion once the buffer is
    /// empty. One caller delivers at a time, so events keep their order.
    private func deliver() {
        while true {
            let next: (S, MutationEvent?, Subscribers.Completion<DataStoreError>?)? = state.withLock { state in
                guard !state.isDelivering, let subscriber = state.subscriber else { return nil }
                if !state.buffer.isEmpty, state.demand > 0 {
                    state.demand -= 1
                    state.isDelivering = true
                    return (subscriber, state.buffer.removeFirst(), nil)
                }
                if state.buffer.isEmpty, let completion = state.completion {
                    state.subscriber = nil
                    return (subscriber, nil, completion)
                }
                return nil
            }
            guard let (subscriber, event, completion) = next else { return }
            if let event {
                let more = subscriber.receive(event)
                state.withLock { state in
                    state.demand += more
                    state.isDelivering = false
                }
            } else if let completion {
                subscriber.receive(completion: completion)
                return
            }
        }
    }
}
