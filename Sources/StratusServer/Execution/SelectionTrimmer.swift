import GraphQL
import StratusCodegen

/// An item as the `data` of a `ConflictUnhandled` error shows it: the stored values the
/// mutation's selection set asks for, in its order and under its aliases, with `__typename`
/// and the sync metadata. Relation fields are left out: AppSync returns the stored item, not a
/// resolved one.
struct SelectionTrimmer {
    let schema: AnnotatedSchema
    let fragments: [String: FragmentDefinition]

    func trim(_ item: ResolvedItem, selections: [any Selection]) -> JSON {
        var result = JSONObject()
        for field in fields(in: selections) {
            let key = field.alias?.value ?? field.name.value
            let name = field.name.value
            switch name {
            case "__typename":
                result[key] = .string(item.model.name)
            case TableLayout.versionColumn:
                result[key] = item.item.version.map(JSON.int) ?? .null
            case TableLayout.deletedColumn:
                result[key] = item.item.deleted.map(JSON.bool) ?? .null
            case TableLayout.lastChangedAtColumn:
                result[key] = item.item.lastChangedAt.map(JSON.int) ?? .null
            default:
                guard let modelField = item.model.field(named: name), modelField.type.kind != .model else { continue }
                result[key] = output(
                    item.item.values[name],
                    type: modelField.type,
                    selections: field.selectionSet?.selections ?? []
                )
            }
        }
        return .object(result)
    }

    /// A stored value in its response form.
    private func output(_ value: JSON?, type: FieldType, selections: [any Selection]) -> JSON {
        guard let value, !value.isNull else { return .null }
        if type.isList, case .array(let elements) = value {
            var element = type
            element.isList = false
            return .array(elements.map { output($0, type: element, selections: selections) })
        }
        switch type.kind {
        case .scalar(.awsJSON):
            return .string(value.text)
        case .nonModel:
            guard case .object(let members) = value, let nonModel = schema.nonModel(named: type.name) else {
                return .null
            }
            var result = JSONObject()
            for field in fields(in: selections) {
                let key = field.alias?.value ?? field.name.value
                if field.name.value == "__typename" {
                    result[key] = .string(nonModel.name)
                } else if let member = nonModel.field(named: field.name.value) {
                    result[key] = output(
                        members[member.name],
                        type: member.type,
                        selections: field.selectionSet?.selections ?? []
                    )
                }
            }
            return .object(result)
        default:
            return value
        }
    }

    /// The fields of a selection set, fragments expanded.
    private func fields(in selections: [any Selection]) -> [GraphQL.Field] {
        selections.flatMap { selection -> [GraphQL.Field] in
            switch selection {
            case let field as GraphQL.Field:
                return [field]
            case let fragment as InlineFragment:
                return fields(in: fragment.selectionSet.selections)
            case let spread as FragmentSpread:
                return fragments[spread.name.value].map { fields(in: $0.selectionSet.selections) } ?? []
            default:
                return []
            }
        }
    }
}
