import Amplify
import Foundation

/// Turns a GraphQL response body into a `GraphQLResponse`: the API plugin's decode step over
/// ``GraphQLResponseBody``.
///
/// `data` only is a success; `errors` only is an error; both are partial, except when the value
/// asked for (at `decodePath`, or every top-level value without one) is null, which is an error.
/// The value decoded is `data` at the request's `decodePath`; `String` receives that JSON as
/// text and `JSONValue` the JSON itself. The errors are read by
/// ``Amplify/GraphQLError/init(appSyncError:at:)``; a body that is not JSON, not an object, or whose
/// `errors` are not GraphQL errors is a `transformationError` carrying the body's text.
public struct GraphQLResponseDecoder: Sendable {
    public init() {}

    /// Decodes `body` for `request`.
    public func decode<R: Decodable>(_ body: Data, for request: GraphQLRequest<R>) -> GraphQLResponse<R> {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: body)
        } catch {
            return .failure(.transformationError(String(decoding: body, as: UTF8.self), Self.notAnObject))
        }
        return decode(json, raw: String(decoding: body, as: UTF8.self), for: request)
    }

    /// Decodes a body already read as JSON, such as a real-time `data` message's payload.
    public func decode<R: Decodable>(_ json: JSONValue, for request: GraphQLRequest<R>) -> GraphQLResponse<R> {
        // Parsed JSON holds no infinite or NaN number, the one thing its canonical text cannot
        // write; the description only stands in for a value built in code.
        decode(json, raw: json.canonicalText ?? String(describing: json), for: request)
    }

    /// Decodes `json`, whose text `raw` the transformation errors carry; `raw` is made only
    /// for them, not for every answer that decodes.
    private func decode<R: Decodable>(
        _ json: JSONValue,
        raw: @autoclosure () -> String,
        for request: GraphQLRequest<R>
    )
        -> GraphQLResponse<R>
    {
        let body: GraphQLResponseBody
        do {
            body = try GraphQLResponseBody(json: json)
        } catch {
            if error.path.isEmpty { return .failure(.transformationError(raw(), Self.notAnObject)) }
            return .failure(
                .transformationError(
                    raw(),
                    .operationError("\(error)", "Check the server.")
                )
            )
        }
        let errors = body.errors ?? []
        let data = body.data ?? .null
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
                    raw(),
                    .operationError("Failed to decode \(R.self): \(error).", "Check the selection set and decodePath.")
                )
            )
        }
        return errors.isEmpty ? .success(value) : .failure(.partial(value, errors))
    }

    private static let notAnObject = APIError.operationError(
        "The response is not a JSON object.",
        "Check that the endpoint is a GraphQL API."
    )

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
}
