/// The state of the connection a subscription rides on.
public enum SubscriptionConnectionState: Sendable, Hashable {
    /// Connecting, or reconnecting after a drop.
    case connecting
    /// The server acknowledged the subscription: events flow.
    case connected
    /// The connection dropped; a reconnection follows unless the subscription was cancelled.
    case disconnected
}

/// What a subscription delivers: changes of its connection's state, and events.
public enum GraphQLSubscriptionEvent<R: Decodable & Sendable>: Sendable {
    case connection(SubscriptionConnectionState)
    case data(GraphQLResponse<R>)
}

/// An asynchronous sequence that can be cancelled from outside the loop that reads it.
///
/// ```swift
/// let subscription = Amplify.API.subscribe(request: .subscription(of: Post.self, type: .onCreate))
/// Task {
///     for try await event in subscription {
///         switch event {
///         case .connection(let state): print("connection: \(state)")
///         case .data(.success(let post)): print("created: \(post.title)")
///         case .data(.failure(let error)): print("error: \(error)")
///         }
///     }
/// }
/// subscription.cancel()
/// ```
///
/// Cancelling ends the sequence without an error; a sequence ends with an error only for a
/// failure that retrying cannot fix.
public final class AmplifyAsyncThrowingSequence<Element: Sendable>: AsyncSequence, Sendable {
    public typealias Failure = any Error

    private let stream: AsyncThrowingStream<Element, any Error>
    private let continuation: AsyncThrowingStream<Element, any Error>.Continuation

    /// A sequence fed through `continuation`; its `onTermination` runs when the sequence is
    /// cancelled or ends.
    public init(
        bufferingPolicy: AsyncThrowingStream<Element, any Error>.Continuation.BufferingPolicy = .unbounded,
        onTermination: (@Sendable () -> Void)? = nil
    ) {
        (stream, continuation) = AsyncThrowingStream.makeStream(of: Element.self, bufferingPolicy: bufferingPolicy)
        if let onTermination {
            continuation.onTermination = { _ in onTermination() }
        }
    }

    /// Delivers an element.
    public func send(_ element: Element) {
        continuation.yield(element)
    }

    /// Ends the sequence, with `error` when it failed.
    public func finish(throwing error: (any Error)? = nil) {
        continuation.finish(throwing: error)
    }

    /// Ends the sequence; its reader's loop finishes without an error.
    public func cancel() {
        continuation.finish()
    }

    public func makeAsyncIterator() -> AsyncThrowingStream<Element, any Error>.AsyncIterator {
        stream.makeAsyncIterator()
    }
}
