import GraphQL

/// The directives an annotated schema may use, where, and with which arguments.
struct DirectiveSpec: Sendable {
    enum Location: Sendable {
        case type
        case field
        case both
    }

    let name: String
    let location: Location
    let arguments: [String]

    static let all: [String: DirectiveSpec] = Dictionary(
        uniqueKeysWithValues: [
            DirectiveSpec(
                name: "model",
                location: .type,
                arguments: ["queries", "mutations", "subscriptions", "timestamps"]
            ),
            DirectiveSpec(name: "auth", location: .both, arguments: ["rules"]),
            DirectiveSpec(name: "key", location: .type, arguments: ["name", "fields", "queryField"]),
            DirectiveSpec(name: "primaryKey", location: .field, arguments: ["sortKeyFields"]),
            DirectiveSpec(name: "index", location: .field, arguments: ["name", "sortKeyFields", "queryField"]),
            DirectiveSpec(name: "hasMany", location: .field, arguments: ["indexName", "fields", "limit"]),
            DirectiveSpec(name: "hasOne", location: .field, arguments: ["fields"]),
            DirectiveSpec(name: "belongsTo", location: .field, arguments: ["fields"]),
            DirectiveSpec(name: "manyToMany", location: .field, arguments: ["relationName", "limit"]),
            DirectiveSpec(name: "default", location: .field, arguments: ["value"]),
            DirectiveSpec(
                name: "connection",
                location: .field,
                arguments: ["name", "keyField", "sortField", "limit", "fields", "keyName"]
            ),
            DirectiveSpec(name: "aws_api_key", location: .both, arguments: []),
            DirectiveSpec(name: "aws_iam", location: .both, arguments: []),
            DirectiveSpec(name: "aws_oidc", location: .both, arguments: []),
            DirectiveSpec(name: "aws_lambda", location: .both, arguments: []),
            DirectiveSpec(name: "aws_cognito_user_pools", location: .both, arguments: ["cognito_groups"]),
            DirectiveSpec(name: "aws_auth", location: .field, arguments: ["cognito_groups"]),
            DirectiveSpec(name: "aws_subscribe", location: .field, arguments: ["mutations"]),
            DirectiveSpec(
                name: "function",
                location: .field,
                arguments: ["name", "region", "accountId", "invocationType"]
            ),
            DirectiveSpec(name: "http", location: .field, arguments: ["method", "url", "headers"]),
            DirectiveSpec(name: "searchable", location: .type, arguments: ["queries"]),
            DirectiveSpec(name: "versioned", location: .type, arguments: ["versionField", "versionInput"]),
            DirectiveSpec(name: "deprecated", location: .field, arguments: ["reason"]),
        ].map { ($0.name, $0) }
    )
}

/// A directive argument's value, detached from the GraphQL AST.
indirect enum ArgumentValue: Sendable, Hashable {
    case string(String)
    case int(Int)
    case float(Double)
    case bool(Bool)
    case enumeration(String)
    case list([ArgumentValue])
    case object([(String, ArgumentValue)])
    case null

    init(_ value: any Value) {
        switch value {
        case let value as StringValue: self = .string(value.value)
        case let value as IntValue: self = .int(Int(value.value) ?? 0)
        case let value as FloatValue: self = .float(Double(value.value) ?? 0)
        case let value as BooleanValue: self = .bool(value.value)
        case let value as EnumValue: self = .enumeration(value.value)
        case let value as ListValue: self = .list(value.values.map(ArgumentValue.init))
        case let value as ObjectValue: self = .object(value.fields.map { ($0.name.value, ArgumentValue($0.value)) })
        default: self = .null
        }
    }

    static func == (lhs: ArgumentValue, rhs: ArgumentValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let l), .string(let r)): return l == r
        case (.int(let l), .int(let r)): return l == r
        case (.float(let l), .float(let r)): return l == r
        case (.bool(let l), .bool(let r)): return l == r
        case (.enumeration(let l), .enumeration(let r)): return l == r
        case (.list(let l), .list(let r)): return l == r
        case (.object(let l), .object(let r)): return l.map(\.0) == r.map(\.0) && l.map(\.1) == r.map(\.1)
        case (.null, .null): return true
        default: return false
        }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(String(describing: self))
    }

    /// A string or enum value's text.
    var text: String? {
        switch self {
        case .string(let text), .enumeration(let text): return text
        default: return nil
        }
    }

    /// A list of strings, or a single string taken as a one-element list.
    var texts: [String]? {
        switch self {
        case .list(let values):
            let texts = values.compactMap(\.text)
            return texts.count == values.count ? texts : nil
        case .string(let text): return [text]
        default: return nil
        }
    }

    /// The value as GraphQL source text.
    var literal: String {
        switch self {
        case .string(let text): return "\"\(text)\""
        case .int(let value): return String(value)
        case .float(let value): return String(value)
        case .bool(let value): return String(value)
        case .enumeration(let text): return text
        case .list(let values): return "[" + values.map(\.literal).joined(separator: ", ") + "]"
        case .object(let fields): return "{" + fields.map { "\($0.0): \($0.1.literal)" }.joined(separator: ", ") + "}"
        case .null: return "null"
        }
    }

    /// The member named `name` of an object value.
    subscript(name: String) -> ArgumentValue? {
        guard case .object(let fields) = self else { return nil }
        return fields.first { $0.0 == name }?.1
    }
}

/// Suggests the closest of `candidates` to a misspelt `name`.
package func closestMatch(to name: String, in candidates: some Sequence<String>) -> String? {
    let scored = candidates.map { ($0, editDistance(name.lowercased(), $0.lowercased())) }
    guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(2, name.count / 3) else { return nil }
    return best.0
}

private func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
