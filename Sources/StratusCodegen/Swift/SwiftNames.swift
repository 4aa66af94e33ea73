import AWSWire

/// Swift spellings of schema names.
enum SwiftNames {
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows",
        "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default",
        "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch",
        "where", "while", "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true",
        "try", "Type", "Protocol",
    ]

    /// `name`, in backticks when it is a Swift keyword.
    static func identifier(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// The Swift property names of a selection set's response keys, in order, camel-cased as the
    /// AppSync SDK's code generation wrote them: `aws_ds` → `awsDs`, `_version` → `version`.
    /// `__typename` keeps its name, and a key whose camel case another key of the same selection
    /// set already spells (`version` beside `_version`) keeps its own, so that both stay reachable.
    static func propertyNames(of responseKeys: [String]) -> [String] {
        let camel = responseKeys.map(camelCase)
        return zip(responseKeys, camel).map { key, name in
            let clashes = name != key && (responseKeys.contains(name) || camel.filter { $0 == name }.count > 1)
            return identifier(clashes ? key : name)
        }
    }

    /// `key` without underscores, each word after the first capitalized; `__typename` as it is.
    private static func camelCase(_ key: String) -> String {
        guard key.contains("_"), !key.hasPrefix("__") else { return key }
        let words = key.split(separator: "_").map(String.init)
        guard let first = words.first else { return key }
        return ([first] + words.dropFirst().map(Naming.upperFirst)).joined()
    }

    /// The Swift case name of a GraphQL enum value: `IN_REVIEW` → `inReview`, `ACTIVE` → `active`.
    static func enumCase(_ value: String) -> String {
        let parts = value.split(separator: "_").map(String.init)
        guard !parts.isEmpty else { return identifier(value) }
        let words = parts.map { part -> String in
            part == part.uppercased() ? part.lowercased() : part
        }
        let first = Naming.lowerFirst(words[0])
        let name = ([first] + words.dropFirst().map(Naming.upperFirst)).joined()
        return identifier(name)
    }

    /// The Swift type that stores a scalar.
    static func swiftType(of scalar: Scalar) -> String {
        switch scalar {
        case .id, .string, .awsEmail, .awsJSON, .awsPhone, .awsURL, .awsIPAddress: return "String"
        case .int, .awsTimestamp: return "Int"
        case .float: return "Double"
        case .boolean: return "Bool"
        case .awsDate: return "Temporal.Date"
        case .awsTime: return "Temporal.Time"
        case .awsDateTime: return "Temporal.DateTime"
        }
    }

    /// The `ModelFieldType` spelling of a scalar.
    static func modelFieldType(of scalar: Scalar) -> String {
        switch scalar {
        case .id, .string, .awsEmail, .awsJSON, .awsPhone, .awsURL, .awsIPAddress: return ".string"
        case .int: return ".int"
        case .awsTimestamp: return ".timestamp"
        case .float: return ".double"
        case .boolean: return ".bool"
        case .awsDate: return ".date"
        case .awsTime: return ".time"
        case .awsDateTime: return ".dateTime"
        }
    }

    /// A Swift string literal.
    static func literal(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            case "\r": escaped += "\\r"
            default: escaped.append(character)
            }
        }
        return "\"\(escaped)\""
    }
}
