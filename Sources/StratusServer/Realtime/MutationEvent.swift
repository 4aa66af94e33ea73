import StratusCodegen

/// A committed write, as subscriptions hear it: the model, the kind of mutation and the item as
/// stored after the write.
struct MutationEvent: Sendable {
    /// The mutation that made the write.
    enum Kind: String, Sendable, Hashable, CaseIterable {
        case create, update, delete

        /// The kind of the mutation field `field` of `model`: `createPost` is `.create`.
        init?(field: String, of model: ModelType) {
            let fields = [model.operations.create, model.operations.update, model.operations.delete]
            guard let index = fields.firstIndex(of: field) else { return nil }
            self = Self.allCases[index]
        }

        /// The kind of the subscription field `field` of `model`: `onCreatePost` is `.create`.
        init?(subscription field: String, of model: ModelType) {
            let fields = [model.operations.onCreate, model.operations.onUpdate, model.operations.onDelete]
            guard let index = fields.firstIndex(of: field) else { return nil }
            self = Self.allCases[index]
        }
    }

    /// The position of the write among all published writes, from 1.
    let sequence: UInt64
    let kind: Kind
    /// The model and the item after the write; for a delete, a tombstone or the last values.
    let item: ResolvedItem

    var model: ModelType { item.model }
}
