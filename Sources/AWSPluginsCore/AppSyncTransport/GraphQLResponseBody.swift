import Amplify
import Foundation

/// A GraphQL response body, `{"data": …, "errors": […]}`, read once for every client: the
/// decode step of ``AppSyncRequest``.
///
/// `errors` are read by ``Amplify/GraphQLError/init(appSyncError:at:)``, so each has AppSync's
/// `errorType`, `errorInfo` and `data` wherever the server put them. What `data` must hold is
/// each client's business: the API plugin decodes it at a request's `decodePath`, the AppSync
/// client reads it against an operation's selections.
///
/// ```swift
/// let body = try GraphQLResponseBody(parsing: response.body)
/// if let conflict = body.errors?.first(where: { $0.appSyncErrorType == .conflictUnhandled }) { … }
/// ```
public struct GraphQLResponseBody: Sendable, Hashable {
    /// The body's `data`: `nil` when absent, `JSONValue.null` when null.
    public var data: JSONValue?
    /// The body's `errors`: `nil` when absent or null.
    public var errors: [GraphQLError]?

    /// A body from its parts.
    public init(data: JSONValue?, errors: [GraphQLError]?) {
        self.data = data
        self.errors = errors
    }

    /// Reads a body already parsed as JSON.
    ///
    /// - Throws: ``GraphQLResponseBodyError`` when `json` is not an object, or its `errors` are
    ///   not GraphQL errors.
    public init(json: JSONValue) throws(GraphQLResponseBodyError) {
        guard case .object(let object) = json else {
            throw .wrongType(json, expected: "an object", at: [])
        }
        self.init(data: object["data"], errors: try GraphQLError.appSyncErrors(object["errors"]))
    }

    /// Reads a body from its bytes.
    ///
    /// - Throws: ``GraphQLResponseBodyError`` when `data` is not JSON, not an object, or its
    ///   `errors` are not GraphQL errors.
    public init(parsing data: Data) throws(GraphQLResponseBodyError) {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: data)
        } catch {
            throw .notJSON(error)
        }
        try self.init(json: json)
    }

    /// Whether the body holds `data` (even null) or `errors`, as every GraphQL response does; a
    /// body with neither came from something other than a GraphQL endpoint.
    public var isGraphQLResponse: Bool { data != nil || errors != nil }
}
