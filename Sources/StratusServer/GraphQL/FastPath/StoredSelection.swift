import GraphQL
import StratusCodegen

/// What the direct paths (``DirectReads``, ``DirectMutations``) answer without GraphQLSwift's
/// executor: items of a model no field-level rule guards, selecting stored values that
/// ``SelectionTrimmer`` writes as the executor does.
struct StoredSelection: Sendable {
    let api: ServerAPI
    /// The fields of object types that a function or another resolver answers, by type and
    /// field name: selecting one leaves the request to the executor.
    private let resolvedFields: [String: Set<String>]

    init(api: ServerAPI) {
        self.api = api
        var resolved: [String: Set<String>] = [:]
        let types: [(name: String, fields: [StratusCodegen.Field])] =
            api.schema.models.map { ($0.name, $0.fields) } + api.schema.nonModels.map { ($0.name, $0.fields) }
        for type in types {
            for field in type.fields
            where field.resolver != nil || api.configuration.resolvers["\(type.name).\(field.name)"] != nil {
                resolved[type.name, default: []].insert(field.name)
            }
        }
        resolvedFields = resolved
    }

    /// The one root field of `operation` when it is of `type` and neither it nor the field has
    /// directives: what either direct path answers, or not at all.
    static func soleRootField(of operation: OperationDefinition, _ type: OperationType) -> GraphQL.Field? {
        guard operation.operation == type, operation.directives.isEmpty,
            operation.selectionSet.selections.count == 1,
            let root = operation.selectionSet.selections.first as? GraphQL.Field, root.directives.isEmpty
        else { return nil }
        return root
    }

    /// No field of the model is guarded on its own, and the caller may reach the type.
    func eligible(_ model: ModelType, identity: Identity) -> Bool {
        guard model.fields.allSatisfy({ $0.awsAuth.isEmpty && $0.authRules.isEmpty }) else { return false }
        let typeLevel = Authorization.typeModes(awsAuth: model.awsAuth, rules: model.authRules)
        return Authorization.allows(typeLevel, identity)
    }

    /// The fields of `selections` when it holds only fields without directives, each under its
    /// own response key (the executor merges the selection sets of a repeated key).
    func plainFields(_ selections: [any Selection]) -> [GraphQL.Field]? {
        var fields: [GraphQL.Field] = []
        var keys: Set<String> = []
        for selection in selections {
            guard let field = selection as? GraphQL.Field, field.directives.isEmpty,
                keys.insert(field.alias?.value ?? field.name.value).inserted
            else { return nil }
            fields.append(field)
        }
        return fields
    }

    /// Whether an item's selection asks only for stored values the trimmer writes as the
    /// executor does.
    func itemsAreStored(_ selections: [any Selection], model: ModelType) -> Bool {
        guard let fields = plainFields(selections) else { return false }
        for field in fields {
            let name = field.name.value
            if ["__typename", TableLayout.versionColumn, TableLayout.deletedColumn, TableLayout.lastChangedAtColumn]
                .contains(name)
            {
                guard field.selectionSet == nil else { return false }
                continue
            }
            guard let modelField = model.field(named: name), modelField.relation == nil,
                resolvedFields[model.name]?.contains(name) != true
            else { return false }
            switch modelField.type.kind {
            case .model, .interface, .union, .input, .customScalar, .connection:
                return false
            case .nonModel:
                guard let nested = field.selectionSet?.selections, embeddedAreStored(nested, type: modelField.type.name)
                else { return false }
            case .scalar, .enumeration:
                guard field.selectionSet == nil else { return false }
            }
        }
        return true
    }

    private func embeddedAreStored(_ selections: [any Selection], type: String) -> Bool {
        guard let fields = plainFields(selections), let nonModel = api.schema.nonModel(named: type),
            nonModel.awsAuth.isEmpty
        else { return false }
        for field in fields {
            if field.name.value == "__typename" { continue }
            guard let member = nonModel.field(named: field.name.value), member.awsAuth.isEmpty,
                resolvedFields[type]?.contains(member.name) != true
            else { return false }
            if member.type.kind == .nonModel {
                guard let nested = field.selectionSet?.selections, embeddedAreStored(nested, type: member.type.name)
                else { return false }
            } else if member.type.kind == .model || field.selectionSet != nil {
                return false
            }
        }
        return true
    }
}
