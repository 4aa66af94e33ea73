/// The naming rules of an AppSync API generated from models: plurals, capitals and implicit
/// foreign keys.
///
/// The local backend's schema names its fields with them (`listCategories`, `postCommentsId`),
/// and the clients capitalize the operation names of the documents they build with them.
public enum Naming {
    private static let irregularPlurals: [String: String] = [
        "person": "people", "child": "children", "man": "men", "woman": "women", "mouse": "mice",
        "goose": "geese", "foot": "feet", "tooth": "teeth", "datum": "data",
    ]

    /// The plural of a type name: `Post` → `Posts`, `Category` → `Categories`, `Person` → `People`,
    /// `Address` → `Addresses`, and names that already read as plural stay: `PostTags`.
    public static func plural(_ name: String) -> String {
        let lower = name.lowercased()
        for (singular, plural) in irregularPlurals where lower.hasSuffix(singular) {
            let stem = name.dropLast(singular.count)
            let ending = name.suffix(singular.count)
            let replacement = ending.first?.isUppercase == true ? upperFirst(plural) : plural
            return stem + replacement
        }
        let vowels: Set<Character> = ["a", "e", "i", "o", "u"]
        if lower.hasSuffix("y"), lower.count > 1, !vowels.contains(lower[lower.index(lower.endIndex, offsetBy: -2)]) {
            return name.dropLast() + "ies"
        }
        if lower.hasSuffix("s") && !["ss", "us", "is"].contains(where: lower.hasSuffix) {
            // Already plural, as pluralize reads it: PostTags, BlogSettings.
            return name
        }
        if ["s", "x", "z", "ch", "sh"].contains(where: lower.hasSuffix) {
            return name + "es"
        }
        return name + "s"
    }

    /// `Post` → `post`.
    public static func lowerFirst(_ name: String) -> String {
        guard let first = name.first else { return name }
        return first.lowercased() + name.dropFirst()
    }

    /// `post` → `Post`.
    public static func upperFirst(_ name: String) -> String {
        guard let first = name.first else { return name }
        return first.uppercased() + name.dropFirst()
    }

    /// The implicit foreign key a relation adds: `Post` + `comments` → `postCommentsId`.
    public static func implicitForeignKey(model: String, field: String, keyField: String = "id") -> String {
        lowerFirst(model) + upperFirst(field) + upperFirst(keyField == "id" ? "Id" : keyField)
    }
}
