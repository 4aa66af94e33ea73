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
    ///
    /// A type the schema declares itself (a hand-written `input SearchableStringFilterInput`) is
    /// used as declared, as the transformer skips the types the schema already has.
    mutating func writeSearchableTypes() {
        let models = searchableModels
        guard !models.isEmpty else { return }
        let declared = Set(
            schema.inputs.map(\.name) + schema.enums.map(\.name) + schema.nonModels.map(\.name)
                + schema.unions.map(\.name) + schema.interfaces.map(\.name)
        )
        var writer = SearchableTypesWriter(declared: declared)
        writer.block("type SearchableAggregateResult", ["name: String!", "result: SearchableAggregateGenericResult"])
        writer.block("type SearchableAggregateScalarResult", ["value: Float!"])
        writer.block("type SearchableAggregateBucketResult", ["buckets: [SearchableAggregateBucketResultItem]"])
        writer.block("type SearchableAggregateBucketResultItem", ["key: String!", "doc_count: Int!"])
        if !declared.contains("SearchableAggregateGenericResult") {
            writer.blocks.append(
                "union SearchableAggregateGenericResult = SearchableAggregateScalarResult | SearchableAggregateBucketResult"
            )
        }
        for scalar in [Scalar.string, .int, .float, .boolean, .id] {
            writer.block("input Searchable\(scalar.rawValue)FilterInput", Self.searchableOperators(of: scalar))
        }
        writer.block("enum SearchableSortDirection", ["asc", "desc"])
        writer.block("enum SearchableAggregateType", ["terms", "avg", "min", "max", "sum", "cardinality"])
        for model in models {
            writeSearchableTypes(of: model, to: &writer)
        }
        for text in writer.blocks {
            appendBlock(text)
        }
    }

    private func writeSearchableTypes(of model: ModelType, to writer: inout SearchableTypesWriter) {
        let name = model.name
        let fields = SearchableFields(model: model, conflictDetection: detectsConflicts(model.name))
        writer.block(
            "type Searchable\(name)Connection",
            ["items: [\(name)]!", "nextToken: String", "total: Int", "aggregateItems: [SearchableAggregateResult]!"]
        )
        writer.block(
            "input Searchable\(name)FilterInput",
            fields.filterable.map { "\($0.name): Searchable\($0.filterScalar.rawValue)FilterInput" }
                + [
                    "and: [Searchable\(name)FilterInput]", "or: [Searchable\(name)FilterInput]",
                    "not: Searchable\(name)FilterInput",
                ]
        )
        writer.block("enum Searchable\(name)SortableFields", fields.sortable.map(\.name))
        writer.block(
            "input Searchable\(name)SortInput",
            ["field: Searchable\(name)SortableFields", "direction: SearchableSortDirection"]
        )
        writer.block("enum Searchable\(name)AggregateField", fields.aggregatable.map(\.name))
        writer.block(
            "input Searchable\(name)AggregationInput",
            ["name: String!", "type: SearchableAggregateType!", "field: Searchable\(name)AggregateField!"]
        )
    }
}

/// Collects the searchable types' definitions, leaving out those the schema declares.
struct SearchableTypesWriter {
    let declared: Set<String>
    var blocks: [String] = []

    /// Appends `header { lines }` unless the schema declares the type `header` names.
    mutating func block(_ header: String, _ lines: [String]) {
        guard let name = header.split(separator: " ").last, !declared.contains(String(name)) else { return }
        blocks.append(([header + " {"] + lines.map { "  " + $0 } + ["}"]).joined(separator: "\n"))
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
