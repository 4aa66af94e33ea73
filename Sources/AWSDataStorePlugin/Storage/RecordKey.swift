import Amplify
import GRDB

/// One record of one model: the model's name and the record's identifier (its key values
/// joined with `#`, as `Model.identifier` joins them).
///
/// The system tables store it as the text `modelName|identifier` (``storedText``): the
/// `id` of `_stratus_sync_metadata`, `_stratus_deferred` and `_stratus_orphans`, and the
/// `parent` of `_stratus_orphans`. Databases on devices hold that text, so it never changes.
struct RecordKey: Hashable, Sendable, CustomStringConvertible {
    /// The model's name.
    let modelName: String
    /// The record's identifier.
    let identifier: String
    /// The text the system tables store: `modelName|identifier`. Made once, as the key is, for
    /// the statements that bind it several times a record; the model name holds no `|`, so
    /// the text names one record, and it alone is hashed and compared.
    let storedText: String

    init(modelName: String, identifier: String) {
        self.modelName = modelName
        self.identifier = identifier
        self.storedText = "\(modelName)|\(identifier)"
    }

    static func == (lhs: RecordKey, rhs: RecordKey) -> Bool { lhs.storedText == rhs.storedText }

    func hash(into hasher: inout Hasher) { hasher.combine(storedText) }

    /// ``storedText`` as a statement argument.
    var databaseValue: DatabaseValue { storedText.databaseValue }

    /// The model and the identifier, as messages name a record: `Post 'p1'`.
    var description: String { "\(modelName) '\(identifier)'" }
}

extension MutationEvent {
    /// The record the event changes.
    var recordKey: RecordKey { RecordKey(modelName: modelName, identifier: modelId) }
}
