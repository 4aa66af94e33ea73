import AWSPluginsCore
import Amplify
import Dispatch
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A client of one AppSync API: queries through a normalized cache, mutations, watchers and
/// subscriptions, over the operations `stratus codegen types` generates into `API.swift`.
///
/// ```swift
/// let appSyncConfig = try AWSAppSyncClientConfiguration(
///     appSyncServiceConfig: AWSAppSyncServiceConfig(),
///     cacheConfiguration: AWSAppSyncCacheConfiguration()
/// )
/// let appSyncClient = try AWSAppSyncClient(appSyncConfig: appSyncConfig)
/// appSyncClient.apolloClient?.cacheKeyForObject = { $0["id"] }
/// let result = try await appSyncClient.fetch(query: ListTodosQuery())
/// ```
///
/// Handlers run on the `queue` given to each call, `DispatchQueue.main` by default. A Linux
/// command-line program drains the main queue only while its `async` entry point (`@main` with
/// `static func main() async`, or top-level code with `await`) is suspended, or when it calls
/// `dispatchMain()` (in both cases on a thread other than the first one); a synchronous program
/// that never does should pass a queue of its own, or use the `async` forms.
public final class AWSAppSyncClient: Sendable {
    /// The configuration the client was created with.
    public let configuration: AWSAppSyncClientConfiguration
    /// The normalized cache's keying: set `apolloClient?.cacheKeyForObject`.
    public let apolloClient: ApolloClient?
    /// The normalized cache.
    public var store: ApolloStore? { apolloClient?.store }

    let cache: ApolloStore
    private let transport = URLSessionTransport()
    private let realTime: Mutex<AppSyncRealTimeClient?> = Mutex(nil)
    private let registration: CacheFileRegistry.Registration?

    /// A client for the API, authorization and cache of `appSyncConfig`.
    ///
    /// - Throws: ``AWSAppSyncClientError`` (``AWSAppSyncClientError/Code/cache``) when the
    ///   query cache's file cannot be opened.
    public init(appSyncConfig: AWSAppSyncClientConfiguration) throws {
        configuration = appSyncConfig
        let queries = appSyncConfig.cacheConfiguration?.queries
        registration = try queries.map { try CacheFileRegistry.register($0, for: appSyncConfig) }
        do {
            cache = try ApolloStore(databaseURL: queries)
        } catch {
            registration.map(CacheFileRegistry.unregister)
            throw error
        }
        apolloClient = ApolloClient(store: cache)
    }

    deinit {
        registration.map(CacheFileRegistry.unregister)
    }

    // MARK: - Queries

    /// Runs `query` under `cachePolicy` and calls `resultHandler` on `queue` with its result or
    /// error; with `.returnCacheDataAndFetch` and a cache hit, twice (the cache's, then the
    /// server's); with `.returnCacheDataDontFetch` and a miss, with `(nil, nil)`.
    ///
    /// ```swift
    /// appSyncClient?.fetch(query: ListTodosQuery(), cachePolicy: .returnCacheDataAndFetch) { result, error in
    ///     result?.data?.listTodos?.items?.forEach { print($0?.name ?? "") }
    /// }
    /// ```
    public func fetch<Query: GraphQLQuery>(
        query: Query,
        cachePolicy: CachePolicy = .returnCacheDataElseFetch,
        queue: DispatchQueue = .main,
        resultHandler: (@Sendable (GraphQLResult<Query.Data>?, (any Error)?) -> Void)? = nil
    ) {
        Task {
            await self.run(query: query, cachePolicy: cachePolicy, origin: nil) { result, error in
                guard let resultHandler else { return }
                queue.async { resultHandler(result, error) }
            }
        }
    }

    /// Runs `query` under `cachePolicy` and returns its result: the cache's or the server's.
    /// With `.returnCacheDataAndFetch` this is the server's result, the cache written with it.
    ///
    /// - Throws: ``AWSAppSyncClientError``: ``AWSAppSyncClientError/Code/cacheMiss`` for a miss
    ///   with `.returnCacheDataDontFetch`; ``AWSAppSyncClientError/Code/requestFailed`` when the
    ///   server cannot be reached or answers with another status than 2xx or a body that is
    ///   not a GraphQL response.
    public func fetch<Query: GraphQLQuery>(
        query: Query,
        cachePolicy: CachePolicy = .returnCacheDataElseFetch
    ) async throws -> GraphQLResult<Query.Data> {
        switch cachePolicy {
        case .returnCacheDataElseFetch, .returnCacheDataDontFetch:
            if let cached = try cache.load(query: query) {
                return GraphQLResult(data: cached.data, errors: nil, source: .cache)
            }
            guard cachePolicy == .returnCacheDataElseFetch else {
                throw AWSAppSyncClientError(
                    .cacheMiss,
                    "The cache does not hold the data of \(Query.operationName), and the cache policy is "
                        + ".returnCacheDataDontFetch. Fetch it with another cache policy first."
                )
            }
            return try await fetchFromServer(query: query, origin: nil).result
        case .fetchIgnoringCacheData, .returnCacheDataAndFetch:
            return try await fetchFromServer(query: query, origin: nil).result
        }
    }

