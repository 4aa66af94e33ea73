import Amplify

/// The selection set the model request builders ask for.
///
/// Primary-key fields first, then the other scalar, enum and embedded fields alphabetically,
/// then belongsTo/hasOne associations (with their own scalars), then `__typename`, then, for
/// synced models, `_version _deleted _lastChangedAt`.
struct ModelSelectionSet {
    let schema: ModelSchema
    let includesSyncFields: Bool

    func lines(indent: Int, depth: Int = 1) -> [String] {
        let pad = String(repeating: " ", count: indent)
        var lines: [String] = []
        let keyNames = schema.primaryKey.fields.map(\.name)
        lines.append(contentsOf: keyNames.map { pad + $0 })
        let scalars = schema.sortedFields.filter { !$0.type.isAssociation && !keyNames.contains($0.name) }
            .sorted { $0.name < $1.name }
        lines.append(contentsOf: fieldLines(scalars, indent: indent))
        if depth > 0 {
            for field in schema.sortedFields {
                guard case .model(let name) = field.type,
                    let association = field.association
                else { continue }
                switch association {
                case .belongsTo, .hasOne:
                    guard let related = ModelRegistry.modelSchema(from: name) else { continue }
                    lines.append("\(pad)\(field.name) {")
                    let nested = ModelSelectionSet(schema: related, includesSyncFields: includesSyncFields)
                    lines.append(contentsOf: nested.lines(indent: indent + 2, depth: depth - 1))
                    lines.append("\(pad)}")
                case .hasMany:
                    continue
                }
            }
        }
        lines.append(pad + "__typename")
        if includesSyncFields {
            lines.append(contentsOf: ["_version", "_deleted", "_lastChangedAt"].map { pad + $0 })
        }
        return lines
    }

    /// Scalar and enum fields by name; embedded fields with their own fields.
    private func fieldLines(_ fields: [ModelField], indent: Int) -> [String] {
        let pad = String(repeating: " ", count: indent)
        var lines: [String] = []
        for field in fields {
            if case .embedded(let name) = field.type.elementType,
                let embedded = ModelRegistry.embeddableSchema(from: name)
            {
                lines.append("\(pad)\(field.name) {")
                lines.append(contentsOf: fieldLines(embedded.sortedFields, indent: indent + 2))
                lines.append("\(pad)}")
            } else {
                lines.append(pad + field.name)
            }
        }
        return lines
    }
}

extension ModelFieldType {
    /// The type of one element: the type itself, or the element type of an embedded collection.
    var elementType: ModelFieldType {
        if case .embeddedCollection(let element) = self { return element }
        return self
    }
}
