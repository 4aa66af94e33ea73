/// The API category before an API plugin is added: every call fails, saying how to add one.
struct UnconfiguredAPI: APICategory {
    static let error = APIError.invalidConfiguration(
        "API is not configured.",
        "Call Amplify.add(plugin: AWSAPIPlugin()) and then Amplify.configure()."
    )

    func query<R: Decodable>(request: GraphQLRequest<R>) async throws -> GraphQLResponse<R> { throw Self.error }
    func mutate<R: Decodable>(request: GraphQLRequest<R>) async throws -> GraphQLResponse<R> { throw Self.error }
    func send(_ method: RESTMethod, request: RESTRequest) async throws -> APIResponse { throw Self.error }
    func subscribe<R: Decodable & Sendable>(
        request: GraphQLRequest<R>
    ) -> AmplifyAsyncThrowingSequence<GraphQLSubscriptionEvent<R>> {
        let sequence = AmplifyAsyncThrowingSequence<GraphQLSubscriptionEvent<R>>()
        sequence.finish(throwing: Self.error)
        return sequence
    }
}
