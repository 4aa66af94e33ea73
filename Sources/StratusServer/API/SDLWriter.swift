import StratusCodegen

/// Writes the AppSync SDL of an annotated schema: what the AppSync GraphQL transformer generates
/// for it, preceded by the declarations of the AWS scalars and `@aws_*` directives that AppSync
/// knows without them, so that any GraphQL tool can read the result.
///
/// In order: directives, scalars, enums, non-model types and their inputs, model types, the shared
/// filter inputs, each enum's and each model's inputs, then `Query`, `Mutation`, `Subscription`.
struct SDLWriter {
    let schema: AnnotatedSchema
    let conflictDetection: Bool
    private var blocks: [String] = []

    init(schema: AnnotatedSchema, conflictDetection: Bool) {
        self.schema = schema
        self.conflictDetection = conflictDetection
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
        blocks.append(Self.awsScalars.map { "scalar \($0.rawValue)" }.joined(separator: "\n"))
        for enumType in schema.enums {
            block("enum \(enumType.name)", enumType.values)
        }
        for type in schema.nonModels {
            block("type \(type.name)", type.fields.map { "\($0.name): \($0.type)" })
            block(
                "input \(type.name)Input",
                type.fields.map { "\($0.name): \(inputType(of: $0.type, required: $0.type.isRequired))" }
            )
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
        writeRootTypes()
        return blocks.joined(separator: "\n\n") + "\n"
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
                lines.append("\(field.name): \(field.type)")
            }
        }
        if conflictDetection {
            lines += ["_version: Int!", "_deleted: Boolean", "_lastChangedAt: AWSTimestamp!"]
        }
        block("type \(model.name)", lines)
        block(
            "type Model\(model.name)Connection",
            ["items: [\(model.name)]!", "nextToken: String"] + (conflictDetection ? ["startedAt: AWSTimestamp"] : [])
        )
    }

    // MARK: - Root types

    private mutating func writeRootTypes() {
        var queries: [String] = []
        var mutations: [String] = []
        var subscriptions: [String] = []
        for model in schema.models {
            let operations = model.operations
            if let get = operations.get {
                queries.append("\(get)(\(render(model.getArguments))): \(model.name)")
            }
            if let list = operations.list {
                queries.append("\(list)(\(render(model.listArguments))): Model\(model.name)Connection")
            }
            if conflictDetection, let sync = operations.sync {
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
        block("type Query", queries)
        if !mutations.isEmpty { block("type Mutation", mutations) }
        if !subscriptions.isEmpty { block("type Subscription", subscriptions) }
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
