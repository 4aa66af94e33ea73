import AWSWire
import Amplify

/// Why the backend did not apply a mutation, in the four kinds the clients' device-health
/// metrics count (`datastore_mutations_failed_total`, `appsync_mutations_failed_total`): a
/// bounded dimension, whatever the errors say.
package enum MutationFailureKind: String, CaseIterable, Sendable {
    /// `ConflictUnhandled`: the record changed on the backend meanwhile.
    case conflict
    /// `ConditionalCheckFailedException` (or DynamoDB's): the mutation's condition did not hold.
    case condition
    /// `Unauthorized`, `UnauthorizedException`, or HTTP 401 or 403.
    case unauthorized
    /// Any other refusal.
    case other

    /// The kind of a response's `errors`: a conflict first, then a failed condition, then a
    /// refused authorization; ``other`` for anything else.
    package init(errors: [GraphQLError]) {
        let types = Set(errors.compactMap(\.appSyncErrorType))
        if types.contains(.conflictUnhandled) {
            self = .conflict
        } else if types.contains(.conditionalCheckFailed) {
            self = .condition
        } else if errors.contains(where: \.isUnauthorized) {
            self = .unauthorized
        } else {
            self = .other
        }
    }

    /// The kind of a refusal by HTTP status: ``unauthorized`` for 401 and 403, ``other`` otherwise.
    package init(statusCode: Int) {
        self = statusCode == 401 || statusCode == 403 ? .unauthorized : .other
    }
}
