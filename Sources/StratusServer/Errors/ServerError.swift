/// A local backend that cannot start.
public struct ServerError: Error, Sendable, CustomStringConvertible {
    enum Reason: Sendable {
        case invalidAPI(String)
        case invalidDefault(String)
        case storage(StorageError)
        case cognito(String)
        case invalidResolvers(String)
        case invalidRESTAPI(String)
        case tracing(String)
    }

    let reason: Reason

    /// The destructive schema changes that kept the data directory from opening, if that is the
    /// failure; empty otherwise.
    public var refusedSchemaChanges: [SchemaChange] {
        if case .storage(let error) = reason { return error.refusedSchemaChanges }
        return []
    }

    /// A message that says what failed and what to do.
    public var description: String {
        switch reason {
        case .invalidAPI(let detail):
            return "The API derived from the schema is not valid GraphQL (\(detail)). "
                + "Check that the schema declares at least one query, and report the schema if it does."
        case .invalidDefault(let detail):
            return detail
        case .storage(let error):
            return error.description
        case .cognito(let detail):
            return detail
        case .invalidResolvers(let detail):
            return detail
        case .invalidRESTAPI(let detail):
            return detail
        case .tracing(let detail):
            return detail
        }
    }

    static func invalidAPI(_ detail: String) -> ServerError { ServerError(reason: .invalidAPI(detail)) }
    static func invalidDefault(_ detail: String) -> ServerError { ServerError(reason: .invalidDefault(detail)) }
    static func storage(_ error: StorageError) -> ServerError { ServerError(reason: .storage(error)) }
    static func invalidResolvers(_ detail: String) -> ServerError { ServerError(reason: .invalidResolvers(detail)) }
    static func invalidRESTAPI(_ detail: String) -> ServerError { ServerError(reason: .invalidRESTAPI(detail)) }
    static func tracing(_ detail: String) -> ServerError { ServerError(reason: .tracing(detail)) }
    package static func cognito(_ detail: String) -> ServerError { ServerError(reason: .cognito(detail)) }
}
