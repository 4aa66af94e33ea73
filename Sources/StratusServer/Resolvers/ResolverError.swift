import AWSWire
import StratusCodegen

/// A resolver's failure, written into the response as AppSync writes it: `errorType`,
/// `errorInfo` and `data` at the top level of the error object, next to `path`, `locations` and
/// `message`.
struct ResolverError: Error, Sendable, CustomStringConvertible {
    var errorType: AppSyncErrorType?
    var message: String
    /// The error's `data`: for `ConflictUnhandled`, the server's item.
    var data: JSON = .null
    var errorInfo: JSON = .null
    /// An error type a function reported for one item of a batch, written as given in place of
    /// ``errorType``.
    var reportedErrorType: String? = nil

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

    /// The `errorInfo` of a write rejected for want of `_version`: which field is missing, and
    /// how to get it.
    static func missingVersionInfo(model: ModelType) -> JSON {
        let get = model.operations.get.map { "\($0)(…) { _version }" } ?? "the item's _version"
        return .object([
            "missingField": "_version",
            "hint": .string(
                "Conflict detection is on for \(model.name): a write without the item's current _version is "
                    + "rejected (a delete) or merged keeping the stored values (an update). Query \(get) and send "
                    + "it in the input, or turn conflict detection off for the model in stratus.json: "
                    + "\"models\": {\"\(model.name)\": {\"conflictDetection\": false}}."
            ),
        ])
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
