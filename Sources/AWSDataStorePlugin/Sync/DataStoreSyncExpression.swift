import Amplify

/// Which records of one model DataStore syncs (selective sync).
///
/// ```swift
/// DataStoreSyncExpression.syncExpression(Post.schema, where: { Post.keys.rating > 3 })
/// ```
public struct DataStoreSyncExpression: Sendable {
    /// The model's schema.
    public let modelSchema: ModelSchema
    /// The records to sync.
    public let modelPredicate: @Sendable () -> any QueryPredicate

    /// Syncs the records of the model of `schema` that match `predicate`.
    public static func syncExpression(
        _ schema: ModelSchema,
        where predicate: @escaping @Sendable () -> any QueryPredicate
    ) -> DataStoreSyncExpression {
        DataStoreSyncExpression(modelSchema: schema, modelPredicate: predicate)
    }
}
