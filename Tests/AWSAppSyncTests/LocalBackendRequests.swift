import AWSAppSync
import Foundation
import StratusTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension LocalBackend {
    /// Sends `operation` as a client generated from `API.swift` sends it (its `operationString`
    /// and variables, with the API key) and reads the response into its `Data`.
    func perform<Operation: GraphQLOperation>(_ operation: Operation) async throws -> GraphQLResult<Operation.Data> {
        var body: [String: JSONValue] = [
            "query": .string(Operation.operationString),
            "operationName": .string(Operation.operationName),
        ]
        if let variables = operation.variables { body["variables"] = .object(variables) }
        var request = URLRequest(url: endpoint)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "content-type")
        request.setValue(apiKey, forHTTPHeaderField: "x-api-key")
        request.httpBody = try JSONEncoder().encode(JSONValue.object(body))
        let (data, _) = try await URLSession.shared.data(for: request)
        let response = try JSONDecoder().decode(JSONValue.self, from: data)
        return try GraphQLResult(response: response, operation: operation)
    }
}
