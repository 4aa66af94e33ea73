/// A predicate on one field: the field's name and the ``QueryOperator`` applied to it.
///
/// Usually built from a model's keys (`Post.keys.rating > 4`, `Post.keys.rating.gt(4)`) or from
/// ``field(_:)`` (`field("rating") > 4`).
///
/// ```swift
/// let operation = QueryPredicateOperation(field: "rating", operator: .greaterThan(4))
/// operation.isEqual(Post.keys.rating > 4)   // true
/// ```
public struct QueryPredicateOperation: QueryPredicate, Hashable {
    /// The field's name, as in the schema and the JSON.
    public let field: String
    /// The comparison applied to the field.
    public let `operator`: QueryOperator

    /// A predicate applying `operator` to the field named `field`.
    public init(field: String, operator: QueryOperator) {
        self.field = field
        self.operator = `operator`
    }

    public func evaluate(target: JSONValue, schema: ModelSchema) throws -> Bool {
        let resolved = try PredicateField(named: field, in: schema)
        return try resolved.evaluate(self.operator, on: target)
    }

    public var description: String {
        "\(field) \(self.operator.graphQLOperator) \(self.operator.graphQLValue.predicateDescription)"
    }
}

extension JSONValue {
    /// The value in a predicate's description: compact JSON with object keys sorted.
    var predicateDescription: String {
        switch self {
        case .array(let elements): return "[" + elements.map(\.predicateDescription).joined(separator: ", ") + "]"
        case .boolean(let value): return String(value)
        case .integer(let value): return String(value)
        case .number(let value): return String(value)
        case .object(let members):
            let pairs = members.sorted { $0.key < $1.key }.map {
                "\($0.key.debugDescription): \($0.value.predicateDescription)"
            }
            return "{" + pairs.joined(separator: ", ") + "}"
        case .string(let value): return value.debugDescription
        case .null: return "nil"
        }
    }
}
