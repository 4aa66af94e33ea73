import Crypto

/// The version of a schema's stored shape: a hash that changes exactly when a local store built
/// for the old schema would need a migration.
///
/// It covers models and non-model types, field names, types, nullability and list-ness, primary
/// keys, indexes and relations. It leaves out what does not touch storage: `@auth` rules (and the
/// owner or groups fields they add implicitly, which a store adds as columns without migration), which
/// operations the API exposes, `@index(queryField:)`, `@default` values, enum values, and the
/// order of declarations.
public enum SchemaVersion {
    /// A 32-character lowercase hexadecimal hash of the stored shape.
    public static func version(of schema: AnnotatedSchema) -> String {
        let digest = SHA256.hash(data: Array(canonicalShape(of: schema).utf8))
        return digest.prefix(16).map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }

    /// The text the version hashes: one line per stored element, sorted.
    public static func canonicalShape(of schema: AnnotatedSchema) -> String {
        var lines: [String] = []
        for model in schema.models {
            lines.append("model \(model.name) key(\(model.primaryKey.joined(separator: ",")))")
            let authFields = Set(model.authRules.flatMap { [$0.ownerField, $0.groupsField].compactMap { $0 } })
            // Fields that exist only because an @auth rule names them come and go with the rule.
            for field in model.fields where !(field.isImplicit && authFields.contains(field.name)) {
                lines.append("field \(model.name).\(field.name) \(shape(of: field))")
            }
            for index in model.indexes {
                lines.append("index \(model.name).\(index.name)(\(index.fields.joined(separator: ",")))")
            }
        }
        for type in schema.nonModels {
            lines.append("embedded \(type.name)")
            for field in type.fields {
                lines.append("field \(type.name).\(field.name) \(shape(of: field))")
            }
        }
        return lines.sorted().joined(separator: "\n")
    }

    private static func shape(of field: Field) -> String {
        var text = field.type.description
        if let relation = field.relation {
            text += " \(relation.kind.rawValue)(\(relation.relatedModel)"
            text += " targets:\(relation.targetNames.joined(separator: ","))"
            text += " keys:\(relation.childKeyFields.joined(separator: ",")))"
        }
        return text
    }
}
