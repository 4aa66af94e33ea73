import StratusCodegen

/// The `aggregates` of a `search<Plural>` query, computed over every item the search matches
/// (not only the page), in the order they are asked for.
extension ModelResolver {
    func aggregates(
        _ value: JSON?,
        of items: [StoredItem],
        model: ModelType,
        fields: SearchableFields,
        identity: Identity
    ) throws(ResolverError) -> [SearchAggregate] {
        var result: [SearchAggregate] = []
        for entry in value?.arrayValue ?? [] {
            guard case .object(let object) = entry, let name = object["name"]?.stringValue,
                let type = object["type"]?.stringValue, let field = object["field"]?.stringValue,
                let member = fields.member(named: field)
            else { continue }
            let readable = try readableItems(items, field: field, model: model, identity: identity)
            let values = readable.flatMap { item -> [JSON] in
                let value = Self.sortValue(of: field, in: item)
                return (value.arrayValue ?? [value]).filter { !$0.isNull }
            }
            result.append(SearchAggregate(name: name, result: try aggregate(type, values, name: name, member: member)))
        }
        return result
    }

    /// The items whose `field` the caller may read: OpenSearch aggregates a field guarded by
    /// field-level rules only over the items those rules admit.
    ///
    /// - Throws: ``ResolverError`` `Unauthorized` when the caller may read the field nowhere, with
    ///   the Amplify resolver's message.
    private func readableItems(
        _ items: [StoredItem],
        field: String,
        model: ModelType,
        identity: Identity
    ) throws(ResolverError) -> [StoredItem] {
        guard let modelField = model.field(named: field), Authorization.isGuarded(modelField) else { return items }
        switch Authorization.readAccess(to: modelField, of: model, for: identity, operation: .search) {
        case .all:
            return items
        case .denied:
            throw ResolverError(
                errorType: .unauthorized,
                message: "Unauthorized to run aggregation on field: \(field)"
            )
        case .rows(let rules):
            return items.filter { item in rules.contains { $0.admits(item.values) } }
        }
    }

    private func aggregate(
        _ type: String,
        _ values: [JSON],
        name: String,
        member: SearchableFields.Member
    ) throws(ResolverError) -> SearchAggregate.Result? {
        switch type {
        case "terms":
            var counts: [String: Int] = [:]
            for value in values { counts[Self.termKey(value), default: 0] += 1 }
            let buckets = counts.map { SearchAggregate.Bucket(key: $0.key, docCount: $0.value) }
                .sorted {
                    $0.docCount != $1.docCount
                        ? $0.docCount > $1.docCount : $0.key.utf8.lexicographicallyPrecedes($1.key.utf8)
                }
            return .buckets(Array(buckets.prefix(Self.termsBuckets)))
        case "cardinality":
            return .scalar(Double(Set(values.map(Self.termKey)).count))
        case "avg", "min", "max", "sum":
            guard member.filterScalar == .int || member.filterScalar == .float else {
                throw ResolverError.invalidInput(
                    "The aggregation '\(name)' asks for '\(type)' of '\(member.name)', which is not a number. "
                        + "Use 'terms' or 'cardinality' for it."
                )
            }
            let numbers = values.compactMap(\.doubleValue)
            switch type {
            case "sum": return .scalar(numbers.reduce(0, +))
            case "min": return numbers.min().map(SearchAggregate.Result.scalar)
            case "max": return numbers.max().map(SearchAggregate.Result.scalar)
            default: return numbers.isEmpty ? nil : .scalar(numbers.reduce(0, +) / Double(numbers.count))
            }
        default:
            throw ResolverError.invalidInput("'\(type)' is not an aggregation type.")
        }
    }

    /// A value as a `terms` bucket key: strings as themselves, other values as JSON writes them.
    private static func termKey(_ value: JSON) -> String {
        value.stringValue ?? value.text
    }
}
