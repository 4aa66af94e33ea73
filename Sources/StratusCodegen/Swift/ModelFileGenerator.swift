import AWSWire

/// Generates the two files of one model.
struct ModelFileGenerator {
    let model: ModelType
    let schema: AnnotatedSchema

    /// Foreign-key fields held through a belongsTo or hasOne reference, by name: the relation field.
    private var referenceTargets: [String: (field: Field, index: Int)] {
        var targets: [String: (Field, Int)] = [:]
        for field in model.fields {
            guard let relation = field.relation, relation.kind != .hasMany else { continue }
            for (index, name) in relation.targetNames.enumerated() { targets[name] = (field, index) }
        }
        return targets
    }

    private var references: [Field] {
        model.fields.filter { $0.relation != nil && $0.relation?.kind != .hasMany }
    }

    private var variable: String { SwiftNames.identifier(Naming.lowerFirst(model.name)) }

    // MARK: - Model file

    func modelFile() -> String {
        var lines = [SwiftModelGenerator.header, "import Amplify", "import Foundation", ""]
        // SwiftUI's lists take models that are `Identifiable`: those with a scalar `id` field.
        let identifiable = model.fields.contains { $0.name == "id" && $0.relation == nil }
        lines.append("public struct \(model.name): Model, Equatable\(identifiable ? ", Identifiable" : "") {")
        let targets = referenceTargets
        var parameters: [String] = []
        var assignments: [String] = []
        var readOnly: [(String, String)] = []
        for field in model.fields {
            let name = SwiftNames.identifier(field.name)
            if let relation = field.relation {
                let related = relation.relatedModel
                switch relation.kind {
                case .hasMany:
                    let type = "List<\(related)>" + (field.type.isRequired ? "" : "?")
                    lines.append("    public var \(name): \(type)")
                    parameters.append("\(name): \(type) = []")
                    assignments.append("self.\(name) = \(name)")
                case .hasOne, .belongsTo:
                    lines.append("    public var \(name): \(related)? {")
                    lines.append("        get { _\(field.name).model }")
                    lines.append("        set { _\(field.name) = ModelReference(newValue) }")
                    lines.append("    }")
                    lines.append("    internal var _\(field.name): ModelReference<\(related)>")
                    parameters.append("\(name): \(related)\(field.type.isRequired ? "" : "? = nil")")
                    assignments.append("self._\(field.name) = ModelReference(\(name))")
                }
                continue
            }
            let type = Self.swiftType(of: field.type)
            if let target = targets[field.name] {
                let accessor = Self.jsonAccessor(of: field.type)
                lines.append("    public var \(name): \(type.hasSuffix("?") ? type : type + "?") {")
                let element = target.index == 0 ? "first" : "dropFirst(\(target.index)).first"
                lines.append("        _\(target.field.name).identifiers.\(element)?.\(accessor)")
                lines.append("    }")
                continue
            }
            if field.isReadOnly {
                let optional = type.hasSuffix("?") ? type : type + "?"
                lines.append("    public var \(name): \(optional)")
                readOnly.append((name, optional))
                continue
            }
            let isKey = model.primaryKey.contains(field.name)
            lines.append("    public \(isKey ? "let" : "var") \(name): \(type)")
            parameters.append("\(name): \(type)\(defaultValue(for: field, type: type).map { " = \($0)" } ?? "")")
            assignments.append("self.\(name) = \(name)")
        }
        for (name, type) in readOnly {
            parameters.append("\(name): \(type) = nil")
            assignments.append("self.\(name) = \(name)")
        }
        lines.append("")
        lines.append(contentsOf: Self.initializer(parameters: parameters, body: assignments))
        lines.append("}")
        if model.fields.contains(where: { $0.relation != nil }) {
            lines.append("")
            lines.append(contentsOf: codableExtension())
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func defaultValue(for field: Field, type: String) -> String? {
        if model.primaryKey == ["id"], field.name == "id", case .scalar(.id) = field.type.kind, !field.type.isList {
            return "UUID().uuidString"
        }
        if let value = field.defaultValue, !field.type.isList {
            switch field.type.kind {
            case .scalar(.int), .scalar(.awsTimestamp): if Int(value) != nil { return value }
            case .scalar(.float): if Double(value) != nil { return value }
            case .scalar(.boolean): if value == "true" || value == "false" { return value }
            case .scalar(.awsDate), .scalar(.awsTime), .scalar(.awsDateTime): break
            case .scalar: return SwiftNames.literal(value)
            case .enumeration:
                if schema.enumType(named: field.type.name)?.values.contains(value) == true {
                    return ".\(SwiftNames.enumCase(value))"
                }
            default: break
            }
        }
        return type.hasSuffix("?") ? "nil" : nil
    }

    private func codableExtension() -> [String] {
        var decode: [String] = []
        var encode: [String] = []
        let targets = referenceTargets
        for field in model.fields where targets[field.name] == nil {
            let name = SwiftNames.identifier(field.name)
            if let relation = field.relation, relation.kind != .hasMany {
                let targetList = "[" + relation.targetNames.map(SwiftNames.literal).joined(separator: ", ") + "]"
                decode.append(
                    "_\(field.name) = try ModelReference(from: decoder, field: \(SwiftNames.literal(field.name)), targetNames: \(targetList))"
                )
                encode.append(
                    "try _\(field.name).encode(to: encoder, field: \(SwiftNames.literal(field.name)), targetNames: \(targetList))"
                )
                continue
            }
            let type: String
            if let relation = field.relation {
                type = "List<\(relation.relatedModel)>" + (field.type.isRequired ? "" : "?")
            } else {
                type =
                    field.isReadOnly
                    ? Self.swiftType(of: field.type) + (field.type.isRequired ? "?" : "")
                    : Self.swiftType(of: field.type)
            }
            let key = "." + (SwiftNames.keywords.contains(field.name) ? "`\(field.name)`" : field.name)
            if field.relation != nil, type.hasSuffix("?") {
                decode.append(
                    "\(name) = try \(type.dropLast()).decode(from: decoder, field: \(SwiftNames.literal(field.name)), of: Self.schema)"
                )
                encode.append("try container.encodeIfPresent(\(name), forKey: \(key))")
            } else if type.hasSuffix("?") {
                decode.append("\(name) = try container.decodeIfPresent(\(type.dropLast()).self, forKey: \(key))")
                encode.append("try container.encodeIfPresent(\(name), forKey: \(key))")
            } else if field.relation != nil {
                decode.append(
                    "\(name) = try \(type).decode(from: decoder, field: \(SwiftNames.literal(field.name)), of: Self.schema) ?? []"
                )
                encode.append("try container.encode(\(name), forKey: \(key))")
            } else {
                decode.append("\(name) = try container.decode(\(type).self, forKey: \(key))")
                encode.append("try container.encode(\(name), forKey: \(key))")
            }
        }
        var lines = ["extension \(model.name) {"]
        lines.append("    public init(from decoder: any Decoder) throws {")
        lines.append("        let container = try decoder.container(keyedBy: CodingKeys.self)")
        lines.append(contentsOf: decode.map { "        " + $0 })
        lines.append("    }")
        lines.append("")
        lines.append("    public func encode(to encoder: any Encoder) throws {")
        lines.append("        var container = encoder.container(keyedBy: CodingKeys.self)")
        lines.append(contentsOf: encode.map { "        " + $0 })
        lines.append("    }")
        lines.append("}")
        return lines
    }

    // MARK: - Schema file

    func schemaFile() -> String {
        var lines = [
            SwiftModelGenerator.header, "import Amplify", "import Foundation", "", "extension \(model.name) {",
        ]
        lines.append(contentsOf: Self.codingKeys(model.fields.map(\.name)))
        lines.append("")
        lines.append("    public static let keys = CodingKeys.self")
        lines.append("")
        lines.append("    public static let schema = defineSchema { model in")
        lines.append("        let \(variable) = \(model.name).keys")
        lines.append("")
        if !model.authRules.isEmpty {
            lines.append("        model.authRules = [")
            lines.append(contentsOf: Self.commaSeparated(model.authRules.map(Self.ruleCall), indent: 12))
            lines.append("        ]")
            lines.append("")
        }
        lines.append("        model.listPluralName = \(SwiftNames.literal(model.pluralName))")
        lines.append("        model.syncPluralName = \(SwiftNames.literal(model.pluralName))")
        lines.append("")
        lines.append("        model.attributes(")
        var attributes = model.indexes.map { index in
            ".index(fields: [" + index.fields.map(SwiftNames.literal).joined(separator: ", ")
                + "], name: \(SwiftNames.literal(index.name)))"
        }
        attributes.append(
            ".primaryKey(fields: ["
                + model.primaryKey.map { "\(variable).\(SwiftNames.identifier($0))" }.joined(separator: ", ") + "])"
        )
        lines.append(contentsOf: Self.commaSeparated(attributes, indent: 12))
        lines.append("        )")
        lines.append("")
        lines.append("        model.fields(")
        lines.append(contentsOf: Self.commaSeparated(model.fields.map(fieldDefinition), indent: 12))
        lines.append("        )")
        lines.append("    }")
        lines.append("}")
        lines.append(contentsOf: identifierExtensions())
        return lines.joined(separator: "\n") + "\n"
    }

    /// For a custom primary key, the identifier's type and its factory, which
    /// `DataStore.query(_:byIdentifier:)` and `GraphQLRequest.get(_:byIdentifier:)` take:
    /// `.identifier(country: "NZ", handle: "kiwi")`.
    private func identifierExtensions() -> [String] {
        guard model.primaryKey != ["id"], !model.primaryKey.isEmpty else { return [] }
        let parameters = model.primaryKey.map { name in
            let type = model.fields.first { $0.name == name }.map { Self.swiftType(of: $0.type) } ?? "String"
            return "\(SwiftNames.identifier(name)): \(type.hasSuffix("?") ? String(type.dropLast()) : type)"
        }
        let fields = model.primaryKey.map { "(name: \(SwiftNames.literal($0)), value: \(SwiftNames.identifier($0)))" }
        return [
            "",
            "extension \(model.name): ModelIdentifiable {",
            "    public typealias IdentifierFormat = ModelIdentifierFormat.Custom",
            "    public typealias IdentifierProtocol = ModelIdentifier<Self, ModelIdentifierFormat.Custom>",
            "}",
            "",
            "extension \(model.name).IdentifierProtocol {",
            "    public static func identifier(\(parameters.joined(separator: ", "))) -> Self {",
            "        .make(fields: [\(fields.joined(separator: ", "))])",
            "    }",
            "}",
        ]
    }

    private func fieldDefinition(_ field: Field) -> String {
        let key = "\(variable).\(SwiftNames.identifier(field.name))"
        let nullability = field.type.isRequired ? ".required" : ".optional"
        let readOnly = field.isReadOnly ? ", isReadOnly: true" : ""
        let auth =
            field.authRules.isEmpty
            ? "" : ", authRules: [" + field.authRules.map(Self.ruleCall).joined(separator: ", ") + "]"
        guard let relation = field.relation else {
            return
                ".field(\(key), is: \(nullability)\(readOnly), ofType: \(Self.modelFieldType(of: field.type))\(auth))"
        }
        let related = relation.relatedModel
        let associated =
            "["
            + relation.associatedFields.map { "\(related).keys.\(SwiftNames.identifier($0))" }.joined(separator: ", ")
            + "]"
        let targets = "[" + relation.targetNames.map(SwiftNames.literal).joined(separator: ", ") + "]"
        switch relation.kind {
        case .hasMany:
            return ".hasMany(\(key), is: \(nullability), ofType: \(related).self, associatedFields: \(associated))"
        case .hasOne:
            return
                ".hasOne(\(key), is: \(nullability), ofType: \(related).self, associatedFields: \(associated), targetNames: \(targets))"
        case .belongsTo:
            return
                ".belongsTo(\(key), is: \(nullability), ofType: \(related).self, associatedFields: \(associated), targetNames: \(targets))"
        }
    }

    // MARK: - Shared pieces

    static func codingKeys(_ names: [String]) -> [String] {
        ["    public enum CodingKeys: String, ModelKey {"] + names.map { "        case \(SwiftNames.identifier($0))" }
            + ["    }"]
    }

    static func initializer(parameters: [String], body: [String]) -> [String] {
        var lines: [String] = []
        if parameters.isEmpty {
            lines.append("    public init() {}")
            return lines
        }
        lines.append("    public init(")
        lines.append(contentsOf: commaSeparated(parameters, indent: 8))
        lines.append("    ) {")
        lines.append(contentsOf: body.map { "        " + $0 })
        lines.append("    }")
        return lines
    }

    static func commaSeparated(_ items: [String], indent: Int) -> [String] {
        let padding = String(repeating: " ", count: indent)
        return items.enumerated().map { index, item in padding + item + (index < items.count - 1 ? "," : "") }
    }

    static func ruleCall(_ rule: AuthRuleDefinition) -> String {
        var arguments = [
            "allow: .\(rule.allow == .private || rule.allow == .public ? "`\(rule.allow.rawValue)`" : rule.allow.rawValue)"
        ]
        if let ownerField = rule.ownerField { arguments.append("ownerField: \(SwiftNames.literal(ownerField))") }
        if let identityClaim = rule.identityClaim {
            arguments.append("identityClaim: \(SwiftNames.literal(identityClaim))")
        }
        if let groupClaim = rule.groupClaim { arguments.append("groupClaim: \(SwiftNames.literal(groupClaim))") }
        if !rule.groups.isEmpty {
            arguments.append("groups: [" + rule.groups.map(SwiftNames.literal).joined(separator: ", ") + "]")
        }
        if let groupsField = rule.groupsField { arguments.append("groupsField: \(SwiftNames.literal(groupsField))") }
        arguments.append("provider: .\(rule.provider.rawValue)")
        var operations: [String] = []
        for operation in rule.operations {
            let name =
                switch operation {
                case .create, .update, .delete: operation.rawValue
                case .read, .get, .list, .sync, .listen, .search: "read"
                }
            if !operations.contains(name) { operations.append(name) }
        }
        arguments.append("operations: [" + operations.map { ".\($0)" }.joined(separator: ", ") + "]")
        return "rule(" + arguments.joined(separator: ", ") + ")"
    }

    /// The Swift type of a non-relation field.
    static func swiftType(of type: FieldType) -> String {
        let base: String
        switch type.kind {
        case .scalar(let scalar): base = SwiftNames.swiftType(of: scalar)
        case .customScalar: base = "String"
        case .enumeration, .nonModel, .model, .interface, .union, .input, .connection: base = type.name
        }
        var text = base
        if type.isList { text = "[\(base)\(type.isElementRequired ? "" : "?")]" }
        return type.isRequired ? text : text + "?"
    }

    /// The `ModelFieldType` of a non-relation field.
    static func modelFieldType(of type: FieldType) -> String {
        let element: String
        switch type.kind {
        case .scalar(let scalar): element = SwiftNames.modelFieldType(of: scalar)
        case .enumeration:
            element =
                type.isList ? ".enumeration(name: \(SwiftNames.literal(type.name)))" : ".enum(type: \(type.name).self)"
        case .nonModel:
            // By type, which registers it: the request builders select its fields by name.
            if type.isList { return ".embeddedCollection(of: \(type.name).self)" }
            element = ".embedded(type: \(type.name).self)"
        case .model: element = ".model(name: \(SwiftNames.literal(type.name)))"
        case .customScalar: element = ".string"
        case .interface, .union, .input, .connection: element = ".embedded(name: \(SwiftNames.literal(type.name)))"
        }
        return type.isList ? ".embeddedCollection(of: \(element))" : element
    }

    /// How a foreign-key value is read from a `JSONValue`.
    static func jsonAccessor(of type: FieldType) -> String {
        switch type.kind {
        case .scalar(.int), .scalar(.awsTimestamp): return "intValue"
        case .scalar(.float): return "doubleValue"
        case .scalar(.boolean): return "booleanValue"
        default: return "stringValue"
        }
    }
}
