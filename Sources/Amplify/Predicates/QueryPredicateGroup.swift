/// How a ``QueryPredicateGroup`` combines its members.
public enum QueryPredicateGroupType: String, Sendable, Hashable, CaseIterable {
    /// Every member holds.
    case and
    /// At least one member holds.
    case or
    /// The members do not all hold: the negation of their `and`. Usually one member.
    case not
}

/// Predicates combined with `and`, `or` or `not`.
///
/// Built by `&&`, `||`, `!`, ``QueryPredicate/and(_:)``, ``QueryPredicate/or(_:)`` and
/// ``not(_:)``. Joining predicates flattens groups of the same type, so
/// `a && b && c` and `a.and(b.and(c))` are both one `and` group of three members, in order.
///
/// ```swift
/// let p = Post.keys
/// let group = p.rating > 4 && p.status == "active" && p.title.beginsWith("[Amplify]")
/// group.predicates.count   // 3
/// ```
public struct QueryPredicateGroup: QueryPredicate, Equatable {
    /// How the members combine.
    public var type: QueryPredicateGroupType
    /// The members, in the order they were joined.
    public var predicates: [any QueryPredicate]

    /// A group of `predicates` combined by `type`.
    public init(type: QueryPredicateGroupType = .and, predicates: [any QueryPredicate] = []) {
        self.type = type
        self.predicates = predicates
    }

    /// Joins two predicates, taking in the members of either side that is already a group of
    /// `type` (never of a `not` group, whose members negate together).
    static func joining(
        _ lhs: any QueryPredicate,
        _ rhs: any QueryPredicate,
        as type: QueryPredicateGroupType
    ) -> QueryPredicateGroup {
        func members(_ predicate: any QueryPredicate) -> [any QueryPredicate] {
            if type != .not, let group = predicate as? QueryPredicateGroup, group.type == type {
                return group.predicates
            }
            return [predicate]
        }
        return QueryPredicateGroup(type: type, predicates: members(lhs) + members(rhs))
    }

    public func evaluate(target: JSONValue, schema: ModelSchema) throws -> Bool {
        let results = try predicates.map { try $0.evaluate(target: target, schema: schema) }
        switch type {
        case .and: return !results.contains(false)
        case .or: return results.contains(true)
        case .not: return results.contains(false)
        }
    }

    public static func == (lhs: QueryPredicateGroup, rhs: QueryPredicateGroup) -> Bool {
        lhs.type == rhs.type
            && lhs.predicates.count == rhs.predicates.count
            && zip(lhs.predicates, rhs.predicates).allSatisfy { $0.isEqual($1) }
    }

    public var description: String {
        switch type {
        case .and, .or:
            guard !predicates.isEmpty else { return type == .and ? "(and)" : "(or)" }
            return "(" + predicates.map(\.description).joined(separator: " \(type.rawValue) ") + ")"
        case .not:
            if predicates.count == 1 { return "not \(predicates[0].description)" }
            return "not " + QueryPredicateGroup(type: .and, predicates: predicates).description
        }
    }
}
