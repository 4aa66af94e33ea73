import Foundation

/// What `Amplify.API` offers: GraphQL queries and mutations, and REST calls.
///
/// ```swift
/// let response = try await Amplify.API.query(request: .get(Post.self, byId: "1"))
/// switch response {
/// case .success(let post): print(post?.title ?? "not found")
/// case .failure(let error): print("GraphQL errors: \(error)")
/// }
///
/// let data = try await Amplify.API.get(request: RESTRequest(path: "/items"))
/// let created = try await Amplify.API.send(.post, request: RESTRequest(path: "/items", body: body))
/// print(created.statusCode, created.headers["location"] ?? "")
/// ```
///
/// GraphQL errors in a response are part of the ``GraphQLResponse``; everything that prevents
/// reading one (configuration, authorization providers, the network, an HTTP status other than
/// 2xx) is thrown as an ``APIError``.
public protocol APICategory: Sendable {
    /// Sends a GraphQL query and decodes its response.
    ///
    /// - Throws: ``APIError``: `invalidConfiguration` when no API matches the request's
    ///   `apiName` or its auth mode is not configured, `httpStatusError` for a status other than
    ///   2xx (after retries of 5xx and 429), `networkError` when the server cannot be reached.
    @discardableResult
    func query<R: Decodable>(request: GraphQLRequest<R>) async throws -> GraphQLResponse<R>

    /// Sends a GraphQL mutation and decodes its response.
    ///
    /// - Throws: ``APIError``, as ``query(request:)`` does.
    @discardableResult
    func mutate<R: Decodable>(request: GraphQLRequest<R>) async throws -> GraphQLResponse<R>

    /// Sends a REST request and returns the whole response: status code, headers and body.
    ///
    /// ```swift
    /// let response = try await Amplify.API.send(.put, request: RESTRequest(path: "/items/1", body: body))
    /// if response.statusCode == 201 { print(response.headers["location"] ?? "") }
    /// ```
    ///
    /// The `get`, `put`, `post`, `delete`, `head` and `patch` methods return the body only.
    ///
    /// - Throws: ``APIError``: `httpStatusError` with the status, headers and body for a
    ///   status other than 2xx, and otherwise as ``query(request:)`` does.
    @discardableResult
    func send(_ method: RESTMethod, request: RESTRequest) async throws -> APIResponse

    /// Subscribes to a GraphQL subscription.
    ///
    /// The sequence reports the connection's state and delivers each event; it survives
    /// dropped connections and server restarts (it reconnects and subscribes again), and ends
    /// with an error only for a failure that retrying cannot fix, such as a refused
    /// authorization or an invalid document. `cancel()` stops the subscription.
    func subscribe<R: Decodable & Sendable>(
        request: GraphQLRequest<R>
    ) -> AmplifyAsyncThrowingSequence<GraphQLSubscriptionEvent<R>>
}

extension APICategory {
    /// Sends a `GET` request and returns the body.
    ///
    /// - Throws: ``APIError``, as ``send(_:request:)`` does.
    @discardableResult
    public func get(request: RESTRequest) async throws -> Data {
        try await send(.get, request: request).body
    }

    /// Sends a `PUT` request and returns the body.
    ///
    /// - Throws: ``APIError``, as ``send(_:request:)`` does.
    @discardableResult
    public func put(request: RESTRequest) async throws -> Data {
        try await send(.put, request: request).body
    }

    /// Sends a `POST` request and returns the body.
    ///
    /// - Throws: ``APIError``, as ``send(_:request:)`` does.
    @discardableResult
    public func post(request: RESTRequest) async throws -> Data {
        try await send(.post, request: request).body
    }

    /// Sends a `DELETE` request and returns the body.
    ///
    /// - Throws: ``APIError``, as ``send(_:request:)`` does.
    @discardableResult
    public func delete(request: RESTRequest) async throws -> Data {
        try await send(.delete, request: request).body
    }

    /// Sends a `HEAD` request and returns the body, which is empty.
    ///
    /// Use ``send(_:request:)`` with `.head` to read the status code and headers.
    ///
    /// - Throws: ``APIError``, as ``send(_:request:)`` does.
    @discardableResult
    public func head(request: RESTRequest) async throws -> Data {
        try await send(.head, request: request).body
    }

    /// Sends a `PATCH` request and returns the body.
    ///
    /// - Throws: ``APIError``, as ``send(_:request:)`` does.
    @discardableResult
    public func patch(request: RESTRequest) async throws -> Data {
        try await send(.patch, request: request).body
    }
}

/// A plugin of the API category.
public protocol APICategoryPlugin: Plugin, APICategory {
    /// Configures the plugin from the whole configuration, which is `nil` when there is none.
    ///
    /// The default reads the `api.plugins.<key>` section and calls ``Plugin/configure(using:)``.
    /// A plugin that also reads Gen2 `amplify_outputs.json`, whose API lives in `data`,
    /// implements this.
    ///
    /// - Throws: ``ConfigurationError`` naming the bad key and the fix.
    func configure(with configuration: AmplifyConfiguration?) throws
}

extension APICategoryPlugin {
    public func configure(with configuration: AmplifyConfiguration?) throws {
        try configure(using: configuration?.pluginConfiguration(category: "api", key: key))
    }
}
