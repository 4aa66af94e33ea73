extension APICategory {
    /// Sends a GraphQL query and calls `completion` with its response or the error.
    ///
    /// `completion` runs on a task of its own, not on the main thread. Cancel the returned task
    /// to cancel the request; `completion` then receives a `networkError`.
    @discardableResult
    public func query<R: Decodable & Sendable>(
        request: GraphQLRequest<R>,
        completion: @escaping @Sendable (Result<GraphQLResponse<R>, APIError>) -> Void
    ) -> Task<Void, Never> {
        Task { completion(await APIError.catching { try await query(request: request) }) }
    }

    /// Sends a GraphQL mutation and calls `completion` with its response or the error.
    ///
    /// `completion` runs on a task of its own, as for ``query(request:completion:)``.
    @discardableResult
    public func mutate<R: Decodable & Sendable>(
        request: GraphQLRequest<R>,
        completion: @escaping @Sendable (Result<GraphQLResponse<R>, APIError>) -> Void
    ) -> Task<Void, Never> {
        Task { completion(await APIError.catching { try await mutate(request: request) }) }
    }

    /// Sends a REST request and calls `completion` with the response or the error.
    ///
    /// `completion` runs on a task of its own, as for ``query(request:completion:)``.
    @discardableResult
    public func send(
        _ method: RESTMethod,
        request: RESTRequest,
        completion: @escaping @Sendable (Result<APIResponse, APIError>) -> Void
    ) -> Task<Void, Never> {
        Task { completion(await APIError.catching { try await send(method, request: request) }) }
    }
}

extension APIError {
    /// The result of `body`, with an error that is not an ``APIError`` (which an API plugin does
    /// not throw) kept as ``APIError/unknown(_:_:)``.
    static func catching<T>(_ body: () async throws -> T) async -> Result<T, APIError> {
        do {
            return .success(try await body())
        } catch let error as APIError {
            return .failure(error)
        } catch {
            return .failure(.unknown("The API plugin threw \(error).", "Report it to the plugin's authors."))
        }
    }
}