    /// Runs a query under a policy, reporting each result (and a miss as `(nil, nil)`) to
    /// `deliver`; returns the `record.field` keys of the last result delivered.
    @discardableResult
    func run<Query: GraphQLQuery>(
        query: Query,
        cachePolicy: CachePolicy,
        origin: UUID?,
        deliver: (GraphQLResult<Query.Data>?, (any Error)?) -> Void
    ) async -> Set<String>? {
        var dependentKeys: Set<String>?
        if cachePolicy != .fetchIgnoringCacheData {
            do {
                if let cached = try cache.load(query: query) {
                    deliver(GraphQLResult(data: cached.data, errors: nil, source: .cache), nil)
                    dependentKeys = cached.dependentKeys
                    if cachePolicy != .returnCacheDataAndFetch { return dependentKeys }
                } else if cachePolicy == .returnCacheDataDontFetch {
                    deliver(nil, nil)
                    return nil
                }
            } catch {
                deliver(nil, error)
                return nil
            }
        }
        do {
            let fetched = try await fetchFromServer(query: query, origin: origin)
            deliver(fetched.result, nil)
            return fetched.dependentKeys
        } catch {
            deliver(nil, error)
            return dependentKeys
        }
    }

    private func fetchFromServer<Query: GraphQLQuery>(
        query: Query,
        origin: UUID?
    ) async throws -> (result: GraphQLResult<Query.Data>, dependentKeys: Set<String>) {
        let result = try await send(query)
        var keys: Set<String> = []
        if let data = result.data {
            keys = try cache.publish(data: data, for: query, origin: origin)
        }
        return (result, keys)
    }

    // MARK: - Mutations

    /// Sends `mutation` and calls `resultHandler` on `queue` with its result or error; the
    /// objects of its result are written to the cache, so that watchers showing them update.
    ///
    /// ```swift
    /// appSyncClient?.perform(mutation: CreateTodoMutation(input: mutationInput)) { result, error in
    ///     if let resultError = result?.errors { print("Error saving the item on server: \(resultError)") }
    /// }
    /// ```
    public func perform<Mutation: GraphQLMutation>(
        mutation: Mutation,
        queue: DispatchQueue = .main,
        resultHandler: (@Sendable (GraphQLResult<Mutation.Data>?, (any Error)?) -> Void)? = nil
    ) {
        Task {
            let outcome: Result<GraphQLResult<Mutation.Data>, any Error>
            do {
                outcome = .success(try await self.perform(mutation: mutation))
            } catch {
                outcome = .failure(error)
            }
            guard let resultHandler else { return }
            queue.async {
                switch outcome {
                case .success(let result): resultHandler(result, nil)
                case .failure(let error): resultHandler(nil, error)
                }
            }
        }
    }

    /// Sends `mutation` and returns its result, whose objects are written to the cache.
    ///
    /// - Throws: ``AWSAppSyncClientError`` (``AWSAppSyncClientError/Code/requestFailed``) when
    ///   the server cannot be reached or answers with another status than 2xx or a body that
    ///   is not a GraphQL response. GraphQL errors are in the result's `errors`.
    public func perform<Mutation: GraphQLMutation>(mutation: Mutation) async throws -> GraphQLResult<Mutation.Data> {
        let result = try await send(mutation)
        if let data = result.data {
            try cache.publish(data: data, for: mutation, origin: nil)
        }
        return result
    }

    // MARK: - HTTP

