import Foundation
import StratusCodegen
import StratusServer

/// Made-up items of a model, from the schema: a value of each create-input field's type (the
/// AWS scalars in the formats the API accepts, an enum's values, nested non-model objects), and
/// foreign keys that point at existing items of the related model when there are any.
///
/// The same seed makes the same items, so that a test can tell what it will get:
///
/// ```swift
/// var generator = ItemGenerator(schema: schema, seed: 7)
/// let input = generator.input(for: post, related: ["Blog": [["id": "b1"]]])
/// ```
struct ItemGenerator {
    let schema: AnnotatedSchema
    private var random: SplitMix64

    init(schema: AnnotatedSchema, seed: UInt64) {
        self.schema = schema
        random = SplitMix64(seed: seed)
    }

    /// A foreign key of a model: fields of it that hold the primary key of an item of another.
    struct Link: Hashable {
        /// The model the key points at.
        var model: String
        /// Each pair: this model's field, and the key field of `model` it holds.
        var fields: [(local: String, remote: String)]

        static func == (lhs: Link, rhs: Link) -> Bool {
            lhs.model == rhs.model && lhs.fields.map(\.local) == rhs.fields.map(\.local)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(model)
            hasher.combine(fields.map(\.local))
        }
    }

    /// The foreign keys of `model`: those of its belongsTo and hasOne fields, and those other
    /// models' hasMany fields keep in it.
    func links(of model: ModelType) -> [Link] {
        var links: [Link] = []
        for field in model.fields {
            guard let relation = field.relation, relation.kind != .hasMany,
                let related = schema.model(named: relation.relatedModel),
                relation.targetNames.count <= related.primaryKey.count
            else { continue }
            links.append(Link(model: related.name, fields: Array(zip(relation.targetNames, related.primaryKey))))
        }
        for parent in schema.models {
            for field in parent.fields {
                guard let relation = field.relation, relation.kind == .hasMany, relation.relatedModel == model.name,
                    relation.childKeyFields.count <= parent.primaryKey.count,
                    relation.childKeyFields.allSatisfy({ model.field(named: $0)?.type.isLeaf == true })
                else { continue }
                links.append(Link(model: parent.name, fields: Array(zip(relation.childKeyFields, parent.primaryKey))))
            }
        }
        var seen = Set<Link>()
        return links.filter { seen.insert($0).inserted }
    }

    /// The fields of `model` a create input takes and the generator fills: stored fields the
    /// client sets, without the owner and group fields of its `@auth` rules (the API fills those
    /// from the caller, and refuses another caller's).
    static func inputFields(of model: ModelType) -> [Field] {
        var excluded = Set<String>()
        for rule in model.authRules {
            switch rule.allow {
            case .owner: excluded.insert(rule.ownerField ?? "owner")
            case .groups: if let field = rule.groupsField { excluded.insert(field) }
            default: break
            }
        }
        if let versioning = model.versioning { excluded.insert(versioning.versionField) }
        return model.fields.filter { field in
            guard field.resolver == nil, !field.isReadOnly, !excluded.contains(field.name) else { return false }
            switch field.type.kind {
            case .scalar, .enumeration, .nonModel, .customScalar: return true
            case .model, .interface, .union, .input, .connection: return false
            }
        }
    }

    /// The create input of a new item of `model`; `related` holds the keys of existing items of
    /// other models, by model name, for its foreign keys. With `requiredOnly`, only the fields
    /// the input requires (the key too, unless the API makes the `id`).
    mutating func input(for model: ModelType, related: [String: [JSONObject]], requiredOnly: Bool = false) -> JSONObject
    {
        var input = JSONObject()
        let madeByTheAPI = model.primaryKey == ["id"] && model.field(named: "id")?.type.name == Scalar.id.rawValue
        for field in Self.inputFields(of: model) {
            if requiredOnly, !field.type.isRequired || (madeByTheAPI && field.name == "id") { continue }
            if let value = value(of: field.type, named: field.name, depth: 0) { input[field.name] = value }
        }
        for link in links(of: model) {
            let required = link.fields.contains { model.field(named: $0.local)?.type.isRequired == true }
            guard let items = related[link.model], !items.isEmpty else {
                // Nothing to point at: an optional key stays empty rather than dangling.
                if !required { for pair in link.fields { input[pair.local] = nil } }
                continue
            }
            if requiredOnly && !required { continue }
            let item = items[Int.random(in: 0..<items.count, using: &random)]
            for pair in link.fields { input[pair.local] = item[pair.remote] ?? .null }
        }
        return input
    }

