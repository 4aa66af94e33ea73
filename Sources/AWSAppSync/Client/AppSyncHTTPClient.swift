import AWSPluginsCore
import Amplify
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Posts GraphQL requests to one API with its authorization: the one place the AppSync client
/// touches HTTP, shared by queries, mutations and the mutation queue.
struct AppSyncHTTPClient: Sendable {
    let configuration: AWSAppSyncClientConfiguration
    let transport: any HTTPTransport

    var endpoint: URL { configuration.appSyncServiceConfig.endpoint }

    /// Posts `body` and returns the GraphQL response body of a 2xx answer.
    ///
    /// - Throws: ``AWSAppSyncClientError``: ``AWSAppSyncClientError/Code/requestFailed`` with no
    ///   status code when no answer arrived, with the status code (and `Retry-After`) for a
    ///   non-2xx answer or a body that is not a GraphQL response;
    ///   ``AWSAppSyncClientError/Code/authentication`` when no token or credentials could be had.
    func post(body: String, operationName: String, idempotencyKey: String? = nil) async throws -> JSONValue {
        var request = URLRequest(url: endpoint)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "content-type")
        request.setValue("application/json", forHTTPHeaderField: "accept")
        if let idempotencyKey {
            request.setValue(idempotencyKey, forHTTPHeaderField: Self.idempotencyKeyHeader)
        }
        request.httpBody = Data(body.utf8)
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
            var error = AWSAppSyncClientError(
                .requestFailed,
                "\(endpoint.absoluteString) refused \(operationName) with HTTP \(status): "
                    + (reason.hasSuffix(".") ? reason : reason + ".") + " \(fix)",
                statusCode: status,
                body: data
            )
            error.retryAfter = Self.retryAfter(response.headers, now: Date())
            throw error
        }
        guard isGraphQLBody, let json else {
            throw AWSAppSyncClientError(
                .requestFailed,
                "\(endpoint.absoluteString) answered \(operationName) with HTTP \(status) and "
                    + (data.isEmpty ? "no body" : "a body that is not a GraphQL response") + ". "
                    + "Check ApiUrl in awsconfiguration.json.",
                statusCode: status,
                body: data
            )
        }
        return json
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

    /// The header carrying a queued mutation's durable id, so that a replay is applied once.
    static let idempotencyKeyHeader = "Idempotency-Key"

    /// The delay a `Retry-After` header asks for: seconds, or an HTTP date.
    static func retryAfter(_ headers: [String: String], now: Date) -> Duration? {
        guard let value = headers.first(where: { $0.key.lowercased() == "retry-after" })?.value else { return nil }
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed), seconds >= 0 { return .seconds(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return .milliseconds(max(0, Int((date.timeIntervalSince(now) * 1000).rounded(.up))))
    }
}
