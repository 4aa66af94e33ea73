import StratusCodegen

/// The types of `@searchable` models: the `search<Plural>` query's filter, sort and aggregation
/// inputs and its `Searchable<Model>Connection`, named and ordered as the Amplify searchable
/// transformer generates them, so that statements generated against a deployed API validate here.
extension SDLWriter {
    /// The operators of `Searchable<Scalar>FilterInput`, in SDL order.
    static func searchableOperators(of scalar: Scalar) -> [String] {
        let type = scalar.rawValue
        let ordered = ["ne", "gt", "lt", "gte", "lte", "eq"].map { "\($0): \(type)" }
        switch scalar {
        case .boolean:
            return ["eq: \(type)", "ne: \(type)"]
        case .int, .float:
            return ordered + ["range: [\(type)]"]
        default:
            let text = ["match", "matchPhrase", "matchPhrasePrefix", "multiMatch"].map { "\($0): \(type)" }
            return ordered + text + ["exists: Boolean", "wildcard: \(type)", "regexp: \(type)", "range: [\(type)]"]
        }
    }

    /// The models that have a search query.
    var searchableModels: [ModelType] {
        schema.models.filter { $0.operations.search != nil }
    }

    /// The `search<Plural>` field of `model`, or `nil` when it has none.
    func searchQuery(of model: ModelType) -> String? {
        guard let search = model.operations.search else { return nil }
        let name = model.name
        return "\(search)(filter: Searchable\(name)FilterInput, sort: [Searchable\(name)SortInput], limit: Int, "
            + "nextToken: String, from: Int, aggregates: [Searchable\(name)AggregationInput]): "
            + "Searchable\(name)Connection"
    }

    /// The shared searchable types once, then each searchable model's.
    mutating func writeSearchableTypes() {
        let models = searchableModels
        guard !models.isEmpty else { return }
        block("type SearchableAggregateResult", ["name: String!", "result: SearchableAggregateGenericResult"])
        block("type SearchableAggregateScalarResult", ["value: Float!"])
        block("type SearchableAggregateBucketResult", ["buckets: [SearchableAggregateBucketResultItem]"])
        block("type SearchableAggregateBucketResultItem", ["key: String!", "doc_count: Int!"])
        appendBlock(
            "union SearchableAggregateGenericResult = SearchableAggregateScalarResult | SearchableAggregateBucketResult"
        )
        for scalar in [Scalar.string, .int, .float, .boolean, .id] {
            block("input Searchable\(scalar.rawValue)FilterInput", Self.searchableOperators(of: scalar))
        }
        block("enum SearchableSortDirection", ["asc", "desc"])
        block("enum SearchableAggregateType", ["terms", "avg", "min", "max", "sum", "cardinality"])
        for model in models {
            writeSearchableTypes(of: model)
        }
    }

    private mutating func writeSearchableTypes(of model: ModelType) {
        let name = model.name
        let fields = SearchableFields(model: model, conflictDetection: conflictDetection)
        block(
            "type Searchable\(name)Connection",
            ["items: [\(name)]!", "nextToken: String", "total: Int", "aggregateItems: [SearchableAggregateResult]!"]
        )
        block(
            "input Searchable\(name)FilterInput",
            fields.filterable.map { "\($0.name): Searchable\($0.filterScalar.rawValue)FilterInput" }
                + [
                    "and: [Searchable\(name)FilterInput]", "or: [Searchable\(name)FilterInput]",
                    "not: Searchable\(name)FilterInput",
                ]
        )
        block("enum Searchable\(name)SortableFields", fields.sortable.map(\.name))
        block(
            "input Searchable\(name)SortInput",
            ["field: Searchable\(name)SortableFields", "direction: SearchableSortDirection"]
        )
        block("enum Searchable\(name)AggregateField", fields.aggregatable.map(\.name))
        block(
            "input Searchable\(name)AggregationInput",
            ["name: String!", "type: SearchableAggregateType!", "field: Searchable\(name)AggregateField!"]
        )
    }
}

/// The fields a search names, as the Amplify searchable transformer picks them from the model's
/// type: its scalar fields (lists of scalars included) and, with conflict detection, the sync
/// metadata; enum fields filter as strings and aggregate, but do not sort.
struct SearchableFields: Sendable {
    struct Member: Sendable, Hashable {
        var name: String
        /// The scalar whose `Searchable<Scalar>FilterInput` filters the field.
        var filterScalar: Scalar
        var isEnum: Bool
        /// `true` for `_version`, `_deleted` and `_lastChangedAt`.
        var isMetadata: Bool
    }

    /// Scalar fields first, in the type's order, then enum fields, as the transformer lists them.
    let filterable: [Member]
    /// The scalar fields, in the type's order.
    let sortable: [Member]
    /// The scalar and enum fields, in the type's order.
    let aggregatable: [Member]

    init(model: ModelType, conflictDetection: Bool) {
        var all: [Member] = []
        for field in model.fields where field.relation == nil {
            switch field.type.kind {
            case .scalar(let scalar):
                all.append(
                    Member(name: field.name, filterScalar: scalar.filterScalar, isEnum: false, isMetadata: false)
                )
            case .enumeration:
                all.append(Member(name: field.name, filterScalar: .string, isEnum: true, isMetadata: false))
            default:
                continue
            }
        }
        if conflictDetection {
            all += [
                Member(name: TableLayout.versionColumn, filterScalar: .int, isEnum: false, isMetadata: true),
                Member(name: TableLayout.deletedColumn, filterScalar: .boolean, isEnum: false, isMetadata: true),
                Member(name: TableLayout.lastChangedAtColumn, filterScalar: .int, isEnum: false, isMetadata: true),
            ]
        }
        sortable = all.filter { !$0.isEnum }
        filterable = sortable + all.filter(\.isEnum)
        aggregatable = all
    }

    /// The member named `name`.
    func member(named name: String) -> Member? {
        aggregatable.first { $0.name == name }
    }
}
