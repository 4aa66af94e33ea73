import AWSWire
import Amplify
import Foundation
import GRDB

/// A read and write of the cache inside ``ApolloStore/withinReadWriteTransaction(_:)``; valid
/// only during the transaction's body.
public final class ReadWriteTransaction: ReadTransaction {
    /// The `record.field` keys whose values this transaction changed.
    private(set) var changedKeys: Set<String> = []
    /// The optimistic layer this transaction writes to (a queued mutation's id), or `nil` to
    /// write the records themselves.
    let layer: String?
    /// Whether this transaction added or removed optimistic layers.
    private(set) var layersChanged = false
    /// How many bytes the records written add to the table (negative when they shrank).
    private(set) var addedBytes = 0

    override var writes: Bool { true }

    init(db: Database, cacheKeyForObject: CacheKeyForObject?, layered: Bool, layer: String?) {
        self.layer = layer
        super.init(db: db, cacheKeyForObject: cacheKeyForObject, layered: layered || layer != nil)
    }

    /// Reads `query`'s data, lets `body` change it, and writes it back.
    ///
    /// ```swift
    /// try transaction.update(query: ListTodosQuery()) { (data: inout ListTodosQuery.Data) in
    ///     data.listTodos?.items?.removeAll { $0?.id == id }
    /// }
    /// ```
    ///
    /// - Throws: ``AWSAppSyncClientError`` (``AWSAppSyncClientError/Code/cacheMiss``) when the
    ///   cache does not hold the query's data; what `body` throws; the database's errors.
    public func update<Query: GraphQLQuery>(query: Query, _ body: (inout Query.Data) throws -> Void) throws {
        var data = try read(query: query)
        try body(&data)
        try write(data: data, forQuery: query)
    }

    /// Writes `data` as the response of `query`.
    ///
    /// - Throws: ``JSONDecodingError`` when `data` lacks a selected field or has one of another
    ///   type; the database's errors.
    public func write<Query: GraphQLQuery>(data: Query.Data, forQuery query: Query) throws {
        let object = try data.jsonObject(variables: query.variables)
        try write(snapshot: object, for: query)
    }

    /// Writes a response object of `operation` and returns the `record.field` keys it holds.
    ///
    /// A server's answer passes `keepingNewerVersions`: a query or mutation answered before a
    /// change the cache already heard of must not undo it. A write of the app's own
    /// (``write(data:forQuery:)``) is kept as given.
    @discardableResult
    func write<Operation: GraphQLOperation>(
        snapshot: Snapshot,
        for operation: Operation,
        keepingNewerVersions: Bool = false
    ) throws -> Set<String> {
        try write(
            snapshot: snapshot,
            selections: Operation.Data.selections,
            variables: operation.variables,
            root: CacheRoot.key(for: Operation.self),
            keepingNewerVersions: keepingNewerVersions
        )
    }

    /// Writes a response object read with `selections` under `root` and returns the
    /// `record.field` keys it holds.
    ///
    /// With `keepingNewerVersions`, a record whose `_version` is below the stored record's is
    /// not written: the answer was read before the change the cache already holds.
    @discardableResult
    func write(
        snapshot: Snapshot,
        selections: [any GraphQLSelection],
        variables: GraphQLMap?,
        root: CacheKey,
        keepingNewerVersions: Bool = false
    ) throws -> Set<String> {
        var normalizer = CacheNormalizer(variables: variables, cacheKeyForObject: cacheKeyForObject)
        normalizer.normalize(snapshot, selections: selections, key: root)
        let kept = normalizer.records.filter { key, _ in
            root == CacheRoot.query || (key != root && !key.hasPrefix(root + "."))
        }
        try prefetch(Array(kept.keys))
        var keys: Set<String> = []
        for (key, fields) in kept {
            if keepingNewerVersions, let incoming = fields["_version"]?.intValue,
                let stored = try loadedBase(key, shown: record(key))?["_version"]?.intValue, stored > incoming
            {
                continue
            }
            try merge(fields, into: key)
            for field in fields.keys { keys.insert("\(key).\(field)") }
        }
        return keys
    }

