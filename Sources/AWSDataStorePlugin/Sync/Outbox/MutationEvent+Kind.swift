import Amplify

extension MutationEvent {
    /// The kind of change, typed: ``mutationType``, which Amplify's API keeps as text.
    ///
    /// DataStore makes every event it handles with a ``MutationType`` or reads it from its
    /// outbox, which refuses a row of another kind (``Outbox/event(from:)``): an event of
    /// another kind is a programming error.
    var kind: MutationType {
        guard let kind = MutationType(rawValue: mutationType) else {
            preconditionFailure(
                "The MutationEvent '\(id)' of \(modelName) '\(modelId)' has the mutationType '\(mutationType)', "
                    + "which is not create, update or delete; DataStore makes its events with a MutationType."
            )
        }
        return kind
    }
}

extension MutationEvent.MutationType {
    /// The operation of the `@auth` rules that allow this kind of change.
    var operation: ModelOperation {
        switch self {
        case .create: .create
        case .update: .update
        case .delete: .delete
        }
    }
}
