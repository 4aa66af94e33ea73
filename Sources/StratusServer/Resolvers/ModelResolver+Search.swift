import Foundation
import StratusCodegen

/// A `Searchable<Model>Connection`: a page of items, the number of items the search matches and
/// the aggregations it asked for.
struct ResolvedSearch: Sendable {
    /// The page, resolved as a `Model<Model>Connection`'s `items` and `nextToken`.
    var page: ResolvedConnection
    var total: Int
    var aggregateItems: [SearchAggregate]
}

/// A `SearchableAggregateResult`.
struct SearchAggregate: Sendable, Hashable {
    /// A `SearchableAggregateGenericResult`.
    enum Result: Sendable, Hashable {
        /// A `SearchableAggregateScalarResult`: `avg`, `min`, `max`, `sum`, `cardinality`.
        case scalar(Double)
        /// A `SearchableAggregateBucketResult`: `terms`, most frequent first.
        case buckets([Bucket])

        /// The name of the result's GraphQL type.
        var typeName: String {
            switch self {
            case .scalar: "SearchableAggregateScalarResult"
            case .buckets: "SearchableAggregateBucketResult"
            }
        }
    }

    /// A `SearchableAggregateBucketResultItem`.
    struct Bucket: Sendable, Hashable {
        var key: String
        var docCount: Int
    }

    var name: String
    /// `nil` for `avg`, `min` and `max` of items without a value, which OpenSearch answers with a
    /// null value.
    var result: Result?
}

/// The `search<Plural>` query of `@searchable` models, answered from the store.
///
/// AppSync sends it to OpenSearch; here the store reads the items the filter and the caller's
/// `@auth` rules admit (the same restriction as `list`, tombstones left out as the search index
/// leaves them out), and the server sorts them, counts them and aggregates them in memory. A
/// search therefore reads every item it matches, at most ``maximumMatches``: enough for a local
/// backend, not for a production index.
///
/// What follows OpenSearch as the Amplify resolver drives it: `sort` entries without a `field`
/// sort by the primary key and without a `direction` descending, the primary key fields end
/// every order (descending), items without a value sort last; `limit` defaults to 100 and
/// `from + limit` may not pass 10,000; `nextToken` is the sort values of a page's last item, and
/// comes with every page that has items (the page after the last is empty, without one);
/// `total` stops at 10,000, as OpenSearch counts by default; `terms` returns the 10 most frequent
/// values. Filters are read by ``SearchFilterParser``: its full-text operators are
/// approximations, evaluated by the server on the items the store returns for the rest.
extension ModelResolver {
    /// The most items a search may match.
    static let maximumMatches = 100_000
    /// OpenSearch's `index.max_result_window`, and the most `total` counts.
    static let resultWindow = 10_000
    /// OpenSearch's default number of `terms` buckets.
    static let termsBuckets = 10
    /// The `limit` of a search without one: the Amplify resolver's default.
    static let defaultSearchLimit = 100

    func search(
        _ model: ModelType,
        field: String,
        arguments: JSONObject,
        identity: Identity,
        restriction: ItemPredicate?
    ) async throws -> ResolvedSearch {
        let fields = SearchableFields(model: model, conflictDetection: conflictDetection(model))
        let filterParser = SearchFilterParser(
            model: model,
            fields: fields,
            parser: PredicateParser(model: model, schema: schema, identity: identity, operation: .search)
        )
        let order = try sortOrder(arguments["sort"], model: model)
        let searchFilter = try filterParser.parse(arguments["filter"])
        var filter = Self.restricted(
            searchFilter?.storePredicate,
            Self.restricted(
                try Self.keyReadability(
                    model,
                    order.map(\.field).filter { fields.member(named: $0)?.isMetadata != true },
                    identity
                ),
                restriction
            )
        )
        if conflictDetection(model) {
            filter = Self.restricted(filter, .not(.field(TableLayout.deletedColumn, .compare(.eq, .bool(true)))))
        }
        let limit = try searchLimit(arguments["limit"])
        let from = arguments["from"]?.intValue ?? 0
        let digest = PageToken.digest(
            field: field,
            arguments: .object(["filter": arguments["filter"] ?? .null, "sort": arguments["sort"] ?? .null])
        )
        var after: [JSON]?
        if let token = arguments["nextToken"]?.stringValue {
            guard let decoded = PageToken(decoding: token, secret: tokenSecret, query: digest),
                let lastKey = decoded.lastKey, lastKey.count == order.count
            else { throw ResolverError.invalidNextToken }
            guard from == 0 else {
                throw ResolverError.invalidInput("'from' must be 0 when 'nextToken' is given, as OpenSearch requires.")
            }
            after = lastKey
        }
        guard from >= 0 else { throw ResolverError.invalidInput("'from' must be 0 or more; it is \(from).") }
        guard from + limit <= Self.resultWindow else {
            throw ResolverError.invalidInput(
                "Result window is too large, from + size must be less than or equal to: [\(Self.resultWindow)] "
                    + "but was [\(from + limit)]. Page with nextToken instead of from."
            )
        }

        var matches = try await allItems(of: model, filter: filter)
        if let searchFilter, !searchFilter.isStoreOnly {
            matches = matches.filter(searchFilter.evaluate)
        }
        let sorted = matches.map { item in (item: item, key: order.map { Self.sortValue(of: $0.field, in: item) }) }
            .sorted { Self.compare($0.key, $1.key, order) < 0 }
        var start = from
        if let after {
            start = sorted.firstIndex { Self.compare($0.key, after, order) > 0 } ?? sorted.count
        }
        let page = Array(sorted[min(start, sorted.count)..<min(start + limit, sorted.count)])
        let nextToken = page.last.map { PageToken(query: digest, lastKey: $0.key).encoded(secret: tokenSecret) }
        return ResolvedSearch(
            page: ResolvedConnection(
                items: page.map { ResolvedItem(model: model, item: $0.item) },
                nextToken: nextToken,
                startedAt: nil
            ),
            total: min(matches.count, Self.resultWindow),
            aggregateItems: try aggregates(
                arguments["aggregates"],
                of: matches,
                model: model,
                fields: fields,
                identity: identity
            )
        )
    }

