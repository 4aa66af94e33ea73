import StratusCodegen

/// Writes the AppSync SDL of an annotated schema: what the AppSync GraphQL transformer generates
/// for it, preceded by the declarations of the AWS scalars and `@aws_*` directives that AppSync
/// knows without them, so that any GraphQL tool can read the result.
///
/// In order: the `schema` block when the root types have other names, directives, scalars (the
/// schema's own after AWS's), enums, interfaces, unions, non-model types and their inputs, the
/// schema's inputs, model types, the shared filter inputs, each enum's and each model's inputs,
/// the types of `@searchable` models' search queries, then `Query`, `Mutation`, `Subscription`, each with the generated operations before the
/// hand-written ones.
struct SDLWriter {
    let schema: AnnotatedSchema
    /// Whether a model, by name, has conflict detection.
    let detectsConflicts: @Sendable (String) -> Bool
    private var blocks: [String] = []

    init(schema: AnnotatedSchema, detectsConflicts: @escaping @Sendable (String) -> Bool) {
        self.schema = schema
        self.detectsConflicts = detectsConflicts
    }

    /// The AWS scalars.
    static let awsScalars: [Scalar] = [
        .awsDate, .awsTime, .awsDateTime, .awsTimestamp, .awsEmail, .awsJSON, .awsPhone, .awsURL, .awsIPAddress,
    ]

    /// The `@aws_*` directives AppSync understands.
    static let directives = [
        "directive @aws_subscribe(mutations: [String]) on FIELD_DEFINITION",
        "directive @aws_api_key on OBJECT | FIELD_DEFINITION",
        "directive @aws_iam on OBJECT | FIELD_DEFINITION",
        "directive @aws_oidc on OBJECT | FIELD_DEFINITION",
        "directive @aws_lambda on OBJECT | FIELD_DEFINITION",
        "directive @aws_cognito_user_pools(cognito_groups: [String]) on OBJECT | FIELD_DEFINITION",
        "directive @aws_auth(cognito_groups: [String]) on FIELD_DEFINITION",
    ]

    mutating func write() -> String {
        blocks = []
        blocks.append(Self.directives.joined(separator: "\n"))
        blocks.append(
            (Self.awsScalars.map(\.rawValue) + schema.scalars.map(\.name)).map { "scalar \($0)" }
                .joined(separator: "\n")
        )
        for enumType in schema.enums {
            block("enum \(enumType.name)", enumType.values)
        }
        for interface in schema.interfaces {
            block("interface \(interface.name)\(implements(interface.interfaces))", interface.fields.map(declaration))
        }
        for union in schema.unions {
            blocks.append("union \(union.name) = " + union.members.joined(separator: " | "))
        }
        for type in schema.nonModels {
            block("type \(type.name)\(implements(type.interfaces))", type.fields.map(declaration))
            // Fields that hold results (models, interfaces, unions) have no input form.
            let writable = type.fields.filter { ![.model, .interface, .union, .connection].contains($0.type.kind) }
            if !writable.isEmpty {
                block(
                    "input \(type.name)Input",
                    writable.map { "\($0.name): \(inputType(of: $0.type, required: $0.type.isRequired))" }
                )
            }
        }
        for input in schema.inputs {
            block("input \(input.name)", input.fields.map(render))
        }
        for model in schema.models {
            writeModelType(model)
        }
        writeSharedInputs()
        for enumType in schema.enums {
            writeEnumInputs(enumType)
        }
        for model in schema.models {
            writeModelInputs(model)
        }
        writeSearchableTypes()
        writeRootTypes()
        return blocks.joined(separator: "\n\n") + "\n"
    }

    /// ` implements A & B`, or nothing.
    private func implements(_ interfaces: [String]) -> String {
        interfaces.isEmpty ? "" : " implements " + interfaces.joined(separator: " & ")
    }

    /// A field as its type declares it: `name(arguments): Type`.
    private func declaration(_ field: Field) -> String {
        let arguments = field.arguments.isEmpty ? "" : "(" + field.arguments.map(render).joined(separator: ", ") + ")"
        return "\(field.name)\(arguments): \(field.type)"
    }

    /// An argument or input field: `name: Type = default`.
    private func render(_ value: InputValue) -> String {
        "\(value.name): \(value.type)" + (value.defaultValue.map { " = \($0)" } ?? "")
    }

    /// Appends a definition as written.
    mutating func appendBlock(_ text: String) {
        blocks.append(text)
    }

    /// Appends `header { lines }`, each line indented by two spaces.
    mutating func block(_ header: String, _ lines: [String]) {
        blocks.append(([header + " {"] + lines.map { "  " + $0 } + ["}"]).joined(separator: "\n"))
    }

    // MARK: - Model types

