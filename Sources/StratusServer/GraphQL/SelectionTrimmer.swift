import GraphQL
import StratusCodegen

/// An item as the `data` of a `ConflictUnhandled` error shows it: the stored values the
/// mutation's selection set asks for, in its order and under its aliases, with `__typename`
/// and the sync metadata. Relation fields are left out: AppSync returns the stored item, not a
/// resolved one.
///
/// The selection set is read once into a ``Plan``; a page of items is then written from the
/// plan without walking the document again for each item.
struct SelectionTrimmer {
    let schema: AnnotatedSchema
    let fragments: [String: FragmentDefinition]

    /// What to write for each selected field of an object, in response order.
    struct Plan: Sendable {
        indirect enum Entry: Sendable {
            case constant(JSON)
            case version, deleted, lastChangedAt
            /// A stored value of `type`; `members` is the plan of an embedded type's value.
            case value(name: String, type: FieldType, members: Plan?)
            /// `entry` for the items one of `rules` admits, `null` for the others: a field the
            /// reader may read only on some items.
            case guarded(rules: [Authorization.RowRule], Entry)
        }

        var entries: [(key: String, entry: Entry)]

        /// The stored fields and sync metadata the plan writes, by field name (not by the
        /// response key an alias gives them).
        var fieldNames: Set<String> {
            Set(entries.compactMap { Self.fieldName(of: $0.entry) })
        }

        private static func fieldName(of entry: Entry) -> String? {
            switch entry {
            case .constant: nil
            case .version: TableLayout.versionColumn
            case .deleted: TableLayout.deletedColumn
            case .lastChangedAt: TableLayout.lastChangedAtColumn
            case .value(let name, _, _): name
            case .guarded(_, let entry): fieldName(of: entry)
            }
        }

        /// The plan for a reader who may not read every field: the fields `identity` may not
        /// read for `operation` are `null`, those it may read on some items only are guarded,
        /// and so on inside the embedded values of non-model types.
        func readable(
            by identity: Identity,
            in model: ModelType,
            schema: AnnotatedSchema,
            operation: Authorization.Operation
        ) -> Plan {
            var plan = self
            for index in plan.entries.indices {
                guard case .value(let name, let type, let members) = plan.entries[index].entry,
                    let field = model.field(named: name)
                else { continue }
                var entry = plan.entries[index].entry
                if let members, let nonModel = schema.nonModel(named: type.name) {
                    entry = .value(name: name, type: type, members: members.readable(by: identity, in: nonModel, schema))
                }
                if Authorization.isGuarded(field) {
                    switch Authorization.readAccess(to: field, of: model, for: identity, operation: operation) {
                    case .all: break
                    case .denied: entry = .constant(.null)
                    case .rows(let rules): entry = .guarded(rules: rules, entry)
                    }
                }
                plan.entries[index].entry = entry
            }
            return plan
        }

        /// The plan of an embedded value for `identity`: the members whose `@aws_*` directives
        /// (or their type's) do not admit it are `null`, as the executor answers them.
        private func readable(by identity: Identity, in nonModel: NonModelType, _ schema: AnnotatedSchema) -> Plan {
            var plan = self
            for index in plan.entries.indices {
                guard case .value(let name, let type, let members) = plan.entries[index].entry,
                    let field = nonModel.fields.first(where: { $0.name == name })
                else { continue }
                let directives = field.awsAuth.isEmpty ? nonModel.awsAuth : field.awsAuth
                if !Authorization.allows(directives, identity) {
                    plan.entries[index].entry = .constant(.null)
                } else if let members, let inner = schema.nonModel(named: type.name) {
                    plan.entries[index].entry = .value(
                        name: name,
                        type: type,
                        members: members.readable(by: identity, in: inner, schema)
                    )
                }
            }
            return plan
        }

        /// `item` with the planned fields.
        func apply(to item: StoredItem) -> JSON {
            object(item.values, metadata: item)
        }

        /// An object of stored `values` with the planned fields; the sync metadata comes from
        /// `metadata`, the item itself (embedded objects have none).
        private func object(_ values: JSONObject, metadata: StoredItem?) -> JSON {
            var result = JSONObject(minimumCapacity: entries.count)
            for (key, entry) in entries {
                result[key] = Self.value(of: entry, values, metadata: metadata)
            }
            return .object(result)
        }

        private static func value(of entry: Entry, _ values: JSONObject, metadata: StoredItem?) -> JSON {
            switch entry {
            case .constant(let value):
                value
            case .version:
                metadata?.version.map(JSON.int) ?? .null
            case .deleted:
                metadata?.deleted.map(JSON.bool) ?? .null
            case .lastChangedAt:
                metadata?.lastChangedAt.map(JSON.int) ?? .null
            case .value(let name, let type, let members):
                output(values[name], type: type, members: members)
            case .guarded(let rules, let entry):
                rules.contains { $0.admits(values) } ? value(of: entry, values, metadata: metadata) : .null
            }
        }

        /// A stored value in its response form.
        private static func output(_ value: JSON?, type: FieldType, members: Plan?) -> JSON {
            guard let value, !value.isNull else { return .null }
            if type.isList, case .array(let elements) = value {
                var element = type
                element.isList = false
                return .array(elements.map { output($0, type: element, members: members) })
            }
            switch type.kind {
            case .scalar(.awsJSON):
                return .string(value.text)
            case .nonModel:
                guard case .object(let object) = value, let members else { return .null }
                return members.object(object, metadata: nil)
            default:
                return value
            }
        }
    }

    func trim(_ item: ResolvedItem, selections: [any Selection]) -> JSON {
        plan(for: item.model, selections: selections).apply(to: item.item)
    }

    /// The plan of a selection set on `model`'s items.
    func plan(for model: ModelType, selections: [any Selection]) -> Plan {
        var entries: [(key: String, entry: Plan.Entry)] = []
        for field in fields(in: selections) {
            let key = field.alias?.value ?? field.name.value
            let name = field.name.value
            switch name {
            case "__typename":
                entries.append((key, .constant(.string(model.name))))
            case TableLayout.versionColumn:
                entries.append((key, .version))
            case TableLayout.deletedColumn:
                entries.append((key, .deleted))
            case TableLayout.lastChangedAtColumn:
                entries.append((key, .lastChangedAt))
            default:
                guard let modelField = model.field(named: name), modelField.type.kind != .model else { continue }
                entries.append((key, value(name, type: modelField.type, selections: field.selectionSet?.selections)))
            }
        }
        return Plan(entries: entries)
    }

    private func value(_ name: String, type: FieldType, selections: [any Selection]?) -> Plan.Entry {
        guard case .nonModel = type.kind else { return .value(name: name, type: type, members: nil) }
        guard let nonModel = schema.nonModel(named: type.name) else {
            return .value(name: name, type: type, members: nil)
        }
        var entries: [(key: String, entry: Plan.Entry)] = []
        for field in fields(in: selections ?? []) {
            let key = field.alias?.value ?? field.name.value
            if field.name.value == "__typename" {
                entries.append((key, .constant(.string(nonModel.name))))
            } else if let member = nonModel.field(named: field.name.value) {
                entries.append((key, value(member.name, type: member.type, selections: field.selectionSet?.selections)))
            }
        }
        return .value(name: name, type: type, members: Plan(entries: entries))
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
