import Foundation

/// A search filter: conditions the store evaluates (``ItemPredicate``), and full-text conditions
/// the server evaluates on the items the store returns.
///
/// The store gets ``storePredicate``, which holds for every item the whole filter holds for;
/// when the filter has full-text conditions, ``evaluate(_:)`` then decides on each item read.
indirect enum SearchPredicate: Sendable, Hashable {
    case store(ItemPredicate)
    case all([SearchPredicate])
    case any([SearchPredicate])
    case not(SearchPredicate)
    /// A full-text condition on `field`; `guard` is what must also hold for it (the field is
    /// present, and readable by the caller where field rules say so).
    case text(field: String, query: TextQuery, guard: ItemPredicate)

    /// Whether the store alone evaluates the predicate.
    var isStoreOnly: Bool {
        switch self {
        case .store: true
        case .text: false
        case .all(let members), .any(let members): members.allSatisfy(\.isStoreOnly)
        case .not(let member): member.isStoreOnly
        }
    }

    /// A predicate the store evaluates that holds for every item this one holds for, and for
    /// exactly those when ``isStoreOnly``.
    var storePredicate: ItemPredicate {
        switch self {
        case .store(let predicate): predicate
        case .text(_, _, let guardPredicate): guardPredicate
        case .all(let members): .all(members.map(\.storePredicate))
        case .any(let members): .any(members.map(\.storePredicate))
        // Only an exact predicate may be negated.
        case .not(let member): member.isStoreOnly ? .not(member.storePredicate) : .always
        }
    }

    /// Whether `item` satisfies the predicate.
    func evaluate(_ item: StoredItem) -> Bool {
        switch self {
        case .store(let predicate): predicate.evaluate(item)
        case .all(let members): members.allSatisfy { $0.evaluate(item) }
        case .any(let members): members.contains { $0.evaluate(item) }
        case .not(let member): !member.evaluate(item)
        case .text(let field, let query, let guardPredicate):
            guardPredicate.evaluate(item) && query.matches(item.values[field] ?? .null)
        }
    }
}

/// A full-text query on a field, over its words as OpenSearch's standard analyzer makes them:
/// runs of letters and digits, lowercased.
struct TextQuery: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        /// `match`, `multiMatch`: any of the query's words.
        case anyWord
        /// `matchPhrase`: the query's words, in order and adjacent.
        case phrase
        /// `matchPhrasePrefix`: a phrase whose last word may be the beginning of a word.
        case phrasePrefix
    }

    var kind: Kind
    var words: [String]

    init(kind: Kind, text: String) {
        self.kind = kind
        words = Self.words(of: text)
    }

    /// The words of `text`, lowercased.
    static func words(of text: String) -> [String] {
        text.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init)
    }

    /// Whether a stored value (any element of a list) matches the query.
    func matches(_ value: JSON) -> Bool {
        switch value {
        case .array(let elements): return elements.contains { matches($0) }
        case .string(let text): return matches(Self.words(of: text))
        case .null, .object: return false
        default: return matches(Self.words(of: value.text))
        }
    }

    private func matches(_ field: [String]) -> Bool {
        guard !words.isEmpty else { return false }
        switch kind {
        case .anyWord:
            return words.contains { field.contains($0) }
        case .phrase, .phrasePrefix:
            guard field.count >= words.count else { return false }
            for start in 0...(field.count - words.count) {
                let window = field[start..<start + words.count]
                let heads = zip(window.dropLast(), words.dropLast()).allSatisfy { $0 == $1 }
                let last = window.last ?? ""
                let lastWord = words.last ?? ""
                if heads, kind == .phrase ? last == lastWord : last.hasPrefix(lastWord) { return true }
            }
            return false
        }
    }
}
