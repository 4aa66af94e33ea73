import Foundation
import StratusCodegen

/// One item's versions as the delta journal still holds them, and the item as it is now: what
/// the console's Data page shows of an item's history.
///
/// The journal keeps each change for ``ServerConfiguration/deltaSyncTTL`` only, so the oldest
/// versions of an item that changed long ago are gone; ``missesOlderVersions`` says so.
public struct ItemHistory: Sendable, Hashable {
    /// What a change did to the item.
    public enum Operation: String, Sendable, Hashable {
        /// The item's first version.
        case create = "CREATE"
        /// A later version.
        case update = "UPDATE"
        /// The tombstone a deletion left.
        case delete = "DELETE"
    }

    /// The item as one change left it.
    public struct Version: Sendable, Hashable {
        /// `_version`.
        public var version: Int?
        /// `_lastChangedAt`, in epoch milliseconds.
        public var lastChangedAt: Int?
        public var operation: Operation
        /// The item's fields after the change, sync metadata apart.
        public var fields: JSONObject
    }

    /// The versions the journal holds, oldest first.
    public var versions: [Version]
    /// The item's `_version` now, `nil` when no item (nor tombstone) has the key.
    public var currentVersion: Int?
    /// How long the journal keeps a change.
    public var retention: Duration

    /// `true` when versions older than the first one listed were made but the journal no
    /// longer holds them.
    public var missesOlderVersions: Bool {
        guard let first = versions.first?.version else { return currentVersion.map { $0 > 0 } ?? false }
        return first > 1
    }
}

/// Why an item's history cannot be read.
public struct ItemHistoryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong and what to do.
    public let description: String
    /// `true` when the store could not be read, `false` when the request names no item right.
    public var isStoreFailure = false
}

extension StratusServer {
    /// The versions of the item of `model` whose primary key fields have the values `key`, as
    /// the delta journal holds them, read from the store (tombstones and all: this is an
    /// administrator's view, not an API request).
    ///
    /// - Throws: ``ItemHistoryError`` when the model is unknown, keeps no journal (conflict
    ///   detection is off for it), `key` misses or adds a field, or the store cannot be read.
    public func history(model name: String, key: JSONObject) async throws(ItemHistoryError) -> ItemHistory {
        guard let model = api.schema.model(named: name) else {
            let names = api.schema.models.map(\.name).joined(separator: ", ")
            throw ItemHistoryError(description: "The schema has no model '\(name)'. Its models are \(names).")
        }
        let configuration = api.configuration
        guard configuration.detectsConflicts(on: model.name) else {
            throw ItemHistoryError(
                description: "\(model.name) keeps no history: the delta journal records the changes of models with "
                    + "conflict detection only. Serve without turning conflict detection off for \(model.name)."
            )
        }
        let fields = model.primaryKey.joined(separator: ", ")
        let unknown = key.keys.filter { !model.primaryKey.contains($0) }.sorted()
        guard unknown.isEmpty else {
            throw ItemHistoryError(
                description: "\(unknown.joined(separator: ", ")) is not a key field of \(model.name). Give its "
                    + "primary key: \(fields)."
            )
        }
        var values: [JSON] = []
        for field in model.primaryKey {
            guard let value = key[field], !value.isNull else {
                throw ItemHistoryError(
                    description: "The key of \(model.name) has no value for \(field). Give its primary key: \(fields)."
                )
            }
            values.append(value)
        }
        let now = Timestamp.milliseconds(clock())
        let filter = ItemPredicate.all(zip(model.primaryKey, values).map { .field($0, .compare(.eq, $1)) })
        var versions: [ItemHistory.Version] = []
        let current: StoredItem?
        do {
            current = try await store.fetchItem(model: model.name, key: values, now: now)
            var after: Int?
            repeat {
                let page = try await store.fetchChanges(
                    ChangeQuery(
                        model: model.name,
                        since: 0,
                        filter: filter,
                        afterPosition: after,
                        limit: 1000,
                        now: now
                    )
                )
                versions += page.items.map(Self.version(of:))
                after = page.lastPosition
            } while after != nil
        } catch {
            throw ItemHistoryError(
                description: "Cannot read the history of \(model.name) \(JSON.array(values).text): \(error)",
                isStoreFailure: true
            )
        }
        return ItemHistory(
            versions: versions,
            currentVersion: current?.version ?? (current == nil ? nil : 0),
            retention: configuration.deltaSyncTTL
        )
    }

    /// A journal entry as a version: a tombstone was a deletion, version 1 a creation.
    private static func version(of item: StoredItem) -> ItemHistory.Version {
        let operation: ItemHistory.Operation =
            item.isDeleted ? .delete : item.version == 1 ? .create : .update
        return ItemHistory.Version(
            version: item.version,
            lastChangedAt: item.lastChangedAt,
            operation: operation,
            fields: item.values
        )
    }
}