    /// The page size of a search: 100 without a `limit`, at most the maximum page size.
    private func searchLimit(_ limit: JSON?) throws(ResolverError) -> Int {
        guard let limit = limit?.intValue else { return Self.defaultSearchLimit }
        guard limit >= 0 else { throw ResolverError.invalidInput("'limit' must be 0 or more; it is \(limit).") }
        return min(limit, max(configuration.maximumPageSize, 1))
    }

    /// Every live item the filter admits, in key order.
    private func allItems(of model: ModelType, filter: ItemPredicate?) async throws -> [StoredItem] {
        var items: [StoredItem] = []
        var after: [JSON]?
        repeat {
            let page = try await storeCalls.fetchPage(
                PageQuery(
                    model: model.name,
                    keyCondition: .always,
                    filter: filter,
                    order: model.primaryKey,
                    descending: false,
                    after: after,
                    limit: max(configuration.maximumPageSize, 1),
                    now: now()
                )
            )
            items += page.items
            guard items.count <= Self.maximumMatches else {
                throw ResolverError.invalidInput(
                    "The search matches more than \(Self.maximumMatches) items of \(model.name), the most the local "
                        + "server sorts and counts in one request. Narrow the filter."
                )
            }
            after = page.lastKey
        } while after != nil
        return items
    }

    /// One key of a search's order.
    struct SortKey: Sendable, Hashable {
        var field: String
        var descending: Bool
    }

    /// The order of `sort`, as the Amplify resolver sends it to OpenSearch: each entry (no field:
    /// the partition key; no direction: descending), then each primary key field not named yet,
    /// descending.
    private func sortOrder(_ sort: JSON?, model: ModelType) throws(ResolverError) -> [SortKey] {
        var order: [SortKey] = []
        for entry in sort?.arrayValue ?? (sort.map { $0.isNull ? [] : [$0] } ?? []) {
            guard case .object(let object) = entry else { continue }
            let field = object["field"]?.stringValue ?? model.primaryKey[0]
            let descending = (object["direction"]?.stringValue ?? "desc") == "desc"
            order.append(SortKey(field: field, descending: descending))
        }
        for key in model.primaryKey where !order.contains(where: { $0.field == key }) {
            order.append(SortKey(field: key, descending: true))
        }
        return order
    }

    /// The value a field sorts and aggregates by: the sync metadata, or the stored value.
    static func sortValue(of field: String, in item: StoredItem) -> JSON {
        switch field {
        case TableLayout.versionColumn: item.version.map(JSON.int) ?? .null
        case TableLayout.deletedColumn: item.deleted.map(JSON.bool) ?? .null
        case TableLayout.lastChangedAtColumn: item.lastChangedAt.map(JSON.int) ?? .null
        default: item.values[field] ?? .null
        }
    }

    /// Compares two rows of sort values: negative when `left` comes first. Missing values come
    /// last in either direction; a list sorts by its least element ascending and its greatest
    /// descending, as OpenSearch sorts multi-valued fields.
    static func compare(_ left: [JSON], _ right: [JSON], _ order: [SortKey]) -> Int {
        for (index, key) in order.enumerated() {
            let a = representative(left[index], descending: key.descending)
            let b = representative(right[index], descending: key.descending)
            switch (a, b) {
            case (nil, nil): continue
            case (nil, _): return 1
            case (_, nil): return -1
            case (let a?, let b?):
                let result = compareValues(a, b)
                if result != 0 { return key.descending ? -result : result }
            }
        }
        return 0
    }

    private static func representative(_ value: JSON, descending: Bool) -> JSON? {
        if case .array(let elements) = value {
            let present = elements.filter { !$0.isNull }
            return descending
                ? present.max { compareValues($0, $1) < 0 } : present.min { compareValues($0, $1) < 0 }
        }
        return value.isNull ? nil : value
    }

    /// Numbers numerically, strings by their UTF-8 bytes (OpenSearch's keyword order), Booleans
    /// false first; values of different kinds by kind.
    static func compareValues(_ a: JSON, _ b: JSON) -> Int {
        if let x = a.doubleValue, let y = b.doubleValue, a.stringValue == nil, b.stringValue == nil {
            return x < y ? -1 : x > y ? 1 : 0
        }
        switch (a, b) {
        case (.string(let x), .string(let y)):
            return x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : x == y ? 0 : 1
        case (.bool(let x), .bool(let y)):
            return x == y ? 0 : x ? 1 : -1
        default:
            return a.text < b.text ? -1 : a.text == b.text ? 0 : 1
        }
    }
}
