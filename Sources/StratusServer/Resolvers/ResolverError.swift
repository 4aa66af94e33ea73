import AWSWire

/// A resolver's failure, written into the response as AppSync writes it: `errorType`,
/// `errorInfo` and `data` at the top level of the error object, next to `path`, `locations` and
/// `message`.
struct ResolverError: Error, Sendable, CustomStringConvertible {
    var errorType: AppSyncErrorType?
    var message: String
    /// The error's `data`: for `ConflictUnhandled`, the server's item.
    var data: JSON = .null
    var errorInfo: JSON = .null

    var description: String { message }

    /// A `condition` that does not hold, a create of an existing key, or an update or delete of a
    /// missing one.
    static let conditionalCheckFailed = ResolverError(
        errorType: .conditionalCheckFailed,
        message: "The conditional request failed (Service: DynamoDb, Status Code: 400)"
    )

    /// A write the conflict strategy rejects; `item` is the server's item, trimmed to the
    /// mutation's selection set.
    static func conflictUnhandled(_ item: JSON) -> ResolverError {
        ResolverError(errorType: .conflictUnhandled, message: "Conflict resolver rejects mutation.", data: item)
    }

    /// A `nextToken` that is malformed, altered, or from another query.
    static let invalidNextToken = ResolverError(
        errorType: .userIllegalArgument,
        message: "Invalid pagination token given."
    )

    /// An argument the resolver cannot use.
    static func invalidInput(_ message: String) -> ResolverError {
        ResolverError(errorType: .validationException, message: message)
    }

    /// A request DynamoDB refuses as invalid, in its words: an empty key value, a `limit` out of
    /// range.
    static func dynamoDBValidation(_ message: String) -> ResolverError {
        ResolverError(
            errorType: .dynamoDB,
            message: message + " (Service: DynamoDb, Status Code: 400)"
        )
    }

    /// A write whose item would be larger than DynamoDB's 400 KB (``StoredItem/maximumSize``).
    static let itemTooLarge = dynamoDBValidation("Item size has exceeded the maximum allowed size")

    /// A failure of the server itself, reported without its internals.
    static let internalFailure = ResolverError(
        errorType: .internalFailure,
        message: "An internal failure occurred while resolving this field. The server log has the details."
    )
}