    /// Points the fields of `query` at the record `key`: reading `query` then reads that record
    /// as it is at the time, not a copy of it (`getPost(id:"p1")` at the record `p1`).
    ///
    /// - Throws: ``AWSAppSyncClientError`` (``AWSAppSyncClientError/Code/configuration``) when a
    ///   field of `query` does not hold one object; the database's errors.
    func point<Query: GraphQLQuery>(_ query: Query, at key: CacheKey) throws {
        var fields: [GraphQLField] = []
        collectFields(Query.Data.selections, typename: nil, variables: query.variables, into: &fields)
        var references: [String: JSONValue] = [:]
        for field in fields {
            switch field.type {
            case .object, .nonNull(.object):
                references[field.cacheKey(with: query.variables)] = .object([CacheRoot.referenceKey: .string(key)])
            default:
                throw AWSAppSyncClientError(
                    .configuration,
                    "\(Query.operationName)'s field \(field.responseKey) does not hold one object, so it cannot "
                        + "point at the record '\(key)'. Give cacheUpdates queries whose fields each get one item, "
                        + "such as getPost(id:)."
                )
            }
        }
        try merge(references, into: CacheRoot.query)
    }

    /// Sets `fields` on the record `key`, keeping its other fields; writes only what changed.
    ///
    /// In an optimistic transaction the fields go to its layer; otherwise to the record, under
    /// the layers of queued mutations, which keep showing their values until they are removed.
    /// A list under a layer keeps in the record only what is not the layers' own (see
    /// ``underLayers(_:shown:stored:)``), and shows with what the layers added and removed.
    private func merge(_ fields: [String: JSONValue], into key: CacheKey) throws {
        let view = try self.record(key) ?? [:]
        if let layer {
            let changedFields = fields.filter { view[$0.key] != $0.value }
            guard !changedFields.isEmpty else { return }
            var entry = try OptimisticLayers.entry(db, layer: layer, key: key) ?? .init(fields: [:], previous: [:])
            for field in changedFields.keys where entry.fields[field] == nil {
                entry.previous?[field] = view[field]
            }
            entry.fields.merge(changedFields) { $1 }
            try OptimisticLayers.write(db, layer: layer, key: key, entry: entry)
            // Read again, with the layers merged over the records as any read merges them.
            forget(key)
            for field in changedFields.keys { changedKeys.insert("\(key).\(field)") }
            layersChanged = true
            return
        }
        let shadow = overlay[key]
        var record = loadedBase(key, shown: view) ?? [:]
        var changed = false
        for (field, value) in fields {
            // A list under a layer was most likely changed as it showed, with the layers'
            // items: those go back to the layers, not to the records.
            let value =
                shadow?[field] == nil ? value : Self.underLayers(value, shown: view[field], stored: record[field])
            guard record[field] != value else { continue }
            record[field] = value
            if shadow == nil { changedKeys.insert("\(key).\(field)") }
            changed = true
        }
        guard changed else { return }
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO records (key, record, accessed) VALUES (?, ?, ?)
                ON CONFLICT(key) DO UPDATE SET record = excluded.record, accessed = excluded.accessed
                """
        )
        let stored = try Self.stored(record, key: key)
        try statement.execute(arguments: [key, stored, CacheBounds.now()])
        let size = key.utf8.count + stored.count
        addedBytes += size - (storedSizes[key] ?? 0)
        storedSizes[key] = size
        guard shadow != nil else {
            loaded[key] = record
            return
        }
        // The layers show over the new record; only the fields whose shown value changes are
        // reported.
        forget(key)
        let now = try self.record(key) ?? [:]
        for field in fields.keys where view[field] != now[field] { changedKeys.insert("\(key).\(field)") }
    }

    /// The value a write that is not optimistic leaves in the records for a field that
    /// optimistic layers show over: for a list that the writer most likely read as the layers
    /// showed it, its items less those only the layers hold, and with those the layers hide
    /// from it, which the writer could not have meant to remove; any other value as it is.
    ///
    /// - Parameters:
    ///   - value: The value written.
    ///   - shown: What the field showed, layers merged, before the write.
    ///   - stored: What the record held under the layers before the write.
    static func underLayers(_ value: JSONValue, shown: JSONValue?, stored: JSONValue?) -> JSONValue {
        guard case .array(let items) = value, case .array(let shownItems)? = shown else { return value }
        let storedItems: [JSONValue]
        if case .array(let stored)? = stored { storedItems = stored } else { storedItems = [] }
        let onlyInLayers = shownItems.filter { !storedItems.contains($0) }
        let hidden = storedItems.filter { !shownItems.contains($0) && !items.contains($0) }
        return .array(items.filter { !onlyInLayers.contains($0) } + hidden)
    }

    /// The record `key` as stored under its optimistic layers, from what ``prefetch(_:)``
    /// loaded: `shown` itself when no layer shows over it.
    private func loadedBase(_ key: CacheKey, shown: [String: JSONValue]?) -> [String: JSONValue]? {
        overlay[key] == nil ? shown : (base[key] ?? nil)
    }

    /// The record `key` as stored, without optimistic layers.
    private func storedRecord(_ key: CacheKey) throws -> [String: JSONValue]? {
        if let known = base[key] { return known }
        let statement = try db.cachedStatement(sql: "SELECT record FROM records WHERE key = ?")
        let rows = try Row.fetchCursor(statement, arguments: [key])
        guard try rows.next() != nil else { return nil }
        return try Self.decodedRecord(in: statement, column: 0, key: key).fields
    }

    /// The stored bytes of a record.
    static func stored(_ record: [String: JSONValue], key: CacheKey) throws -> Data {
        guard let bytes = CacheRecordFormat.encode(record) else { throw nonFiniteNumber(key) }
        return Data(bytes)
    }

    private static func nonFiniteNumber(_ key: CacheKey) -> AWSAppSyncClientError {
        AWSAppSyncClientError(
            .cache,
            "The record '\(key)' holds an infinite or NaN number, which JSON cannot hold. Fix the value written."
        )
    }

    /// The stored text of an optimistic layer's fields.
    static func text(of record: [String: JSONValue], key: CacheKey) throws -> String {
        var writer = JSONTextWriter(sortsKeys: true, doubleStyle: .keepsFraction)
        JSONValue.object(record).write(to: &writer)
        guard !writer.wroteNonFiniteNumber else { throw nonFiniteNumber(key) }
        return writer.text
    }

    /// Removes the optimistic layer of the queued mutation `layer`: the fields it set show the
    /// records' own values again.
    func removeLayer(_ layer: String) throws {
        let removed = try OptimisticLayers.remove(db, layer: layer)
        guard !removed.isEmpty else { return }
        layersChanged = true
        for (key, entry) in removed {
            for field in entry.fields.keys { changedKeys.insert("\(key).\(field)") }
            forget(key)
        }
    }

    /// Writes the optimistic layer of the queued mutation `layer` to the records and removes
    /// it: what the mutation's `optimisticUpdate` wrote stays once the server accepted the
    /// mutation, as if it had been written to the records at once.
    ///
    /// A list the layer changed is merged with the list the record holds now: the items the
    /// layer added are added and those it removed are removed, and what others wrote to the
    /// record since (a subscription's item, a fetch) stays. Any other field takes the layer's
    /// value; the server's answer, written after, replaces the fields it holds.
    func commitLayer(_ layer: String) throws {
        let committed = try OptimisticLayers.remove(db, layer: layer)
        guard !committed.isEmpty else { return }
        layersChanged = true
        for (key, entry) in committed {
            let shown = try record(key) ?? [:]
            forget(key)
            let stored = try storedRecord(key) ?? [:]
            var fields: [String: JSONValue] = [:]
            for (field, value) in entry.fields {
                fields[field] = Self.rebased(value, previous: entry.previous.map { $0[field] }, stored: stored[field])
            }
            // Only the fields whose shown value changes are reported; the write's own
            // reports are of the records under the layers.
            let reported = changedKeys
            try merge(fields, into: key)
            changedKeys = reported
            let now = try record(key) ?? [:]
            for field in Set(shown.keys).union(now.keys) where shown[field] != now[field] {
                changedKeys.insert("\(key).\(field)")
            }
        }
    }

    /// The value a committed layer leaves in a field: its own, with, for a list that others
    /// changed since the layer first wrote it, what they added kept and what they removed
    /// left out.
    ///
    /// - Parameters:
    ///   - value: The layer's value.
    ///   - previous: What the field showed before the layer wrote it (`.some(nil)`: absent), or
    ///     `nil` when the layer did not keep it.
    ///   - stored: What the record holds now.
    static func rebased(_ value: JSONValue, previous: JSONValue??, stored: JSONValue?) -> JSONValue {
        guard case .array(let layerItems) = value, case .some(.some(.array(let previousItems))) = previous,
            case .array(let storedItems)? = stored, storedItems != previousItems
        else { return value }
        let removedSince = previousItems.filter { !storedItems.contains($0) }
        let addedSince = storedItems.filter { !previousItems.contains($0) && !layerItems.contains($0) }
        return .array(layerItems.filter { !removedSince.contains($0) } + addedSince)
    }

    /// Drops what this transaction knows of the record `key`, to read it again.
    private func forget(_ key: CacheKey) {
        loaded[key] = nil
        base[key] = nil
        overlay[key] = nil
    }
}
