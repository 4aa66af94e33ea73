// Translation of predicates to AppSync filter and condition inputs.
//
// The format, for `filter:` arguments of list and sync queries and `condition:` arguments of
// mutations:
//
//     {"rating": {"gt": 4}}
//     {"and": [{"rating": {"gt": 4}}, {"status": {"eq": "active"}}]}
//     {"or": [...]}, {"not": {...}}
//     {"rating": {"between": [1, 5]}}
//     {"status": {"attributeExists": true}}

extension QueryPredicateOperation {
    /// `{"<field>": {"<operator>": <value>}}`.
    ///
    /// With `schema`, a belongsTo or hasOne field with one target name is written as that
    /// foreign-key field (`{"postID": {"eq": "p1"}}`). `eq nil` and `ne nil` keep their local
    /// meaning, which covers both a missing attribute and a DynamoDB `NULL`:
    ///
    /// ```json
    /// {"or": [{"status": {"attributeExists": false}}, {"status": {"eq": null}}]}
    /// {"and": [{"status": {"attributeExists": true}}, {"status": {"ne": null}}]}
    /// ```
    public func graphQLFilter(for schema: ModelSchema?) -> JSONValue? {
        let name = graphQLFieldName(in: schema)
        func condition(_ queryOperator: QueryOperator) -> JSONValue {
            [name: [queryOperator.graphQLOperator: queryOperator.graphQLValue]]
        }
        switch self.operator {
        case .equals(.null):
            return ["or": [condition(.attributeExists(false)), condition(.equals(.null))]]
        case .notEqual(.null):
            return ["and": [condition(.attributeExists(true)), condition(.notEqual(.null))]]
        default:
            return condition(self.operator)
        }
    }

    private func graphQLFieldName(in schema: ModelSchema?) -> String {
        guard let modelField = schema?.field(named: field), case .model = modelField.type,
            let targetNames = modelField.association?.targetNames, targetNames.count == 1
        else { return field }
        return targetNames[0]
    }
}

extension QueryPredicateGroup {
    /// `{"and": [...]}`, `{"or": [...]}` or `{"not": {...}}`.
    ///
    /// Members that select every record (``QueryPredicateConstant/all``) are left out of an
    /// `and` group, and make an `or` group select every record; a group left with nothing to
    /// filter gives `nil`. A `not` group with several members negates their `and`; one over
    /// ``QueryPredicateConstant/all`` gives `{"not": {}}`.
    public func graphQLFilter(for schema: ModelSchema?) -> JSONValue? {
        let filters = predicates.map { $0.graphQLFilter(for: schema) }
        switch type {
        case .and:
            let members = filters.compactMap { $0 }
            guard !members.isEmpty else { return Optional.none }
            return ["and": .array(members)]
        case .or:
            let members = filters.compactMap { $0 }
            guard members.count == filters.count else { return Optional.none }
            return ["or": .array(members)]
        case .not:
            let negated: JSONValue?
            if predicates.count == 1 {
                negated = filters[0]
            } else {
                negated = QueryPredicateGroup(type: .and, predicates: predicates).graphQLFilter(for: schema)
            }
            return ["not": negated ?? [:]]
        }
    }
}

extension QueryPredicateConstant {
    /// `nil`: ``all`` filters nothing out.
    public func graphQLFilter(for schema: ModelSchema?) -> JSONValue? {
        nil
    }
}
