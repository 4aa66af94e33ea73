import Amplify

/// Gives the queries whose cache entries should point at an item a sync operation wrote: each
/// query's fields then read the item's record, as it is when read.
///
/// The item is the response object as `cacheKeyForObject` sees it. Return no queries for an
/// item that needs none. It is called on the sync's own task, before the result is written,
/// not on the callback queue: it only builds queries.
///
/// ```swift
/// cacheUpdates: { item in
///     guard let id = item["id"]?.stringValue else { return [] }
///     return [GetPostQuery(id: id)]
/// }
/// ```
public typealias CacheUpdates = @Sendable (_ item: [String: JSONValue]) -> [any GraphQLQuery]

/// The items of a sync operation's results that ``CacheUpdates`` is given, and the entries it
/// asks for.
enum SyncItems {
    /// The items of a response's `data`: for each root field, the objects of its list, the
    /// objects of the `items` list of the connection it holds (`listTodos { items { … } nextToken }`),
    /// or else the object it holds; root fields in the order of their names.
    static func items(of data: Snapshot) -> [[String: JSONValue]] {
        var items: [[String: JSONValue]] = []
        for (_, value) in data.sorted(by: { $0.key < $1.key }) {
            switch value {
            case .array(let elements):
                items += elements.compactMap(\.objectValue)
            case .object(let object):
                if case .array(let elements)? = object["items"] {
                    items += elements.compactMap(\.objectValue)
                } else {
                    items.append(object)
                }
            default:
                continue
            }
        }
        return items
    }

    /// Each item of `data` that `cacheUpdates` gives queries for, with them.
    static func entries(
        of data: Snapshot,
        _ cacheUpdates: CacheUpdates
    ) -> [(item: [String: JSONValue], queries: [any GraphQLQuery])] {
        items(of: data).compactMap { item in
            let queries = cacheUpdates(item)
            return queries.isEmpty ? nil : (item, queries)
        }
    }
}

extension ReadWriteTransaction {
    /// Writes a result of a sync operation's `operation` and points the entries that
    /// `cacheUpdates` gave for its items at the items' records.
    ///
    /// An item older than the cache's record (a lower `_version`) leaves the record as it is.
    /// A model's sync operations each run their own query: one for creates, one for deletes,
    /// say. A query answered before a delete can arrive after the other operation's
    /// subscription wrote that delete, and without this check it would bring the record back.
    ///
    /// - Throws: ``AWSAppSyncClientError`` (``AWSAppSyncClientError/Code/configuration``) when
    ///   `cacheKeyForObject` gives an item no key, or a query's field does not hold one object;
    ///   the database's errors.
    func write<Operation: GraphQLOperation>(
        syncResult data: Snapshot,
        for operation: Operation,
        entries: [(item: [String: JSONValue], queries: [any GraphQLQuery])]
    ) throws {
        try write(
            snapshot: data,
            selections: Operation.Data.selections,
            variables: operation.variables,
            root: CacheRoot.key(for: Operation.self),
            keepingNewerVersions: true
        )
        for (item, queries) in entries {
            guard let key = cacheKeyForObject?(item).flatMap(CacheNormalizer.keyText) else {
                let names = queries.map { type(of: $0).operationName }.joined(separator: ", ")
                throw AWSAppSyncClientError(
                    .configuration,
                    "cacheUpdates gave \(names) for an item of \(Operation.operationName) that cacheKeyForObject "
                        + "gives no key: an entry can only point at a record with a key of its own. Set "
                        + "apolloClient?.cacheKeyForObject (such as { $0[\"id\"] }) and select its fields in "
                        + "\(Operation.operationName)."
                )
            }
            for query in queries { try point(query, at: key) }
        }
    }
}
