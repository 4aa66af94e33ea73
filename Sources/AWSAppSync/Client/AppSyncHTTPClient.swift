import AWSPluginsCore
import Amplify
import Foundation
import Tracing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Posts GraphQL requests to one API with its authorization: the one place the AppSync client
/// touches HTTP, shared by queries, mutations and the mutation queue.
struct AppSyncHTTPClient: Sendable {
    let configuration: AWSAppSyncClientConfiguration
    let transport: any HTTPTransport
    /// The server's time, from the `Date` header of every answer.
    let serverClock: ServerClock

    var endpoint: URL { configuration.appSyncServiceConfig.endpoint }

    /// Posts `body` and returns the GraphQL response body of a 2xx answer: the client's adapter
    /// over ``AppSyncRequest``, which brings its authorization and ``AWSAppSyncClientError``.
    ///
    /// - Throws: ``AWSAppSyncClientError``: ``AWSAppSyncClientError/Code/requestFailed`` with no
    ///   status code when no answer arrived, with the status code for a non-2xx answer (marked
    ///   retryable, with its `Retry-After`, when ``RetryRule`` retries it) or a body that is not
    ///   a GraphQL response; ``AWSAppSyncClientError/Code/authentication`` when no token or
    ///   credentials could be had.
    func post(body: String, operationName: String, idempotencyKey: String? = nil) async throws -> JSONValue {
        var headers = ["accept": "application/json"]
        if let idempotencyKey {
            headers[RetryRule.idempotencyKeyHeader] = idempotencyKey
        }
        var request = AppSyncRequest(URLRequest(url: endpoint), body: Data(body.utf8), headers: headers)
        request.tracer = configuration.tracer ?? InstrumentationSystem.tracer
        request.spanName = operationName
        request.spanAttributes["graphql.operation.name"] = operationName
        let answer: AppSyncAnswer
        do {
            answer = try await request.send(by: configuration.authorization, over: transport)
        } catch let error as AppSyncTransportError {
            throw AWSAppSyncClientError(
                .requestFailed,
                "The request to \(endpoint.absoluteString) failed: \(sentence: error.underlying) "
                    + "Check the network and that the server is running."
            )
        }
        switch answer {
        case .success(let response), .retryable(let response, _), .refused(let response):
            serverClock.heard(response)
        }
        switch answer {
        case .success(let response):
            return try graphQLBody(of: response, operationName: operationName)
        case .retryable(let response, let retryAfter):
            var error = refusal(response, operationName: operationName)
            error.isRetryable = true
            error.retryAfter = retryAfter?.delay
            throw error
        case .refused(let response):
            throw refusal(response, operationName: operationName)
        }
    }

    /// The GraphQL response body of a 2xx answer.
    ///
    /// - Throws: ``AWSAppSyncClientError/Code/requestFailed`` when the body is not a JSON object
    ///   holding `data` or `errors`.
    private func graphQLBody(of response: APIResponse, operationName: String) throws -> JSONValue {
        let data = response.body
        let json: JSONValue
        do {
            json = try JSONValue(parsing: data)
        } catch {
            throw notGraphQL(response, operationName: operationName)
        }
        guard case .object(let body) = json, body["errors"] != nil || body["data"] != nil else {
            throw notGraphQL(response, operationName: operationName)
        }
        return json
    }

    private func notGraphQL(_ response: APIResponse, operationName: String) -> AWSAppSyncClientError {
        AWSAppSyncClientError(
            .requestFailed,
            "\(endpoint.absoluteString) answered \(operationName) with HTTP \(response.statusCode) and "
                + (response.body.isEmpty ? "no body" : "a body that is not a GraphQL response") + ". "
                + "Check ApiUrl in awsconfiguration.json.",
            statusCode: response.statusCode,
            body: response.body
        )
    }

    /// The error of a non-2xx answer. AppSync refuses a request as a whole (UnauthorizedException,
    /// a malformed request) with a 4xx status and a GraphQL errors body: the message quotes its
    /// errors, or the body itself when it has none that can be read.
    private func refusal(_ response: APIResponse, operationName: String) -> AWSAppSyncClientError {
        let data = response.body
        let status = response.statusCode
        var reason = data.isEmpty ? "no body" : "the body \(String(decoding: data.prefix(300), as: UTF8.self))"
        do {
            if let errors = try GraphQLResponseBody(parsing: data).errors {
                reason = errors.map { error in (error.errorType.map { "\($0): " } ?? "") + error.message }
                    .joined(separator: "; ")
            }
        } catch {
            // A body that is not a GraphQL response is quoted as it is.
        }
        let fix =
            status == 401 || status == 403
            ? "Check the \(configuration.authorization.mode.rawValue) key, token or credentials the client sends."
            : "Check ApiUrl in awsconfiguration.json and the server's logs."
        return AWSAppSyncClientError(
            .requestFailed,
            "\(endpoint.absoluteString) refused \(operationName) with HTTP \(status): "
                + (reason.hasSuffix(".") ? reason : reason + ".") + " \(fix)",
            statusCode: status,
            body: data
        )
    }

    /// Sends `operation` and reads its response.
    func send<Operation: GraphQLOperation>(_ operation: Operation) async throws -> GraphQLResult<Operation.Data> {
        let json = try await post(body: AWSAppSyncClient.requestBody(operation), operationName: Operation.operationName)
        return try Self.decode(json, for: operation)
    }

    /// Reads a GraphQL response body for `operation`.
    ///
    /// - Throws: ``AWSAppSyncClientError`` (``AWSAppSyncClientError/Code/parseError``) when the
    ///   data does not fit the operation's selections.
    static func decode<Operation: GraphQLOperation>(
        _ json: JSONValue,
        for operation: Operation
    ) throws -> GraphQLResult<Operation.Data> {
        do {
            return try GraphQLResult(response: json, operation: operation)
        } catch {
            throw AWSAppSyncClientError(
                .parseError,
                "The response of \(Operation.operationName) does not fit API.swift: \(sentence: error) "
                    + "Regenerate API.swift from the API's current schema."
            )
        }
    }

    /// Whether the API's host answers HTTP at all (whatever the status): the network is back.
    func isReachable() async -> Bool {
        var request = URLRequest(url: endpoint)
        request.httpMethod = "GET"
        request.timeoutInterval = 5
        do {
            _ = try await transport.send(request)
            return true
        } catch {
            return false
        }
    }
}
