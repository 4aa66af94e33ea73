import AWSWire
import GraphQL

extension SchemaBuilder {
    func buildModel(_ definition: ObjectDeclaration) -> ModelType {
        let typeName = definition.name.value
        let typeDirectives = checkedDirectives(definition.directives, typeName: typeName, fieldName: nil)
        var model = ModelType(
            name: typeName,
            fields: [],
            primaryKey: [],
            indexes: [],
            authRules: [],
            operations: ModelOperations.defaults(for: typeName),
            timestamps: Timestamps(createdAt: "createdAt", updatedAt: "updatedAt"),
            isJoinModel: false,
            position: position(of: definition.name.loc)
        )
        var seenFields: [String: SourcePosition] = [:]
        var primaryKeyPosition: SourcePosition?

        for fieldDefinition in definition.fields {
            let fieldName = fieldDefinition.name.value
            let here = position(of: fieldDefinition.name.loc)
            if let first = seenFields[fieldName] {
                report(
                    .duplicateField,
                    type: typeName,
                    field: fieldName,
                    at: here,
                    "the field '\(fieldName)' is declared twice (first at \(first)). Remove or rename one."
                )
                continue
            }
            seenFields[fieldName] = here
            if Self.reservedFieldNames.contains(fieldName) || fieldName.hasPrefix("__") {
                report(
                    .reservedName,
                    type: typeName,
                    field: fieldName,
                    at: here,
                    "'\(fieldName)' is reserved for sync metadata and GraphQL introspection. Rename the field."
                )
                continue
            }
            let directives = checkedDirectives(fieldDefinition.directives, typeName: typeName, fieldName: fieldName)
            rejectDirectives(directives, named: ["aws_subscribe"], typeName: typeName, fieldName: fieldName) { _ in
                "@aws_subscribe belongs on fields of the \(self.rootTypes.subscription) type. Move it there."
            }
            guard let type = resolveType(fieldDefinition.type, typeName: typeName, fieldName: fieldName),
                checkModelFieldKind(type, typeName: typeName, fieldName: fieldName, at: here)
            else {
                continue
            }
            var field = Field(
                name: fieldName,
                type: type,
                relation: nil,
                defaultValue: nil,
                authRules: [],
                isReadOnly: false,
                isImplicit: false,
                position: here
            )
            field.arguments = inputValues(fieldDefinition.arguments, typeName: typeName, fieldName: fieldName)
            field.resolver = fieldResolver(directives, typeName: typeName, fieldName: fieldName)
            var relationDirectives: [Directive] = []
            for directive in directives {
                let arguments = argumentValues(directive)
                switch directive.name.value {
                case "primaryKey":
                    if let previous = primaryKeyPosition {
                        report(
                            .invalidKey,
                            type: typeName,
                            field: fieldName,
                            at: position(of: directive.loc),
                            "a model has one @primaryKey, and \(typeName) already has one at \(previous). Remove one."
                        )
                    } else {
                        primaryKeyPosition = position(of: directive.loc)
                        model.primaryKey = [fieldName] + (arguments["sortKeyFields"]?.texts ?? [])
                    }
                case "index":
                    let sortKeys = arguments["sortKeyFields"]?.texts ?? []
                    let name =
                        arguments["name"]?.text ?? "by" + ([fieldName] + sortKeys).map(Naming.upperFirst).joined()
                    model.indexes.append(
                        Index(name: name, fields: [fieldName] + sortKeys, queryField: arguments["queryField"]?.text)
                    )
                case "default":
                    guard let value = arguments["value"]?.text else {
                        report(
                            .invalidArgument,
                            type: typeName,
                            field: fieldName,
                            at: position(of: directive.loc),
                            "@default needs a string value, such as @default(value: \"draft\")."
                        )
                        continue
                    }
                    field.defaultValue = value
                case "auth":
                    field.authRules = authRules(
                        arguments,
                        typeName: typeName,
                        fieldName: fieldName,
                        at: position(of: directive.loc)
                    )
                case "hasMany", "hasOne", "belongsTo", "manyToMany", "connection":
                    relationDirectives.append(directive)
                default:
                    if let auth = AWSAuthDirective.parse(
                        name: directive.name.value,
                        cognitoGroups: arguments["cognito_groups"]?.texts
                    ) {
                        field.awsAuth.append(auth)
                    }
                }
            }
            if relationDirectives.count > 1 {
                report(
                    .invalidRelation,
                    type: typeName,
                    field: fieldName,
                    at: position(of: relationDirectives[1].loc),
                    "a field can have one relation directive, and this one has "
                        + relationDirectives.map { "@\($0.name.value)" }.joined(separator: " and ") + ". Keep one."
                )
            }
            if let directive = relationDirectives.first {
                pendingRelations[PendingKey(model: typeName, field: fieldName)] = PendingRelation(
                    directive: directive.name.value,
                    arguments: argumentValues(directive),
                    position: position(of: directive.loc)
                )
            } else if type.kind == .model && field.resolver == nil {
                // Amplify's transformers accept it, give it no resolver and leave it out of the
                // inputs; `amplify codegen models` leaves it out with a warning.
                let advice = type.isList ? "@hasMany" : "@hasOne/@belongsTo"
                warn(
                    type: typeName,
                    field: fieldName,
                    at: here,
                    "the field holds the @model type '\(type.name)' without a relation directive, so nothing "
                        + "stores or resolves it: it reads as null, it is not in the mutation inputs, and the "
                        + "generated Swift models leave it out. Add the appropriate \(advice) directive if you "
                        + "want to connect them."
                )
            }
            model.fields.append(field)
        }

        for directive in typeDirectives {
            let arguments = argumentValues(directive)
            let here = position(of: directive.loc)
            switch directive.name.value {
            case "model":
                applyModelOptions(arguments, to: &model, at: here)
            case "searchable":
                model.isSearchable = true
                model.operations.search = "search\(Naming.plural(typeName))"
                if let queries = arguments["queries"] {
                    model.operations.search =
                        queries == .null ? nil : queries["search"]?.text ?? model.operations.search
                }
            case "versioned":
                model.versioning = Versioning(
                    versionField: arguments["versionField"]?.text ?? "version",
                    versionInput: arguments["versionInput"]?.text ?? "expectedVersion"
                )
            case "auth":
                model.authRules = authRules(arguments, typeName: typeName, fieldName: nil, at: here)
            case let name where AWSAuthDirective.parse(name: name, cognitoGroups: nil) != nil:
                if let auth = AWSAuthDirective.parse(name: name, cognitoGroups: arguments["cognito_groups"]?.texts) {
                    model.awsAuth.append(auth)
                }
            case "key":
                guard let fields = arguments["fields"]?.texts, !fields.isEmpty else {
                    report(
                        .invalidArgument,
                        type: typeName,
                        at: here,
                        "@key needs fields, such as @key(fields: [\"id\"])."
                    )
                    continue
                }
                if let name = arguments["name"]?.text {
                    model.indexes.append(Index(name: name, fields: fields, queryField: arguments["queryField"]?.text))
                } else if primaryKeyPosition != nil {
                    report(.invalidKey, type: typeName, at: here, "\(typeName) already has a primary key. Remove one.")
                } else {
                    primaryKeyPosition = here
                    model.primaryKey = fields
                }
            default:
                break
            }
        }

        model.interfaces = definition.interfaces.map(\.name.value)
        let hasImplicitKey = model.primaryKey.isEmpty
        if hasImplicitKey {
            model.primaryKey = ["id"]
            if model.field(named: "id") == nil {
                model.fields.insert(implicitField("id", scalar: .id, required: true, at: model.position), at: 0)
            }
        }
        checkKeys(of: model, implicit: hasImplicitKey)
        applyVersioning(to: &model)
        return model
    }

