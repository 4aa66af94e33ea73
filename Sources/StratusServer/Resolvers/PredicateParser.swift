import StratusCodegen

/// Reads the `filter` and `condition` arguments (`Model<T>FilterInput`, `Model<T>ConditionInput`,
/// `ModelSubscription<T>FilterInput`) into ``ItemPredicate`` values.
///
/// The members of one object all hold (`and`); `and`, `or` and `not` combine nested objects.
/// Members sent as `null` are ignored, as AppSync ignores them.
///
/// A filter stays within what the caller may read: a condition on a field it may not read is
/// refused, and one on a field it may read only on some items (a field-level owner rule) holds
/// only on those items, so that no answer depends on a value hidden from the caller.
struct PredicateParser {
    let model: ModelType
    let schema: AnnotatedSchema
    /// The caller, and the operation whose field rules decide what it may read.
    let identity: Identity
    let operation: Authorization.Operation

    /// The metadata fields a filter may name.
    static let metadataFields: Set<String> = [TableLayout.deletedColumn]

    /// The deepest nesting of `and`, `or` and `not` a filter or condition may have: what the
    /// SQL it becomes can nest.
    static let maximumNesting = 20

    /// The most field conditions a filter or condition may hold, as DynamoDB bounds an
    /// expression's operators: past it the SQL it becomes nests deeper than the store parses.
    static let maximumConditions = 300

    func parse(_ value: JSON?) throws(ResolverError) -> ItemPredicate? {
        guard let value, case .object(let object) = value else { return nil }
        var conditions = 0
        return try parse(object, depth: 0, conditions: &conditions)
    }

    private func parse(_ object: JSONObject, depth: Int, conditions: inout Int) throws(ResolverError) -> ItemPredicate {
        guard depth <= Self.maximumNesting else {
            throw ResolverError.invalidInput(
                "The filter nests 'and', 'or' and 'not' more than \(Self.maximumNesting) levels deep, "
                    + "the most a filter may. Combine the conditions in fewer levels."
            )
        }
        var predicates: [ItemPredicate] = []
        for (key, value) in object where !value.isNull {
            switch key {
            case "and", "or":
                var group: [ItemPredicate] = []
                for element in value.arrayValue ?? [value] {
                    guard case .object(let member) = element else { continue }
                    group.append(try parse(member, depth: depth + 1, conditions: &conditions))
                }
                predicates.append(key == "and" ? .all(group) : .any(group))
            case "not":
                guard case .object(let member) = value else { continue }
                predicates.append(.not(try parse(member, depth: depth + 1, conditions: &conditions)))
            default:
                guard Self.metadataFields.contains(key) || model.field(named: key)?.isFilterable == true,
                    case .object(let operators) = value
                else {
                    throw ResolverError.invalidInput("The filter names '\(key)', which \(model.name) cannot filter on.")
                }
                let readable = try readableRows(of: key)
                conditions += operators.count
                guard conditions <= Self.maximumConditions else {
                    throw ResolverError.invalidInput(
                        "The filter holds more than \(Self.maximumConditions) conditions, the most a filter may. "
                            + "Use 'in' for many values of one field, or split the query."
                    )
                }
                for (name, operand) in operators {
                    let predicate = ItemPredicate.field(key, try condition(name, operand, field: key))
                    predicates.append(readable.map { .all([$0, predicate]) } ?? predicate)
                }
            }
        }
        return predicates.count == 1 ? predicates[0] : .all(predicates)
    }

    /// The items whose `field` the caller may read, when that is only some of them; `nil` when
    /// it may read the field of every item it reaches.
    ///
    /// - Throws: ``ResolverError`` `Unauthorized` when the caller may not read the field at all.
    private func readableRows(of field: String) throws(ResolverError) -> ItemPredicate? {
        guard let modelField = model.field(named: field), Authorization.isGuarded(modelField) else { return nil }
        switch Authorization.readAccess(to: modelField, of: model, for: identity, operation: operation) {
        case .all: return nil
        case .denied: throw Authorization.unauthorized(field: field, type: model.name)
        case .rows(let rules): return .any(rules.map(\.predicate))
        }
    }

    private func condition(_ name: String, _ operand: JSON, field: String) throws(ResolverError) -> FieldCondition {
        if let comparison = FieldCondition.Comparison(rawValue: name) {
            return .compare(comparison, try stored(operand, field: field))
        }
        switch name {
        case "between":
            let bounds = operand.arrayValue ?? []
            guard bounds.count == 2 else {
                throw ResolverError.invalidInput(
                    "'between' takes two values, a low and a high bound; it got \(operand.text)."
                )
            }
            return .between(try stored(bounds[0], field: field), try stored(bounds[1], field: field))
        case "beginsWith":
            return .beginsWith(operand.stringValue ?? operand.text)
        case "contains":
            return .contains(try element(operand, field: field))
        case "notContains":
            return .notContains(try element(operand, field: field))
        case "attributeExists":
            return .exists(operand.boolValue ?? true)
        case "attributeType":
            return .attributeType(operand.stringValue ?? "")
        case "size":
            guard case .object(let sizes) = operand, let (sizeOperator, size) = sizes.first(where: { !$0.value.isNull })
            else { return .exists(true) }
            if sizeOperator == "between" {
                let bounds = size.arrayValue?.compactMap(\.intValue) ?? []
                guard bounds.count == 2 else {
                    throw ResolverError.invalidInput("'size.between' takes two sizes; it got \(size.text).")
                }
                return .sizeBetween(bounds[0], bounds[1])
            }
            guard let comparison = FieldCondition.Comparison(rawValue: sizeOperator), let count = size.intValue else {
                throw ResolverError.invalidInput("'size' has no operator '\(sizeOperator)'.")
            }
            return .size(comparison, count)
        case "in":
            return .isIn(
                try (operand.arrayValue ?? []).map { value throws(ResolverError) in
                    try stored(value, field: field)
                }
            )
        case "notIn":
            return .notIn(
                try (operand.arrayValue ?? []).map { value throws(ResolverError) in
                    try stored(value, field: field)
                }
            )
        default:
            throw ResolverError.invalidInput("The filter of '\(field)' has no operator '\(name)'.")
        }
    }

    /// An operand as the field stores it: for a list field, compared with the whole list.
    private func stored(_ operand: JSON, field: String) throws(ResolverError) -> JSON {
        guard let type = model.field(named: field)?.type else { return operand }
        return try storedValue(operand, type: type, in: schema)
    }

    /// An operand of `contains`: an element of a list field, or a substring.
    private func element(_ operand: JSON, field: String) throws(ResolverError) -> JSON {
        guard var type = model.field(named: field)?.type, type.isList else { return operand }
        type.isList = false
        return try storedValue(operand, type: type, in: schema)
    }
}
