/// The `errorType` of an AppSync error: the one list the server writes and the clients
/// `switch` on, for the HTTP endpoint, the real-time endpoint and the resolvers.
///
/// The raw values are AppSync's own (and, for `Idempotency-Key`s, the local backend's):
///
/// ```swift
/// AppSyncErrorType(rawValue: "ConflictUnhandled")  // .conflictUnhandled
/// ```
public enum AppSyncErrorType: String, Sendable, Hashable, CaseIterable {
    // Requests refused before they run.
    /// The request is not valid HTTP or not a GraphQL request.
    case malformedHttpRequest = "MalformedHttpRequestException"
    /// The request's parts are wrong.
    case badRequest = "BadRequestException"
    /// A request refused as a whole: no or wrong credentials.
    case unauthorizedException = "UnauthorizedException"
    /// The request's body is larger than AppSync accepts.
    case requestEntityTooLarge = "RequestEntityTooLargeException"
    /// The response would be larger than AppSync sends.
    case responsePayloadTooLarge = "ResponsePayloadTooLarge"
    /// The request ran longer than its time limit.
    case executionTimeout = "ExecutionTimeout"
    /// The server failed.
    case internalFailure = "InternalFailure"
    // SigV4 refusals, as AWS names them.
    /// No `Authorization` header or signature.
    case missingAuthenticationToken = "MissingAuthenticationTokenException"
    /// The signature lacks a part.
    case incompleteSignature = "IncompleteSignatureException"
    /// The access key or session token is unknown.
    case unrecognizedClient = "UnrecognizedClientException"
    /// The signature does not match the request.
    case invalidSignature = "InvalidSignatureException"
    // Fields and resolvers.
    /// A field or operation its `@auth` rules deny.
    case unauthorized = "Unauthorized"
    /// A mutation's condition, or the version it was based on, did not hold.
    case conditionalCheckFailed = "ConditionalCheckFailedException"
    /// A version conflict the resolver left to the client; the error's `data` is the server's item.
    case conflictUnhandled = "ConflictUnhandled"
    /// An argument a resolver cannot use.
    case userIllegalArgument = "UserIllegalArgumentException"
    /// Input that breaks the schema's constraints.
    case validationException = "ValidationException"
    /// The DynamoDB data source failed.
    case dynamoDB = "DynamoDB:DynamoDbException"
    /// A transaction of several writes was cancelled, and none of them was made.
    case transactionCanceled = "DynamoDB:TransactionCanceledException"
    /// A Lambda function behind a resolver failed: its error, a timeout or a crash.
    case lambdaUnhandled = "Lambda:Unhandled"
    // Real-time `start` messages and connections.
    /// An operation the real-time endpoint does not run (a query or a mutation).
    case unsupportedOperation = "UnsupportedOperation"
    /// The subscription's document does not parse.
    case invalidSyntax = "InvalidSyntaxError"
    /// The subscription's document does not validate against the schema.
    case validationError = "ValidationError"
    /// The connection holds as many subscriptions as it may.
    case maxSubscriptionsReached = "MaxSubscriptionsReachedError"
    /// A `start` with the id of a running subscription.
    case duplicatedOperation = "DuplicatedOperationError"
    /// A real-time message larger than the endpoint accepts.
    case limitExceeded = "LimitExceededError"
    /// The client reads its messages slower than they are sent.
    case slowConsumer = "SlowConsumerError"
    // `Idempotency-Key`s of mutations (the local backend's own; AppSync ignores the header).
    /// A mutation with this `Idempotency-Key` is still running.
    case idempotencyKeyInUse = "IdempotencyKeyInUseException"
    /// The `Idempotency-Key` was sent before with another request.
    case idempotencyKeyReused = "IdempotencyKeyReusedException"
    /// The mutation with this `Idempotency-Key` was applied, but its answer was not kept.
    case idempotentResponseLost = "IdempotentResponseLostException"
}