    /// Model fields hold scalars, enums, custom scalars, non-model values and models; an
    /// interface, a union or a connection has no stored form.
    private func checkModelFieldKind(
        _ type: FieldType,
        typeName: String,
        fieldName: String,
        at here: SourcePosition
    )
        -> Bool
    {
        switch type.kind {
        case .interface, .union:
            report(
                .unsupported,
                type: typeName,
                field: fieldName,
                at: here,
                "a @model field cannot hold \(describe(type.kind)) ('\(type.name)'): the API has no input to write "
                    + "it with. Hold one of its types, or return it from a field resolved by @function."
            )
            return false
        case .connection:
            let model = type.connectedModel ?? type.name
            report(
                .invalidRelation,
                type: typeName,
                field: fieldName,
                at: here,
                "a @model field holds the related items as a list, and the API makes it a connection: "
                    + "write '\(fieldName): [\(model)] @hasMany' instead of '\(type.name)'."
            )
            return false
        default:
            return true
        }
    }

    /// v1's `@versioned`: the version field is an `Int!`, added when missing, as the v1
    /// transformer enforces it.
    private func applyVersioning(to model: inout ModelType) {
        guard let versioning = model.versioning else { return }
        let name = versioning.versionField
        if let index = model.fields.firstIndex(where: { $0.name == name }) {
            let field = model.fields[index]
            guard field.type.name == Scalar.int.rawValue, !field.type.isList else {
                report(
                    .invalidArgument,
                    type: model.name,
                    field: name,
                    at: field.position,
                    "The versionField \"\(name)\" is required to be of type \"Int\" or \"BigInt\". "
                        + "Write '\(name): Int!', or name another field with @versioned(versionField:)."
                )
                return
            }
            model.fields[index].type.isRequired = true
        } else {
            var field = implicitField(name, scalar: .int, required: true, at: model.position)
            field.isReadOnly = true
            model.fields.append(field)
        }
    }