    private mutating func writeModelType(_ model: ModelType) {
        var lines: [String] = []
        for field in model.fields {
            if let relation = field.relation, relation.kind == .hasMany {
                let arguments = model.hasManyArguments(of: relation, in: schema)
                let type = "Model\(relation.relatedModel)Connection" + (field.type.isRequired ? "!" : "")
                lines.append("\(field.name)(\(render(arguments))): \(type)")
            } else {
                lines.append(declaration(field))
            }
        }
        if detectsConflicts(model.name) {
            lines += ["_version: Int!", "_deleted: Boolean", "_lastChangedAt: AWSTimestamp!"]
        }
        block("type \(model.name)\(implements(model.interfaces))", lines)
        block(
            "type Model\(model.name)Connection",
            ["items: [\(model.name)]!", "nextToken: String"]
                + (detectsConflicts(model.name) ? ["startedAt: AWSTimestamp"] : [])
        )
    }

    // MARK: - Root types

    private mutating func writeRootTypes() {
        var queries: [String] = []
        var mutations: [String] = []
        var subscriptions: [String] = []
        for model in schema.models {
            let operations = model.operations
            // The transformer adds the search query before the model's own queries.
            if let search = searchQuery(of: model) { queries.append(search) }
            if let get = operations.get {
                queries.append("\(get)(\(render(model.getArguments))): \(model.name)")
            }
            if let list = operations.list {
                queries.append("\(list)(\(render(model.listArguments))): Model\(model.name)Connection")
            }
            if detectsConflicts(model.name), let sync = operations.sync {
                queries.append("\(sync)(\(render(model.syncArguments))): Model\(model.name)Connection")
            }
            for index in model.indexes {
                guard let queryField = index.queryField else { continue }
                queries.append(
                    "\(queryField)(\(render(model.indexQueryArguments(index)))): Model\(model.name)Connection"
                )
            }
            let writes = [("Create", operations.create), ("Update", operations.update), ("Delete", operations.delete)]
            for case (let verb, let field?) in writes {
                mutations.append(
                    "\(field)(input: \(verb)\(model.name)Input!, condition: Model\(model.name)ConditionInput): \(model.name)"
                )
            }
            let events = [
                (operations.onCreate, operations.create), (operations.onUpdate, operations.update),
                (operations.onDelete, operations.delete),
            ]
            // A subscription whose mutation is off stays, subscribed to nothing, as clients
            // generated from the schema still ask for it.
            // Owner rules add their owner field as an argument, as the Amplify transformer does.
            var ownerArguments: [String] = []
            for rule in model.authRules where rule.allow == .owner {
                let name = rule.ownerField ?? "owner"
                guard !ownerArguments.contains(name) else { continue }
                ownerArguments.append(name)
            }
            let extra = ownerArguments.map { ", \($0): String" }.joined()
            for case (let field?, let mutation) in events {
                subscriptions.append(
                    "\(field)(filter: ModelSubscription\(model.name)FilterInput\(extra)): \(model.name) "
                        + "@aws_subscribe(mutations: [\(mutation.map { "\"\($0)\"" } ?? "")])"
                )
            }
        }
        for operation in schema.operations {
            var line = operation.name
            if !operation.arguments.isEmpty {
                line += "(" + operation.arguments.map(render).joined(separator: ", ") + ")"
            }
            line += ": \(operation.type)"
            if let mutations = operation.subscribedMutations {
                line += " @aws_subscribe(mutations: [\(mutations.map { "\"\($0)\"" }.joined(separator: ", "))])"
            }
            switch operation.kind {
            case .query: queries.append(line)
            case .mutation: mutations.append(line)
            case .subscription: subscriptions.append(line)
            }
        }
        let roots = schema.rootTypes
        block("type \(roots.query)", queries)
        if !mutations.isEmpty { block("type \(roots.mutation)", mutations) }
        if !subscriptions.isEmpty { block("type \(roots.subscription)", subscriptions) }
        if !roots.areDefault {
            // Other root type names need the schema block for GraphQL to find them.
            let operations =
                ["query: \(roots.query)"] + (mutations.isEmpty ? [] : ["mutation: \(roots.mutation)"])
                + (subscriptions.isEmpty ? [] : ["subscription: \(roots.subscription)"])
            blocks.insert((["schema {"] + operations.map { "  " + $0 } + ["}"]).joined(separator: "\n"), at: 0)
        }
    }

    func render(_ arguments: [APIArgument]) -> String {
        arguments.map { "\($0.name): \($0.type)" }.joined(separator: ", ")
    }

    /// The input form of a field type: non-model types become their `…Input`; `required` decides
    /// the outer `!`.
    func inputType(of type: FieldType, required: Bool) -> String {
        var name = type.kind == .nonModel ? type.name + "Input" : type.name
        if type.isList { name = "[\(name)\(type.isElementRequired ? "!" : "")]" }
        return required ? name + "!" : name
    }
}
