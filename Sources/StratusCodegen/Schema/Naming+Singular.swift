// The naming rules are AWSWire's, shared with the clients; codegen's importers see them as before.
@_exported import enum AWSWire.Naming

extension Naming {
    /// Irregular plurals, by plural.
    private static let irregular = [
        "people": "person", "men": "man", "women": "woman", "children": "child", "mice": "mouse",
        "geese": "goose", "feet": "foot", "teeth": "tooth", "movies": "movie", "cookies": "cookie",
    ]

    /// Words whose singular is the same.
    private static let uncountable: Set<String> = [
        "data", "equipment", "information", "metadata", "news", "series", "species", "settings",
    ]

    /// The singular of the last word of a camel-case name, as Apollo's code generation names
    /// the type of a list field: `listTodos` → `listTodo`, `items` → `item`, `categories` →
    /// `category`, `addresses` → `address`, `status` → `status`.
    static func singular(_ name: String) -> String {
        let lastWordStart =
            name.lastIndex(where: { $0.isUppercase }).map { name.distance(from: name.startIndex, to: $0) } ?? 0
        let prefix = String(name.prefix(lastWordStart))
        let word = String(name.dropFirst(lastWordStart))
        let lower = word.lowercased()
        func keepingCase(_ singular: String) -> String {
            // The singular shares its first letters with the plural; keep the word's spelling of them.
            guard let first = word.first else { return singular }
            return String(first) + singular.dropFirst()
        }
        if uncountable.contains(lower) { return name }
        if let singular = irregular[lower] { return prefix + keepingCase(singular) }
        let rules: [(suffix: String, replacement: String)] = [
            ("statuses", "status"), ("aliases", "alias"), ("sses", "ss"), ("shes", "sh"), ("ches", "ch"),
            ("xes", "x"), ("zzes", "zz"),
            ("ies", "y"), ("ves", "f"), ("ss", "ss"), ("us", "us"), ("is", "is"), ("s", ""),
        ]
        for rule in rules
        where lower.hasSuffix(rule.suffix) && (lower.count > rule.suffix.count || !rule.replacement.isEmpty) {
            if rule.suffix == "ies", lower.count <= 4 { continue }  // "ties" stays a word of its own
            if rule.suffix == "ves", !["leaves", "knives", "wives", "lives", "halves", "shelves"].contains(lower) {
                continue
            }
            let stem = word.dropLast(rule.suffix.count)
            let replacement = rule.suffix == "ves" && lower.hasSuffix("ives") ? "fe" : rule.replacement
            return prefix + stem + replacement
        }
        return name
    }
}