    func implicitField(
        _ name: String,
        scalar: Scalar,
        required: Bool,
        list: Bool = false,
        at position: SourcePosition
    ) -> Field {
        Field(
            name: name,
            type: FieldType(
                name: scalar.rawValue,
                kind: .scalar(scalar),
                isRequired: required,
                isList: list,
                isElementRequired: list
            ),
            relation: nil,
            defaultValue: nil,
            authRules: [],
            isReadOnly: false,
            isImplicit: true,
            position: position
        )
    }

    func argumentValues(_ directive: Directive) -> [String: ArgumentValue] {
        Dictionary(
            directive.arguments.map { ($0.name.value, ArgumentValue($0.value)) },
            uniquingKeysWith: { _, last in last }
        )
    }

    /// Key fields are scalars or enums, and non-null; the implicit `id` key may be a nullable
    /// `id: ID`, which Amplify accepts (its mutation inputs make it non-null where it must be).
    private func checkKeys(of model: ModelType, implicit: Bool) {
        let keyed: [(String, [String])] =
            [("primary key", model.primaryKey)] + model.indexes.map { ("index '\($0.name)'", $0.fields) }
        for (label, fields) in keyed {
            for name in fields {
                guard let field = model.field(named: name) else {
                    // Index fields that are implicit foreign keys are checked after relations.
                    if label == "primary key" {
                        report(
                            .missingField,
                            type: model.name,
                            at: model.position,
                            "the \(label) names '\(name)', which \(model.name) does not have. Add the field or fix the name."
                        )
                    }
                    continue
                }
                if field.type.isList || field.type.kind == .model || field.type.kind == .nonModel {
                    report(
                        .invalidKey,
                        type: model.name,
                        field: name,
                        at: field.position,
                        "the \(label) uses '\(name)', which is \(field.type); key fields must be scalars or enums."
                    )
                } else if label == "primary key" && !field.type.isRequired && !implicit {
                    report(
                        .invalidKey,
                        type: model.name,
                        field: name,
                        at: field.position,
                        "primary key fields must be non-null. Write '\(name): \(field.type)!'."
                    )
                }
            }
        }
    }

    private func applyModelOptions(
        _ arguments: [String: ArgumentValue],
        to model: inout ModelType,
        at here: SourcePosition
    ) {
        if let queries = arguments["queries"] {
            if queries == .null {
                model.operations.get = nil
                model.operations.list = nil
                model.operations.sync = nil
            } else {
                if let get = queries["get"] { model.operations.get = get.text }
                if let list = queries["list"] { model.operations.list = list.text }
                if let sync = queries["sync"] { model.operations.sync = sync.text }
            }
        }
        if let mutations = arguments["mutations"] {
            if mutations == .null {
                model.operations.create = nil
                model.operations.update = nil
                model.operations.delete = nil
            } else {
                if let create = mutations["create"] { model.operations.create = create.text }
                if let update = mutations["update"] { model.operations.update = update.text }
                if let delete = mutations["delete"] { model.operations.delete = delete.text }
            }
        }
        if let subscriptions = arguments["subscriptions"] {
            if subscriptions == .null || subscriptions["level"]?.text == "off" {
                model.operations.onCreate = nil
                model.operations.onUpdate = nil
                model.operations.onDelete = nil
            } else {
                if let names = subscriptions["onCreate"] { model.operations.onCreate = names.texts?.first }
                if let names = subscriptions["onUpdate"] { model.operations.onUpdate = names.texts?.first }
                if let names = subscriptions["onDelete"] { model.operations.onDelete = names.texts?.first }
            }
        }
        if let timestamps = arguments["timestamps"] {
            if timestamps == .null {
                model.timestamps = nil
            } else {
                model.timestamps = Timestamps(
                    createdAt: timestamps["createdAt"].flatMap { $0 == .null ? nil : $0.text }
                        ?? (timestamps["createdAt"] == nil ? "createdAt" : nil),
                    updatedAt: timestamps["updatedAt"].flatMap { $0 == .null ? nil : $0.text }
                        ?? (timestamps["updatedAt"] == nil ? "updatedAt" : nil)
                )
            }
        }
    }

