extension SchemaBuilder {
    /// Gives each `@http` field the arguments the API declares for it, as Amplify's HTTP
    /// transformer rewrites them, and adds the inputs they use:
    ///
    /// - `:name` parameters of the URL's path become `params: <Type><Field>ParamsInput!`, one
    ///   `String!` field per parameter; with parameters, only the other arguments of scalar types
    ///   are kept for the query and the body.
    /// - The other arguments become `query: <Type><Field>QueryInput`, non-null when one of its
    ///   fields is; for any method but `GET` the fields lose their outer `!`.
    /// - For `POST`, `PUT` and `PATCH` the same fields also make `body: <Type><Field>BodyInput`.
    ///
    /// A root field whose arguments change moves to the end of its type, as the transformer
    /// puts it back there.
    ///
    /// ```graphql
    /// type Query { post(id: ID!, lang: String): Post @http(url: "https://api.example.com/posts/:id") }
    /// # is served as
    /// type Query { post(params: QueryPostParamsInput!, query: QueryPostQueryInput): Post }
    /// input QueryPostParamsInput { id: String! }
    /// input QueryPostQueryInput { lang: String }
    /// ```
    func rewriteHTTPArguments(in schema: inout AnnotatedSchema) {
        var declared = Set(
            schema.models.map(\.name) + schema.nonModels.map(\.name) + schema.enums.map(\.name)
                + schema.inputs.map(\.name) + schema.interfaces.map(\.name) + schema.unions.map(\.name)
                + schema.scalars.map(\.name)
        )
        var moved: [CustomOperation] = []
        var kept: [CustomOperation] = []
        for var operation in schema.operations {
            guard case .http(var request)? = operation.resolver else {
                kept.append(operation)
                continue
            }
            let typeName = schema.rootTypes.name(of: operation.kind)
            let rewritten = httpArguments(
                operation.arguments,
                request: &request,
                typeName: typeName,
                fieldName: operation.name,
                at: operation.position,
                inputs: &schema.inputs,
                declared: &declared
            )
            operation.resolver = .http(request)
            if let rewritten {
                operation.arguments = rewritten
                moved.append(operation)
            } else {
                kept.append(operation)
            }
        }
        schema.operations = kept + moved
        for index in schema.models.indices {
            let typeName = schema.models[index].name
            rewriteHTTPFields(
                &schema.models[index].fields,
                typeName: typeName,
                inputs: &schema.inputs,
                declared: &declared
            )
        }
        for index in schema.nonModels.indices {
            let typeName = schema.nonModels[index].name
            rewriteHTTPFields(
                &schema.nonModels[index].fields,
                typeName: typeName,
                inputs: &schema.inputs,
                declared: &declared
            )
        }
    }

    private func rewriteHTTPFields(
        _ fields: inout [Field],
        typeName: String,
        inputs: inout [InputType],
        declared: inout Set<String>
    ) {
        for index in fields.indices {
            guard case .http(var request)? = fields[index].resolver else { continue }
            if let rewritten = httpArguments(
                fields[index].arguments,
                request: &request,
                typeName: typeName,
                fieldName: fields[index].name,
                at: fields[index].position,
                inputs: &inputs,
                declared: &declared
            ) {
                fields[index].arguments = rewritten
            }
            fields[index].resolver = .http(request)
        }
    }

    /// The arguments of the `@http` field `typeName.fieldName`, or `nil` when they stay as
    /// declared (no path parameter and no argument); sets `request`'s required arguments.
    private func httpArguments(
        _ arguments: [InputValue],
        request: inout HTTPRequest,
        typeName: String,
        fieldName: String,
        at position: SourcePosition,
        inputs: inout [InputType],
        declared: inout Set<String>
    ) -> [InputValue]? {
        let prefix = Self.upperFirst(typeName) + Self.upperFirst(fieldName)
        var parameters: [String] = []
        for name in request.pathParameters where !parameters.contains(name) { parameters.append(name) }
        var rest = arguments
        var rewritten: [InputValue] = []
        func add(_ input: InputType, as argument: String, required: Bool) {
            if declared.contains(input.name) {
                report(
                    .duplicateType,
                    type: typeName,
                    field: fieldName,
                    at: position,
                    "the input '\(input.name)' is generated for the \(argument) of this @http field, and the schema "
                        + "declares a type of that name. Rename the declared type."
                )
            }
            declared.insert(input.name)
            inputs.append(input)
            let type = FieldType(
                name: input.name,
                kind: .input,
                isRequired: required,
                isList: false,
                isElementRequired: false
            )
            rewritten.append(InputValue(name: argument, type: type, defaultValue: nil, position: position))
        }
        if !parameters.isEmpty {
            rest = rest.filter { argument in
                guard case .scalar = argument.type.kind else { return false }
                return !parameters.contains(argument.name)
            }
            let fields = parameters.map { name in
                InputValue(
                    name: name,
                    type: FieldType(
                        name: "String",
                        kind: .scalar(.string),
                        isRequired: true,
                        isList: false,
                        isElementRequired: false
                    ),
                    defaultValue: nil,
                    position: position
                )
            }
            add(
                InputType(name: prefix + "ParamsInput", fields: fields, position: position),
                as: "params",
                required: true
            )
        }
        request.requiredArguments = rest.filter(\.type.isRequired).map(\.name)
        if !rest.isEmpty {
            var optional = rest
            for index in optional.indices { optional[index].type.isRequired = false }
            let queryFields = request.method == .get ? rest : optional
            let required = queryFields.contains { $0.type.isRequired }
            add(
                InputType(name: prefix + "QueryInput", fields: queryFields, position: position),
                as: "query",
                required: required
            )
            if request.method.hasBody {
                add(
                    InputType(name: prefix + "BodyInput", fields: optional, position: position),
                    as: "body",
                    required: required
                )
            }
        }
        return rewritten.isEmpty ? nil : rewritten
    }

    private static func upperFirst(_ name: String) -> String {
        name.prefix(1).uppercased() + name.dropFirst()
    }
}