    static let words = [
        "amber", "birch", "cedar", "delta", "ember", "fjord", "grove", "harbor", "iris", "juniper", "kestrel", "lumen",
    ]

    /// A value of `type` for the field `name`, or `nil` for a type with no value to make.
    mutating func value(of type: FieldType, named name: String, depth: Int) -> JSON? {
        guard type.isList else { return element(of: type, named: name, depth: depth) }
        let count = Int.random(in: 1...3, using: &random)
        return .array((0..<count).compactMap { _ in element(of: type, named: name, depth: depth) })
    }

    private mutating func element(of type: FieldType, named name: String, depth: Int) -> JSON? {
        switch type.kind {
        case .scalar(let scalar):
            return value(of: scalar, named: name)
        case .enumeration:
            guard let values = schema.enumType(named: type.name)?.values, !values.isEmpty else { return nil }
            return .string(values[Int.random(in: 0..<values.count, using: &random)])
        case .nonModel:
            guard depth < 4, let nonModel = schema.nonModel(named: type.name) else { return nil }
            var object = JSONObject()
            for field in nonModel.fields where field.resolver == nil {
                if let value = value(of: field.type, named: field.name, depth: depth + 1) { object[field.name] = value }
            }
            return .object(object)
        case .customScalar:
            return .string("\(name) \(word())")
        case .model, .interface, .union, .input, .connection:
            return nil
        }
    }

    /// A value of `scalar` in the format the API accepts.
    mutating func value(of scalar: Scalar, named name: String) -> JSON {
        let number = Int.random(in: 0..<1000, using: &random)
        switch scalar {
        case .id:
            return .string(uuid())
        case .string:
            return .string("\(name) \(word()) \(number)")
        case .int:
            return .int(number)
        case .float:
            return .double(Double(Int.random(in: 0..<100_000, using: &random)) / 100 + 0.25)
        case .boolean:
            return .bool(Bool.random(using: &random))
        case .awsDate:
            return .string(String(dateTime().prefix(10)))
        case .awsTime:
            return .string(String(dateTime().dropFirst(11).dropLast()))
        case .awsDateTime:
            return .string(dateTime())
        case .awsTimestamp:
            return .int(seconds())
        case .awsEmail:
            return .string("\(word()).\(number)@example.com")
        case .awsJSON:
            return .string(JSON.object([word(): .int(number)]).text)
        case .awsPhone:
            return .string("+1 206 555 \(String(format: "%04d", Int.random(in: 100...9999, using: &random)))")
        case .awsURL:
            return .string("https://example.com/\(name)/\(number)")
        case .awsIPAddress:
            return .string("192.0.2.\(Int.random(in: 1...254, using: &random))")
        }
    }

    private mutating func word() -> String {
        Self.words[Int.random(in: 0..<Self.words.count, using: &random)]
    }

    /// Seconds since the epoch, between 2023 and 2026.
    private mutating func seconds() -> Int {
        Int.random(in: 1_672_531_200..<1_767_225_600, using: &random)
    }

    /// `2024-05-06T07:08:09.123Z`.
    private mutating func dateTime() -> String {
        let milliseconds = Int.random(in: 0..<1000, using: &random)
        let date = Date(timeIntervalSince1970: Double(seconds()) + Double(milliseconds) / 1000)
        return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// A version 4 UUID made of the generator's random bits.
    private mutating func uuid() -> String {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            String(hex.dropFirst(range.lowerBound).prefix(range.count))
        }
        return parts.joined(separator: "-")
    }
}

/// A random number generator whose sequence depends only on its seed (SplitMix64).
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