    /// Sends `operation` to the API and reads its response.
    func send<Operation: GraphQLOperation>(_ operation: Operation) async throws -> GraphQLResult<Operation.Data> {
        let endpoint = configuration.appSyncServiceConfig.endpoint
        var request = URLRequest(url: endpoint)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "content-type")
        request.setValue("application/json", forHTTPHeaderField: "accept")
        request.httpBody = Data(Self.requestBody(operation).utf8)
        request = try await configuration.authorization.authorize(request)
        let response: APIResponse
        do {
            response = try await transport.send(request)
        } catch {
            throw AWSAppSyncClientError(
                .requestFailed,
                "The request to \(endpoint.absoluteString) failed: \(sentence: error) "
                    + "Check the network and that the server is running."
            )
        }
        let data = response.body
        let status = response.statusCode
        let json: JSONValue?
        do {
            json = try JSONValue(parsing: data)
        } catch {
            json = nil
        }
        let isGraphQLBody: Bool
        if let json, case .object(let body) = json, body["errors"] != nil || body["data"] != nil {
            isGraphQLBody = true
        } else {
            isGraphQLBody = false
        }
        guard (200..<300).contains(status) else {
            // AppSync refuses a request as a whole (UnauthorizedException, a malformed request)
            // with a 4xx status and a GraphQL errors body: the call failed, and says why.
            var reason = data.isEmpty ? "no body" : "the body \(String(decoding: data.prefix(300), as: UTF8.self))"
            if isGraphQLBody, let json, let errors = json.objectValue?["errors"]?.arrayValue {
                reason = errors.compactMap { error -> String? in
                    guard let object = error.objectValue else { return nil }
                    let type = object["errorType"]?.stringValue.map { "\($0): " } ?? ""
                    return type + (object["message"]?.stringValue ?? "")
                }.joined(separator: "; ")
            }
            let fix =
                status == 401 || status == 403
                ? "Check the \(configuration.authorization.mode.rawValue) key, token or credentials the client sends."
                : "Check ApiUrl in awsconfiguration.json and the server's logs."
            throw AWSAppSyncClientError(
                .requestFailed,
                "\(endpoint.absoluteString) refused \(Operation.operationName) with HTTP \(status): "
                    + (reason.hasSuffix(".") ? reason : reason + ".") + " \(fix)",
                statusCode: status,
                body: data
            )
        }
        guard isGraphQLBody, let json else {
            throw AWSAppSyncClientError(
                .requestFailed,
                "\(endpoint.absoluteString) answered \(Operation.operationName) with HTTP \(status) and "
                    + (data.isEmpty ? "no body" : "a body that is not a GraphQL response") + ". "
                    + "Check ApiUrl in awsconfiguration.json.",
                statusCode: status,
                body: data
            )
        }
        do {
            return try GraphQLResult(response: json, operation: operation)
        } catch {
            throw AWSAppSyncClientError(
                .parseError,
                "The response of \(Operation.operationName) does not fit API.swift: \(sentence: error) "
                    + "Regenerate API.swift from the API's current schema.",
                statusCode: status,
                body: data
            )
        }
    }

    /// `{"query": …, "variables": …}`: the body of an operation's request.
    static func requestBody<Operation: GraphQLOperation>(_ operation: Operation) -> String {
        var body: [String: JSONValue] = ["query": .string(Operation.operationString)]
        body["variables"] = .object(operation.variables ?? [:])
        var writer = JSONTextWriter(sortsKeys: true, doubleStyle: .keepsFraction)
        JSONValue.object(body).write(to: &writer)
        return writer.text
    }

    /// The client's real-time connection, shared by its subscriptions.
    var realTimeClient: AppSyncRealTimeClient {
        realTime.withLock { client in
            if let client { return client }
            let created = AppSyncRealTimeClient(
                graphQLURL: configuration.appSyncServiceConfig.endpoint,
                authorizer: AppSyncClientRealTimeAuthorizer(authorization: configuration.authorization)
            )
            client = created
            return created
        }
    }
}

/// The cache files of the live clients: two clients may share one only when they talk to the
/// same API with the same auth mode, or the cache would mix what different callers may see.
enum CacheFileRegistry {
    struct Registration: Sendable {
        let path: String
        let token: UUID
    }

    private struct Owner {
        let endpoint: URL
        let mode: AWSAuthorizationType
        let key: String
        var tokens: Set<UUID>
    }

    private static let owners = Mutex<[String: Owner]>([:])

    /// Registers a client of `configuration` on the file at `url`.
    ///
    /// - Throws: ``AWSAppSyncClientError`` when a live client of another API or auth mode uses
    ///   the file.
    static func register(_ url: URL, for configuration: AWSAppSyncClientConfiguration) throws -> Registration {
        let path = url.standardizedFileURL.path
        let service = configuration.appSyncServiceConfig
        let token = UUID()
        try owners.withLock { owners in
            if var owner = owners[path] {
                guard owner.endpoint == service.endpoint, owner.mode == service.authType else {
                    throw AWSAppSyncClientError(
                        .configuration,
                        "The cache file '\(path)' is in use by a live client of AppSync.\(owner.key) "
                            + "(\(owner.mode.rawValue) at \(owner.endpoint.absoluteString)), so a client of "
                            + "AppSync.\(service.key) (\(service.authType.rawValue) at \(service.endpoint.absoluteString)) "
                            + "cannot use it. Give each auth mode its own ClientDatabasePrefix and pass "
                            + "useClientDatabasePrefix: true, or another databaseURL."
                    )
                }
                owner.tokens.insert(token)
                owners[path] = owner
            } else {
                owners[path] = Owner(
                    endpoint: service.endpoint,
                    mode: service.authType,
                    key: service.key,
                    tokens: [token]
                )
            }
        }
        return Registration(path: path, token: token)
    }

    static func unregister(_ registration: Registration) {
        owners.withLock { owners in
            owners[registration.path]?.tokens.remove(registration.token)
            if owners[registration.path]?.tokens.isEmpty == true {
                owners[registration.path] = nil
            }
        }
    }
}
