/// A predicate that does not fit the model it is evaluated against.
///
/// Thrown by ``QueryPredicate/evaluate(target:schema:)``. The ``description`` names the model
/// and the field, quotes the bad input and says what to use instead:
///
/// ```text
/// Post has no field 'ratin' (fields: id, title, rating, status). Use a field from Post.keys.
/// ```
public struct QueryPredicateError: Error, Hashable, CustomStringConvertible {
    private enum Reason: Hashable {
        case unknownField(fields: [String])
        case hasManyField(childModel: String, childFields: [String])
        case unsupportedOperator(operator: String, fieldType: String, supported: [String])
        case mismatchedValue(value: JSONValue, fieldType: String, expected: String)
    }

    private let reason: Reason

    /// The name of the model the predicate was evaluated against.
    public let modelName: String

    /// The name of the field at fault.
    public let fieldName: String

    private init(_ reason: Reason, model: String, field: String) {
        self.reason = reason
        self.modelName = model
        self.fieldName = field
    }

    static func unknownField(_ field: String, in schema: ModelSchema) -> QueryPredicateError {
        QueryPredicateError(
            .unknownField(fields: schema.sortedFields.map(\.name)),
            model: schema.name,
            field: field
        )
    }

    static func hasManyField(_ field: ModelField, in schema: ModelSchema) -> QueryPredicateError {
        QueryPredicateError(
            .hasManyField(
                childModel: field.associatedModelName ?? "the child model",
                childFields: field.association?.associatedFields ?? []
            ),
            model: schema.name,
            field: field.name
        )
    }

    static func unsupportedOperator(
        _ queryOperator: QueryOperator,
        field: String,
        fieldType: String,
        supported: [String],
        model: String
    ) -> QueryPredicateError {
        QueryPredicateError(
            .unsupportedOperator(operator: queryOperator.graphQLOperator, fieldType: fieldType, supported: supported),
            model: model,
            field: field
        )
    }

    static func mismatchedValue(
        _ value: JSONValue,
        field: String,
        fieldType: String,
        expected: String,
        model: String
    ) -> QueryPredicateError {
        QueryPredicateError(
            .mismatchedValue(value: value, fieldType: fieldType, expected: expected),
            model: model,
            field: field
        )
    }

    public var description: String {
        switch reason {
        case .unknownField(let fields):
            let list = fields.isEmpty ? "none" : fields.joined(separator: ", ")
            return "\(modelName) has no field '\(fieldName)' (fields: \(list)). "
                + "Use a field from \(modelName).keys."
        case .hasManyField(let childModel, let childFields):
            let advice =
                childFields.isEmpty
                ? "Query \(childModel) instead."
                : "Query \(childModel) where \(childFields.joined(separator: ", ")) names the \(modelName) instead."
            return "\(modelName).\(fieldName) is a hasMany relation to \(childModel) and cannot be filtered. \(advice)"
        case .unsupportedOperator(let name, let fieldType, let supported):
            return "'\(name)' does not apply to \(modelName).\(fieldName) (\(fieldType)). "
                + "Use \(Self.list(supported))."
        case .mismatchedValue(let value, let fieldType, let expected):
            return "\(modelName).\(fieldName) (\(fieldType)) cannot be compared with "
                + "\(value.predicateDescription), \(value.kindDescription). Use \(expected)."
        }
    }

    private static func list(_ words: [String]) -> String {
        guard let last = words.last else { return "" }
        guard words.count > 1 else { return last }
        return words.dropLast().joined(separator: ", ") + " or " + last
    }
}

extension JSONValue {
    /// The kind of value, with its article: "a string", "an object".
    var kindDescription: String {
        switch self {
        case .array: return "a list"
        case .boolean: return "a boolean"
        case .integer, .number: return "a number"
        case .object: return "an object"
        case .string: return "a string"
        case .null: return "null"
        }
    }
}
