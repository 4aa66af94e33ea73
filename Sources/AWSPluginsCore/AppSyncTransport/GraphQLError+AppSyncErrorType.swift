import AWSWire
import Amplify

extension GraphQLError {
    /// The DynamoDB data source's prefix on the error types of its resolvers
    /// (`DynamoDB:ConditionalCheckFailedException`).
    private static let dynamoDBPrefix = "DynamoDB:"
    /// How the AppSync SDK recognizes a condition that failed without an error type: DynamoDB's
    /// message for it.
    private static let conditionFailedMessage = "The conditional request failed"

    /// AppSync's type of this error: the one place the clients turn the wire's `errorType`
    /// string into the ``AppSyncErrorType`` they `switch` on.
    ///
    /// - An `errorType` AppSync or the local backend writes (`ConflictUnhandled`, `Unauthorized`,
    ///   `UnauthorizedException`, `IdempotentResponseLostException`, …) is its case.
    /// - A DynamoDB resolver's `DynamoDB:<exception>` is the exception's case:
    ///   `DynamoDB:ConditionalCheckFailedException` is `AppSyncErrorType.conditionalCheckFailed`,
    ///   as the local backend's `ConditionalCheckFailedException` is.
    /// - An error whose type is absent or unknown, with DynamoDB's message for a failed condition
    ///   (`The conditional request failed…`, which the AppSync SDK matches), is
    ///   `AppSyncErrorType.conditionalCheckFailed`.
    /// - Anything else is `nil`: the error is reported as it is, by its `errorType` and message.
    ///
    /// ```swift
    /// switch error.appSyncErrorType {
    /// case .conflictUnhandled?: resolve(remote: error.data)
    /// case .conditionalCheckFailed?: undo()
    /// default: report(error)
    /// }
    /// ```
    public var appSyncErrorType: AppSyncErrorType? {
        if let errorType {
            if let known = AppSyncErrorType(rawValue: errorType) { return known }
            if errorType.hasPrefix(Self.dynamoDBPrefix),
                let known = AppSyncErrorType(rawValue: String(errorType.dropFirst(Self.dynamoDBPrefix.count)))
            {
                return known
            }
        }
        return message.hasPrefix(Self.conditionFailedMessage) ? .conditionalCheckFailed : nil
    }

    /// Whether the error refuses the request's authorization (`Unauthorized` for a field or
    /// operation its `@auth` rules deny, `UnauthorizedException` for a request refused as a
    /// whole), so that another authorization mode may do better.
    public var isUnauthorized: Bool {
        switch appSyncErrorType {
        case .unauthorized?, .unauthorizedException?: true
        default: false
        }
    }
}
