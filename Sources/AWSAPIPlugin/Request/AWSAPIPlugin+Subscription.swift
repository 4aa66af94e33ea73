import AWSPluginsCore
import Amplify
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension AWSAPIPlugin {
    /// Subscribes over the API's real-time endpoint; see `APICategory.subscribe(request:)`.
    ///
    /// Subscriptions to the same API with the same auth mode share one WebSocket connection.
    /// Configuration errors (an unknown `apiName`, a mode without its key or provider) end the
    /// sequence at once with the `APIError`.
    public func subscribe<R: Decodable & Sendable>(
        request: GraphQLRequest<R>
    ) -> AmplifyAsyncThrowingSequence<GraphQLSubscriptionEvent<R>> {
        let client: AppSyncRealTimeClient
        let data: String
        do {
            let pipeline = try pipeline(apiName: request.apiName, type: .graphQL, authMode: request.authMode)
            try pipeline.authorizer.checkConfiguration()
            client = realTimeClient(for: pipeline)
            data = String(decoding: try Self.encode(request), as: UTF8.self)
        } catch {
            let failed = AmplifyAsyncThrowingSequence<GraphQLSubscriptionEvent<R>>()
            failed.finish(throwing: error)
            return failed
        }
        let relay = Mutex<Task<Void, Never>?>(nil)
        let sequence = AmplifyAsyncThrowingSequence<GraphQLSubscriptionEvent<R>>(onTermination: {
            relay.withLock { $0?.cancel() }
        })
        let task = Task {
            let events = await client.subscribe(data: data)
            do {
                for try await event in events {
                    switch event {
                    case .connection(let state):
                        sequence.send(.connection(state))
                    case .data(let payload):
                        sequence.send(.data(GraphQLResponseDecoder().decode(payload, for: request)))
                    }
                }
                sequence.finish()
            } catch {
                sequence.finish(throwing: error)
            }
        }
        relay.withLock { $0 = task }
        return sequence
    }
}

/// The real-time authorization objects of one API and mode, made by the same stages as its HTTP
/// requests: the prelude's key or token, and for `AWS_IAM` a SigV4 signature.
struct PluginRealTimeAuthorizer: AppSyncRealTimeAuthorizer {
    let authorizer: RequestAuthorizer

    func connectionAuthorization(graphQLURL: URL) async throws -> [String: String] {
        try await authorization(url: graphQLURL.appending(path: "connect"), body: "{}")
    }

    func startAuthorization(graphQLURL: URL, data: String) async throws -> [String: String] {
        try await authorization(url: graphQLURL, body: data)
    }

    private func authorization(url: URL, body: String) async throws -> [String: String] {
        try await AppSyncRealTimeAuthorizationObject.make(
            url: url,
            body: body,
            mode: authorizer.mode,
            now: authorizer.clock.now()
        ) { request in
            var request = request
            try await authorizer.addAuthorizationHeaders(to: &request)
            return try await authorizer.sign(request)
        }
    }
}
