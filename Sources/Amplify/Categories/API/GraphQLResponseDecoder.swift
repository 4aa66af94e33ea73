import Foundation

/// Turns a GraphQL response body into a ``GraphQLResponse``.
///
/// `data` only is a success; `errors` only is an error; both are partial, except when the value
/// asked for (at `decodePath`, or every top-level value without one) is null, which is an error. The value decoded is `data` at the request's
/// `decodePath`; `String` receives that JSON as text and ``JSONValue`` the JSON itself.
public struct GraphQLResponseDecoder: Sendable {
    public init() {}

    /// Decodes `body` for `request`.
    public func decode<R: Decodable>(_ body: Data, for request: GraphQLRequest<R>) -> GraphQLResponse<R> {
        guard let json = try? JSONValue(parsing: body) else {
            return .failure(
                .transformationError(
                    String(decoding: body, as: UTF8.self),
                    .operationError("The response is not a JSON object.", "Check that the endpoint is a GraphQL API.")
                )
            )
        }
        return decode(json, for: request)
    }

    /// Decodes a body already read as JSON, such as a real-time `data` message's payload.
    public func decode<R: Decodable>(_ json: JSONValue, for request: GraphQLRequest<R>) -> GraphQLResponse<R> {
        // The body as text, for the errors that carry it.
        var raw: String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return String(decoding: (try? encoder.encode(json)) ?? Data(), as: UTF8.self)
        }
        guard case .object(let object) = json else {
            return .failure(
                .transformationError(
                    raw,
                    .operationError("The response is not a JSON object.", "Check that the endpoint is a GraphQL API.")
                )
            )
        }
        let errors: [GraphQLError]
        do {
            errors = try Self.errors(from: object["errors"])
        } catch {
            return .failure(
                .transformationError(
                    raw,
                    .operationError("The response's errors are malformed: \(error).", "Check the server.")
                )
            )
        }
        let data = object["data"] ?? .null
        // The value asked for is the one at decodePath; without one, every top-level value.
        let requestedIsNull: Bool = {
            if let path = request.decodePath { return data.value(at: path)?.isNull ?? true }
            guard case .object(let members) = data else { return true }
            return members.values.allSatisfy(\.isNull)
        }()
        if data.isNull || (!errors.isEmpty && requestedIsNull) {
            if errors.isEmpty {
                return .failure(
                    .unknown("The response has neither data nor errors.", "Check the server's logs.", nil)
                )
            }
            return .failure(.error(errors))
        }
        let value: R
        do {
            value = try Self.value(R.self, in: data, at: request.decodePath)
        } catch {
            return .failure(
                .transformationError(
                    raw,
                    .operationError("Failed to decode \(R.self): \(error).", "Check the selection set and decodePath.")
                )
            )
        }
        return errors.isEmpty ? .success(value) : .failure(.partial(value, errors))
    }

    static func value<R: Decodable>(_ type: R.Type, in data: JSONValue, at path: String?) throws -> R {
        let selected = path.map { data.value(at: $0) ?? .null } ?? data
        if R.self == JSONValue.self, let json = selected as? R { return json }
        if R.self == String.self {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            if let text = String(decoding: try encoder.encode(selected), as: UTF8.self) as? R { return text }
        }
        return try selected.decode(as: R.self)
    }

    /// The `errors` of a response: AppSync's top-level `errorType`, `errorInfo`, `data` and any
    /// other unknown members moved into `extensions`.
    public static func errors(from value: JSONValue?) throws -> [GraphQLError] {
        guard let value, case .array(let entries) = value else { return [] }
        return try entries.map { entry in
            var error = try entry.decode(as: GraphQLError.self)
            if case .object(let members) = entry {
                let known: Set<String> = [
                    "message", "locations", "path", "extensions", "errorType", "errorInfo", "data",
                ]
                var extensions = error.extensions ?? [:]
                for (key, value) in members where !known.contains(key) { extensions[key] = value }
                for key in ["errorType", "errorInfo", "data"] {
                    if let value = members[key], !value.isNull { extensions[key] = value }
                }
                error.extensions = extensions.isEmpty ? nil : extensions
            }
            return error
        }
    }
}
