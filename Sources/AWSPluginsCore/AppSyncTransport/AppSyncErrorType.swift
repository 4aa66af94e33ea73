/// The `errorType`s of AppSync errors that the clients act on, so that they `switch` on a case
/// rather than match strings. ``GraphQLError/appSyncErrorType`` reads them from an error.
///
/// ```swift
/// AppSyncErrorType(rawValue: "ConflictUnhandled")  // .conflictUnhandled
/// ```
public enum AppSyncErrorType: String, Sendable, Hashable, CaseIterable {
    /// A request refused as a whole: no or wrong credentials.
    case unauthorizedException = "UnauthorizedException"
    /// A field or operation its `@auth` rules deny.
    case unauthorized = "Unauthorized"
    /// A mutation's condition, or the version it was based on, did not hold.
    case conditionalCheckFailed = "ConditionalCheckFailedException"
    /// A version conflict the resolver left to the client; the error's `data` is the server's item.
    case conflictUnhandled = "ConflictUnhandled"
    /// The DynamoDB data source failed.
    case dynamoDB = "DynamoDB:DynamoDbException"
    /// A mutation with this `Idempotency-Key` is still running.
    case idempotencyKeyInUse = "IdempotencyKeyInUseException"
    /// The `Idempotency-Key` was sent before with another request.
    case idempotencyKeyReused = "IdempotencyKeyReusedException"
    /// The mutation with this `Idempotency-Key` was applied, but its answer was not kept.
    case idempotentResponseLost = "IdempotentResponseLostException"
}
