/// A predicate that is a constant rather than a condition on fields.
///
/// ``all`` selects every record: `DataStore.query(Post.self, where: QueryPredicateConstant.all)`
/// is the same as passing no predicate, said explicitly rather than through `nil`.
public enum QueryPredicateConstant: QueryPredicate, Hashable {
    /// Every record: evaluates to `true` and has no GraphQL filter.
    case all

    /// Always `true`; the schema is not consulted.
    public func evaluate(target: JSONValue, schema: ModelSchema) throws -> Bool {
        true
    }

    public var description: String { "all" }
}