    // MARK: - Auth

    func authRules(
        _ arguments: [String: ArgumentValue],
        typeName: String,
        fieldName: String?,
        at here: SourcePosition
    ) -> [AuthRuleDefinition] {
        guard case .list(let values) = arguments["rules"] ?? .null else {
            report(
                .invalidArgument,
                type: typeName,
                field: fieldName,
                at: here,
                "@auth needs rules: a list such as @auth(rules: [{allow: owner}])."
            )
            return []
        }
        // `identityField`, `queries` and `mutations` are v1's; v1 reads `identityField` as `identityClaim`.
        let known = [
            "allow", "provider", "ownerField", "identityClaim", "identityField", "groupClaim", "groups", "groupsField",
            "operations", "queries", "mutations",
        ]
        var rules: [AuthRuleDefinition] = []
        for value in values {
            guard case .object(let members) = value else { continue }
            for (key, _) in members where !known.contains(key) {
                let hint = closestMatch(to: key, in: known).map { " Did you mean '\($0)'?" } ?? ""
                report(
                    .unknownArgument,
                    type: typeName,
                    field: fieldName,
                    at: here,
                    "an @auth rule has no key '\(key)'.\(hint) Rule keys: \(known.joined(separator: ", "))."
                )
            }
            guard let allowText = value["allow"]?.text, let allow = AuthRuleDefinition.Strategy(rawValue: allowText)
            else {
                report(
                    .invalidArgument,
                    type: typeName,
                    field: fieldName,
                    at: here,
                    "an @auth rule needs 'allow' set to one of: owner, groups, private, public, custom."
                )
                continue
            }
            let defaultProvider: AuthRuleDefinition.Provider =
                switch allow {
                case .owner, .groups, .private: .userPools
                case .public: .apiKey
                case .custom: .function
                }
            var provider = defaultProvider
            if let text = value["provider"]?.text {
                if let parsed = AuthRuleDefinition.Provider(rawValue: text) {
                    provider = parsed
                } else {
                    report(
                        .invalidArgument,
                        type: typeName,
                        field: fieldName,
                        at: here,
                        "unknown auth provider '\(text)'. Use one of: "
                            + AuthRuleDefinition.Provider.allCases.map(\.rawValue).joined(separator: ", ") + "."
                    )
                }
            }
            var operations: [AuthRuleDefinition.Operation] = [.create, .update, .delete, .read]
            if let texts = value["operations"]?.texts {
                operations = []
                for text in texts {
                    if let operation = AuthRuleDefinition.Operation(rawValue: text) {
                        operations.append(operation)
                    } else {
                        report(
                            .invalidArgument,
                            type: typeName,
                            field: fieldName,
                            at: here,
                            "unknown auth operation '\(text)'. Use create, update, delete, read (or get, list, sync, listen, search)."
                        )
                    }
                }
            }
            let identityClaim = value["identityClaim"]?.text ?? value["identityField"]?.text
            if value["identityField"] != nil && value["identityClaim"] != nil {
                report(
                    .invalidArgument,
                    type: typeName,
                    field: fieldName,
                    at: here,
                    "Please use consider IdentifyClaim over IdentityField as it is deprecated: this rule has both. "
                        + "Keep 'identityClaim'."
                )
            }
            if allow == .groups && identityClaim != nil {
                report(
                    .invalidArgument,
                    type: typeName,
                    field: fieldName,
                    at: here,
                    "@auth identityField/Claim can only be used for 'allow: owner'. Use 'groupClaim' for groups."
                )
            }
            if allow == .owner && value["groupClaim"] != nil {
                report(
                    .invalidArgument,
                    type: typeName,
                    field: fieldName,
                    at: here,
                    "@auth groupClaim can only be used 'allow: groups'. Use 'identityClaim' for owners."
                )
            }
            if value["groups"] != nil && value["groupsField"] != nil {
                report(
                    .invalidArgument,
                    type: typeName,
                    field: fieldName,
                    at: here,
                    "This rule has groupsField and groups, please use one or the other."
                )
            }
            rules.append(
                AuthRuleDefinition(
                    allow: allow,
                    provider: provider,
                    ownerField: value["ownerField"]?.text ?? (allow == .owner ? "owner" : nil),
                    identityClaim: identityClaim ?? (allow == .owner ? "sub::username" : nil),
                    groupClaim: value["groupClaim"]?.text ?? (allow == .groups ? "cognito:groups" : nil),
                    groups: value["groups"]?.texts ?? [],
                    groupsField: value["groupsField"]?.text,
                    operations: operations
                )
            )
        }
        return rules
    }
}
