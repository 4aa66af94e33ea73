import Amplify

/// What applying the backend's records did.
struct ReconcileResult: Sendable {
    var added = 0
    var updated = 0
    var deleted = 0
    /// The changes made, as observers were told of them.
    var applied: [MutationEvent] = []
    /// Records that could not be applied, with the reason.
    var refused: [DataStoreError] = []
}
