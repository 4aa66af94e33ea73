extension PredicateField {
    /// Whether the field's value in `record` satisfies `queryOperator`, with the semantics
    /// ``QueryPredicate/evaluate(target:schema:)`` documents.
    ///
    /// - Throws: ``QueryPredicateError`` when the operator does not apply to the field's type or
    ///   its operand is a value of another type.
    func evaluate(_ queryOperator: QueryOperator, on record: JSONValue) throws -> Bool {
        try validate(queryOperator)
        let value = self.value(in: record)
        switch queryOperator {
        case .equals(.null):
            return value == nil
        case .notEqual(.null):
            return value != nil
        case .equals(let operand):
            guard let value else { return false }
            return kind.compare(value, operand) == .equal
        case .notEqual(let operand):
            guard let value else { return true }
            return kind.compare(value, operand) != .equal
        case .lessThan(let operand):
            return order(of: value, against: operand) == .less
        case .lessOrEqual(let operand):
            return [.less, .equal].contains(order(of: value, against: operand))
        case .greaterThan(let operand):
            return order(of: value, against: operand) == .greater
        case .greaterOrEqual(let operand):
            return [.greater, .equal].contains(order(of: value, against: operand))
        case .between(let start, let end):
            return [.greater, .equal].contains(order(of: value, against: start))
                && [.less, .equal].contains(order(of: value, against: end))
        case .beginsWith(let prefix):
            guard let value else { return false }
            return kind.beginsWith(value, prefix)
        case .contains(let needle):
            guard let value, !needle.isNull else { return false }
            return kind.contains(value, needle)
        case .notContains(let needle):
            guard let value, !needle.isNull else { return true }
            return !kind.contains(value, needle)
        case .attributeExists(let exists):
            return (value != nil) == exists
        }
    }

    private func order(of value: JSONValue?, against operand: JSONValue) -> PredicateValueKind.Order? {
        guard let value, !operand.isNull else { return nil }
        return kind.compare(value, operand)
    }

    /// Checks that `queryOperator` applies to the field and that its operands fit the field.
    private func validate(_ queryOperator: QueryOperator) throws {
        guard kind.supportedOperators.contains(queryOperator.graphQLOperator) else {
            throw QueryPredicateError.unsupportedOperator(
                queryOperator,
                field: name,
                fieldType: typeName,
                supported: kind.supportedOperators,
                model: modelName
            )
        }
        let operandKind: PredicateValueKind
        switch (queryOperator, kind) {
        case (.contains, .list(let element)), (.notContains, .list(let element)):
            operandKind = element
        case (.contains, .temporal), (.notContains, .temporal):
            operandKind = .string
        default:
            operandKind = kind
        }
        for operand in queryOperator.operands where !operand.isNull && !operandKind.accepts(operand) {
            throw QueryPredicateError.mismatchedValue(
                operand,
                field: name,
                fieldType: typeName,
                expected: operandKind.expectedDescription,
                model: modelName
            )
        }
    }
}

extension QueryOperator {
    /// The values the operator compares a field with.
    package var operands: [JSONValue] {
        switch self {
        case .notEqual(let value), .equals(let value), .lessOrEqual(let value), .lessThan(let value),
            .greaterOrEqual(let value), .greaterThan(let value), .contains(let value), .notContains(let value):
            return [value]
        case .between(let start, let end): return [start, end]
        case .beginsWith(let prefix): return [.string(prefix)]
        case .attributeExists: return []
        }
    }
}

extension PredicateValueKind {
    /// What a predicate should compare a field of this kind with.
    var expectedDescription: String {
        switch self {
        case .string: return "a string"
        case .temporal(.date): return "a Temporal.Date or its ISO 8601 string"
        case .temporal(.dateTime): return "a Temporal.DateTime or its ISO 8601 string"
        case .temporal(.time): return "a Temporal.Time or its ISO 8601 string"
        case .number: return "an Int or a Double"
        case .boolean: return "true or false"
        case .list(let element): return "a list of values that are each \(element.expectedDescription)"
        case .object: return "an object"
        case .foreignKey: return "a key value"
        }
    }
}
