import StratusCodegen

/// Reads the `filter` of a `search<Plural>` query (`Searchable<Model>FilterInput`) into a
/// ``SearchPredicate``, evaluated without a search engine.
///
/// Each operator becomes the `Model<Scalar>Input` operator that means the same, and goes through
/// ``PredicateParser`` so that a search filters within what the caller may read, as `list` does:
/// `eq`, `ne`, `gt`, `lt` as themselves, `gte` as `ge`, `lte` as `le`, `range: [low, high]` as
/// `between`, `exists` as `attributeExists`.
///
/// The full-text operators are approximations of OpenSearch's:
/// - `match` and `multiMatch` hold when the field has any of the query's words, `matchPhrase`
///   when it has them in order and adjacent, `matchPhrasePrefix` as `matchPhrase` with the last
///   word as the beginning of a word (``TextQuery``). Words are runs of letters and digits,
///   lowercased: the standard analyzer's, without its finer Unicode rules, and with no fuzziness,
///   stemming or relevance order.
/// - `wildcard` takes the patterns a prefix or substring expresses: `abc*` (begins with),
///   `*abc*` (contains), `*` (exists) and a pattern without `*` (equals); others, and `?`, are
///   refused with an error that says so.
/// - `regexp` is refused.
struct SearchFilterParser {
    let model: ModelType
    let fields: SearchableFields
    /// Reads each field condition, with the caller's field-level rules.
    let parser: PredicateParser

    func parse(_ value: JSON?) throws(ResolverError) -> SearchPredicate? {
        guard let value, case .object(let object) = value else { return nil }
        return try parse(object, depth: 0)
    }

    private func parse(_ object: JSONObject, depth: Int) throws(ResolverError) -> SearchPredicate {
        guard depth <= PredicateParser.maximumNesting else {
            throw ResolverError.invalidInput(
                "The filter nests 'and', 'or' and 'not' more than \(PredicateParser.maximumNesting) levels deep, "
                    + "the most a filter may. Combine the conditions in fewer levels."
            )
        }
        var predicates: [SearchPredicate] = []
        for (key, value) in object where !value.isNull {
            switch key {
            case "and", "or":
                var group: [SearchPredicate] = []
                for element in value.arrayValue ?? [value] {
                    guard case .object(let member) = element else { continue }
                    group.append(try parse(member, depth: depth + 1))
                }
                predicates.append(key == "and" ? .all(group) : .any(group))
            case "not":
                guard case .object(let member) = value else { continue }
                predicates.append(.not(try parse(member, depth: depth + 1)))
            default:
                guard let member = fields.member(named: key), case .object(let operators) = value else {
                    throw ResolverError.invalidInput("The filter names '\(key)', which \(model.name) cannot filter on.")
                }
                for (name, operand) in operators where !operand.isNull {
                    predicates.append(try condition(name, operand, member: member))
                }
            }
        }
        return predicates.count == 1 ? predicates[0] : .all(predicates)
    }

    /// One operator on one field.
    private func condition(
        _ name: String,
        _ operand: JSON,
        member: SearchableFields.Member
    ) throws(ResolverError) -> SearchPredicate {
        let (modelOperator, modelOperand): (String, JSON)
        switch name {
        case "eq", "ne", "gt", "lt": (modelOperator, modelOperand) = (name, operand)
        case "gte": (modelOperator, modelOperand) = ("ge", operand)
        case "lte": (modelOperator, modelOperand) = ("le", operand)
        case "range":
            guard let bounds = operand.arrayValue, bounds.count == 2 else {
                throw ResolverError.invalidInput(
                    "'range' takes two values, a low and a high bound; it got \(operand.text)."
                )
            }
            (modelOperator, modelOperand) = ("between", operand)
        case "exists": (modelOperator, modelOperand) = ("attributeExists", operand)
        case "match", "multiMatch": return try text(.anyWord, operand, member: member)
        case "matchPhrase": return try text(.phrase, operand, member: member)
        case "matchPhrasePrefix": return try text(.phrasePrefix, operand, member: member)
        case "wildcard": (modelOperator, modelOperand) = try wildcard(operand, field: member.name)
        case "regexp":
            throw ResolverError.invalidInput(
                "The filter of '\(member.name)' uses 'regexp', which the local server does not evaluate "
                    + "(it has no search engine). Use 'wildcard' with a prefix ('abc*') or a substring ('*abc*'), "
                    + "or 'match'."
            )
        default:
            throw ResolverError.invalidInput("The filter of '\(member.name)' has no operator '\(name)'.")
        }
        guard member.isMetadata else {
            return .store(
                try parser.parse(.object([member.name: .object([modelOperator: modelOperand])])) ?? .always
            )
        }
        // The sync metadata has no field rules; its values are stored as given.
        switch modelOperator {
        case "between":
            let bounds = modelOperand.arrayValue ?? []
            return .store(.field(member.name, .between(bounds[0], bounds[1])))
        case "attributeExists":
            return .store(.field(member.name, .exists(modelOperand.boolValue ?? true)))
        default:
            guard let comparison = FieldCondition.Comparison(rawValue: modelOperator) else {
                throw ResolverError.invalidInput("The filter of '\(member.name)' has no operator '\(name)'.")
            }
            return .store(.field(member.name, .compare(comparison, modelOperand)))
        }
    }

    /// A full-text condition, which holds only where the field is present and readable.
    private func text(
        _ kind: TextQuery.Kind,
        _ operand: JSON,
        member: SearchableFields.Member
    ) throws(ResolverError) -> SearchPredicate {
        let present = try parser.parse(.object([member.name: .object(["attributeExists": .bool(true)])])) ?? .always
        return .text(
            field: member.name,
            query: TextQuery(kind: kind, text: operand.stringValue ?? operand.text),
            guard: present
        )
    }

    /// The model operator that a `wildcard` pattern stands for.
    private func wildcard(_ operand: JSON, field: String) throws(ResolverError) -> (String, JSON) {
        guard let pattern = operand.stringValue else {
            throw ResolverError.invalidInput("'wildcard' takes a string pattern; it got \(operand.text).")
        }
        func isLiteral(_ text: Substring) -> Bool { !text.isEmpty && !text.contains("*") && !text.contains("?") }
        if pattern == "*" { return ("attributeExists", .bool(true)) }
        if isLiteral(pattern[...]) { return ("eq", operand) }
        if pattern.hasSuffix("*") {
            let body = pattern.dropLast()
            if body.hasPrefix("*"), isLiteral(body.dropFirst()) {
                return ("contains", .string(String(body.dropFirst())))
            }
            if isLiteral(body) { return ("beginsWith", .string(String(body))) }
        }
        throw ResolverError.invalidInput(
            "The local server evaluates 'wildcard' patterns of the forms 'abc*', '*abc*', '*' and 'abc'; "
                + "'\(pattern)' on '\(field)' is none of them. Rewrite it as one of these, or combine several "
                + "with 'and'."
        )
    }
}
