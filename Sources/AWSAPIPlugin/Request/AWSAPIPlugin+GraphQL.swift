import AWSPluginsCore
import Amplify
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension AWSAPIPlugin {
    /// Sends a GraphQL query to the request's API and decodes the response.
    ///
    /// - Throws: `APIError`, as `APICategory.query(request:)` describes.
    @discardableResult
    public func query<R: Decodable>(request: GraphQLRequest<R>) async throws -> GraphQLResponse<R> {
        try await graphQL(request, operationType: "query")
    }

    /// Sends a GraphQL mutation to the request's API and decodes the response.
    ///
    /// - Throws: `APIError`, as `APICategory.query(request:)` describes.
    @discardableResult
    public func mutate<R: Decodable>(request: GraphQLRequest<R>) async throws -> GraphQLResponse<R> {
        try await graphQL(request, operationType: "mutation")
    }

    private func graphQL<R: Decodable>(
        _ request: GraphQLRequest<R>,
        operationType: String
    ) async throws -> GraphQLResponse<R> {
        let pipeline = try pipeline(apiName: request.apiName, type: .graphQL, authMode: request.authMode)
        var urlRequest = URLRequest(url: pipeline.endpoint.endpoint)
        urlRequest.httpMethod = "POST"
        urlRequest.httpBody = try Self.encode(request)
        let response = try await pipeline.send(
            urlRequest,
            headers: request.headers.isEmpty ? nil : request.headers,
            operationType: operationType
        )
        return GraphQLResponseDecoder().decode(response.body, for: request)
    }

    /// The body of `request`.
    ///
    /// - Throws: `APIError.operationError` when its variables are not all JSON-compatible or
    ///   cannot be encoded.
    static func encode<R>(_ request: GraphQLRequest<R>) throws -> Data {
        if let problem = request.variablesProblem {
            throw APIError.operationError(problem, "Pass JSONValue variables, or values JSONSerialization produces.")
        }
        return try encode(request.body)
    }

    /// The body of a GraphQL request: compact JSON with sorted keys, the text `JSONEncoder`
    /// writes with `.sortedKeys` and `.withoutEscapingSlashes`, written directly.
    static func encode(_ body: JSONValue) throws -> Data {
        guard let text = body.canonicalText else {
            throw APIError.operationError(
                "The request's variables cannot be encoded as JSON: they hold an infinite or NaN number, which JSON "
                    + "cannot represent.",
                "Use finite numbers in the variables."
            )
        }
        return Data(text.utf8)
    }
}
