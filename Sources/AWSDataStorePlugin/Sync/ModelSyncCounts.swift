import Amplify

/// What a model's sync query changed in the store, for its `modelSynced` event: the records
/// of that model it wrote, as observers heard of them. Records kept for later (a pending
/// local change, a parent not stored yet) are not counted until they are applied, and the
/// children a deletion cascaded to, or records of another model that waited for one of
/// these, are not counted for this model.
struct ModelSyncCounts: Sendable {
    var added = 0
    var updated = 0
    var deleted = 0

    /// Counts the changes of `applied` that are of `modelName`.
    mutating func add(_ applied: [MutationEvent], of modelName: String) {
        for event in applied where event.modelName == modelName {
            switch event.kind {
            case .create: added += 1
            case .update: updated += 1
            case .delete: deleted += 1
            }
        }
    }
}
