import Foundation

/// The delta journal: every change of an item, kept for ``ServerConfiguration/deltaSyncTTL``,
/// which a `sync*` query with a recent `lastSync` reads instead of the base table (see
/// ``ModelResolver``'s sync).
///
/// Both stores keep it in the table `_stratus_delta`: one row per change, with the model, when
/// it changed, when the row expires, and the item as ``text(of:)`` writes it; rows are read in
/// the order of their `position`, which ``PageToken`` carries from page to page.
enum DeltaJournal {
    /// The table of the journal, in SQLite and PostgreSQL alike.
    static let table = "_stratus_delta"

    /// An item as the journal records it: its values and metadata in one JSON object.
    static func text(of item: StoredItem) -> String {
        var object = item.values
        object[TableLayout.versionColumn] = item.version.map(JSON.int)
        object[TableLayout.deletedColumn] = item.deleted.map(JSON.bool)
        object[TableLayout.lastChangedAtColumn] = item.lastChangedAt.map(JSON.int)
        return JSON.object(object).text
    }

    /// The item of the entry at `position`, whose text is `text`, of `layout`'s model.
    ///
    /// - Throws: ``StorageError/corrupt(_:)`` naming the entry when its text is not an object of
    ///   values with valid metadata.
    static func item(_ text: String, layout: TableLayout, position: Int) throws -> StoredItem {
        let entry = "the journal entry \(position) of \(layout.model.name)"
        let parsed: JSON
        do {
            parsed = try JSON(parsing: text)
        } catch {
            throw StorageError.corrupt("\(entry) cannot be read: \(error)")
        }
        guard case .object(var object) = parsed else { throw StorageError.corrupt("\(entry) is not an object") }
        func metadata<T>(_ name: String, _ read: (JSON) -> T?) throws(StorageError) -> T? {
            guard let value = object[name], !value.isNull else { return nil }
            guard let result = read(value) else {
                throw StorageError.corrupt("\(entry) has \(value.text) as its \(name)")
            }
            return result
        }
        let version = try metadata(TableLayout.versionColumn, \.intValue)
        let deleted = try metadata(TableLayout.deletedColumn, \.boolValue)
        let lastChangedAt = try metadata(TableLayout.lastChangedAtColumn, \.intValue)
        for name in [TableLayout.versionColumn, TableLayout.deletedColumn, TableLayout.lastChangedAtColumn] {
            object[name] = nil
        }
        return StoredItem(values: object, version: version, deleted: deleted, lastChangedAt: lastChangedAt)
    }
}
