import StratusCodegen
import Synchronization

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
    /// The fields the mutation selected; `nil` for all. Subscribers see the others as `null`,
    /// and filters are evaluated on the mutation's result, as AppSync does.
    var selectedFields: Set<String>? = nil
    /// The `data` payloads already written for this event, by subscription document: many
    /// subscribers of the same document share one encoding.
    let payloads = PayloadCache()

    var model: ModelType { item.model }

    /// The item as the mutation's result has it: fields it did not select removed.
    var result: ResolvedItem {
        guard let selectedFields else { return item }
        var visible = item.item
        visible.values = JSONObject(
            item.item.values.filter { selectedFields.contains($0.key) }.map { ($0.key, $0.value) }
        )
        if !selectedFields.contains(TableLayout.versionColumn) { visible.version = nil }
        if !selectedFields.contains(TableLayout.deletedColumn) { visible.deleted = nil }
        if !selectedFields.contains(TableLayout.lastChangedAtColumn) { visible.lastChangedAt = nil }
        return ResolvedItem(model: item.model, item: visible)
    }
}

/// Encoded payloads of one event, by subscription document.
final class PayloadCache: Sendable {
    private let texts = Mutex<[String: String]>([:])

    /// The payload text for `key`, made by `make` the first time.
    func text(for key: String, make: () -> String) -> String {
        if let known = texts.withLock({ $0[key] }) { return known }
        let text = make()
        texts.withLock { $0[key] = text }
        return text
    }
}
