import GraphQL

/// What every kind of field shares: its type, its directives, its arguments and the function or
/// HTTP request that computes it.
extension SchemaBuilder {
    /// Where a type is used: output types for fields, input types for arguments.
    enum TypeUsage {
        case output
        case input
    }

    /// Every type name a field may use, for suggestions.
    var knownTypeNames: [String] {
        Scalar.allCases.map(\.rawValue) + enumNames.sorted() + modelNames.sorted() + nonModelNames.sorted()
            + inputNames.sorted() + interfaceNames.sorted() + unionNames.sorted() + scalarNames.sorted()
    }

    func resolveType(
        _ type: any GraphQL.`Type`,
        typeName: String,
        fieldName: String,
        usage: TypeUsage = .output
    ) -> FieldType? {
        var isRequired = false
        var isList = false
        var isElementRequired = false
        var current: any GraphQL.`Type` = type
        if let nonNull = current as? NonNullType {
            isRequired = true
            current = nonNull.type
        }
        if let list = current as? ListType {
            isList = true
            current = list.type
            if let nonNull = current as? NonNullType {
                isElementRequired = true
                current = nonNull.type
            }
        }
        guard let named = current as? NamedType else {
            report(
                .unsupported,
                type: typeName,
                field: fieldName,
                at: position(of: type.loc),
                "lists of lists are not supported. Wrap the inner list in a non-model type."
            )
            return nil
        }
        let name = named.name.value
        guard let kind = kind(ofTypeNamed: name) else {
            let hint = closestMatch(to: name, in: knownTypeNames).map { " Did you mean '\($0)'?" } ?? ""
            report(
                .unknownType,
                type: typeName,
                field: fieldName,
                at: position(of: named.loc),
                "the type '\(name)' is not declared.\(hint) Declare it, or use a GraphQL or AWS scalar."
            )
            return nil
        }
        let fieldType = FieldType(
            name: name,
            kind: kind,
            isRequired: isRequired,
            isList: isList,
            isElementRequired: isElementRequired
        )
        switch (usage, kind) {
        case (.output, .input):
            report(
                .invalidArgument,
                type: typeName,
                field: fieldName,
                at: position(of: named.loc),
                "'\(name)' is an input type, which only arguments take. Return an object type instead, "
                    + "such as a non-model type with the same fields."
            )
            return nil
        case (.input, .model), (.input, .nonModel), (.input, .interface), (.input, .union), (.input, .connection):
            let suggestion =
                kind == .model
                ? "such as Create\(name)Input, or declare 'input \(name)Input { … }'"
                : "such as '\(name)Input'"
            report(
                .invalidArgument,
                type: typeName,
                field: fieldName,
                at: position(of: named.loc),
                "arguments take input types, scalars and enums, and '\(name)' is \(describe(kind)). "
                    + "Use an input type, \(suggestion)."
            )
            return nil
        default:
            return fieldType
        }
    }

    /// What a type name refers to, `nil` for an undeclared one.
    func kind(ofTypeNamed name: String) -> FieldType.Kind? {
        if let scalar = Scalar(rawValue: name) { return .scalar(scalar) }
        if enumNames.contains(name) || generatedEnumNames.contains(name) { return .enumeration }
        if scalarNames.contains(name) { return .customScalar }
        if modelNames.contains(name) { return .model }
        if nonModelNames.contains(name) { return .nonModel }
        if generatedConnections[name] != nil { return .connection }
        if interfaceNames.contains(name) { return .interface }
        if unionNames.contains(name) { return .union }
        if inputNames.contains(name) || generatedInputNames.contains(name) { return .input }
        return nil
    }

    /// "a @model type", "the interface"…, for messages.
    func describe(_ kind: FieldType.Kind) -> String {
        switch kind {
        case .scalar: "a scalar"
        case .enumeration: "an enum"
        case .customScalar: "a custom scalar"
        case .model: "a @model type"
        case .nonModel: "a non-model type"
        case .connection: "a connection type"
        case .interface: "an interface"
        case .union: "a union"
        case .input: "an input type"
        }
    }

    // MARK: - Directives

    /// Checks a field's or type's directives against ``DirectiveSpec`` and returns the known ones.
    func checkedDirectives(_ directives: [Directive], typeName: String, fieldName: String?) -> [Directive] {
        var result: [Directive] = []
        for directive in directives {
            let name = directive.name.value
            let here = position(of: directive.loc)
            guard let spec = DirectiveSpec.all[name] else {
                let hint = closestMatch(to: name, in: DirectiveSpec.all.keys).map { " Did you mean '@\($0)'?" } ?? ""
                report(
                    .unknownDirective,
                    type: typeName,
                    field: fieldName,
                    at: here,
                    "unknown directive '@\(name)'.\(hint) Supported directives: "
                        + DirectiveSpec.all.keys.sorted().map { "@\($0)" }.joined(separator: ", ") + "."
                )
                continue
            }
            let onField = fieldName != nil
            if (spec.location == .type && onField) || (spec.location == .field && !onField) {
                report(
                    .misplacedDirective,
                    type: typeName,
                    field: fieldName,
                    at: here,
                    "@\(name) belongs on \(onField ? "a type" : "a field"), not on \(onField ? "a field" : "a type"). Move it."
                )
                continue
            }
            var valid = true
            for argument in directive.arguments where !spec.arguments.contains(argument.name.value) {
                valid = false
                let hint =
                    closestMatch(to: argument.name.value, in: spec.arguments).map { " Did you mean '\($0)'?" } ?? ""
                let allowed = spec.arguments.isEmpty ? "none" : spec.arguments.joined(separator: ", ")
                report(
                    .unknownArgument,
                    type: typeName,
                    field: fieldName,
                    at: position(of: argument.loc),
                    "@\(name) has no argument '\(argument.name.value)'.\(hint) Its arguments: \(allowed)."
                )
            }
            if valid { result.append(directive) }
        }
        return result
    }

    /// Reports each of `directives` named in `names`, which do not belong where they are.
    func rejectDirectives(
        _ directives: [Directive],
        named names: Set<String>,
        typeName: String,
        fieldName: String?,
        _ reason: (String) -> String
    ) {
        for directive in directives where names.contains(directive.name.value) {
            report(
                .misplacedDirective,
                type: typeName,
                field: fieldName,
                at: position(of: directive.loc),
                reason(directive.name.value)
            )
        }
    }

    /// The `@aws_*` authorization directives among `directives`.
    func awsAuthDirectives(_ directives: [Directive]) -> [AWSAuthDirective] {
        directives.compactMap {
            AWSAuthDirective.parse(name: $0.name.value, cognitoGroups: argumentValues($0)["cognito_groups"]?.texts)
        }
    }

    // MARK: - Arguments

    /// The arguments of a field, each an input type.
    func inputValues(_ definitions: [InputValueDefinition], typeName: String, fieldName: String?) -> [InputValue] {
        var seen: [String: SourcePosition] = [:]
        var values: [InputValue] = []
        for definition in definitions {
            let name = definition.name.value
            let here = position(of: definition.name.loc)
            let owner = fieldName.map { "\(typeName).\($0)" } ?? typeName
            if let first = seen[name] {
                report(
                    .duplicateField,
                    type: typeName,
                    field: fieldName ?? name,
                    at: here,
                    "'\(name)' is declared twice in \(owner) (first at \(first)). Remove or rename one."
                )
                continue
            }
            seen[name] = here
            if !definition.directives.isEmpty {
                _ = checkedDirectives(definition.directives, typeName: typeName, fieldName: fieldName ?? name)
            }
            guard
                let type = resolveType(definition.type, typeName: typeName, fieldName: fieldName ?? name, usage: .input)
            else { continue }
            values.append(
                InputValue(
                    name: name,
                    type: type,
                    defaultValue: definition.defaultValue.map { ArgumentValue($0).literal },
                    position: here
                )
            )
        }
        return values
    }

    // MARK: - Resolvers

    /// The `@function` pipeline or `@http` request among a field's directives.
    func fieldResolver(_ directives: [Directive], typeName: String, fieldName: String) -> FieldResolver? {
        let functionDirectives = directives.filter { $0.name.value == "function" }
        let httpDirectives = directives.filter { $0.name.value == "http" }
        if !functionDirectives.isEmpty, let http = httpDirectives.first {
            report(
                .invalidArgument,
                type: typeName,
                field: fieldName,
                at: position(of: http.loc),
                "a field is resolved by @function or by @http, and this one has both. Keep one, or call the HTTP "
                    + "endpoint from the function."
            )
            return nil
        }
        if httpDirectives.count > 1 {
            report(
                .invalidArgument,
                type: typeName,
                field: fieldName,
                at: position(of: httpDirectives[1].loc),
                "@http is not repeatable: a field makes one HTTP request. Keep one."
            )
            return nil
        }
        if let http = httpDirectives.first {
            return httpRequest(http, typeName: typeName, fieldName: fieldName).map(FieldResolver.http)
        }
        let invocations = functionDirectives.compactMap {
            functionInvocation($0, typeName: typeName, fieldName: fieldName)
        }
        guard !invocations.isEmpty, invocations.count == functionDirectives.count else { return nil }
        checkEventInvocation(invocations, functionDirectives, typeName: typeName, fieldName: fieldName)
        return .functions(invocations)
    }

    private func functionInvocation(_ directive: Directive, typeName: String, fieldName: String) -> FunctionInvocation?
    {
        let arguments = argumentValues(directive)
        let here = position(of: directive.loc)
        guard case .string(let name)? = arguments["name"], !name.isEmpty else {
            report(
                .invalidArgument,
                type: typeName,
                field: fieldName,
                at: here,
                "@function needs the function's name, such as @function(name: \"echo-${env}\")."
            )
            return nil
        }
        var invocationType = FunctionInvocation.InvocationType.requestResponse
        if let text = arguments["invocationType"]?.text {
            guard let parsed = FunctionInvocation.InvocationType(rawValue: text) else {
                report(
                    .invalidArgument,
                    type: typeName,
                    field: fieldName,
                    at: here,
                    "@function(invocationType:) is RequestResponse or Event, not '\(text)'."
                )
                return nil
            }
            invocationType = parsed
        }
        return FunctionInvocation(
            name: name,
            region: arguments["region"]?.text,
            accountId: arguments["accountId"]?.text,
            invocationType: invocationType
        )
    }

    /// Amplify's rules for `invocationType: Event`: on a query or mutation, and when the last
    /// function is an event, the result is `EventInvocationResponse`.
    private func checkEventInvocation(
        _ invocations: [FunctionInvocation],
        _ directives: [Directive],
        typeName: String,
        fieldName: String
    ) {
        guard let index = invocations.firstIndex(where: { $0.invocationType == .event }) else { return }
        let here = position(of: directives[index].loc)
        let kind = rootKind(of: typeName)
        if kind != .query && kind != .mutation {
            report(
                .invalidArgument,
                type: typeName,
                field: fieldName,
                at: here,
                "Event invocationType for @function is only supported on Query and Mutation fields."
            )
        }
    }

    private func httpRequest(_ directive: Directive, typeName: String, fieldName: String) -> HTTPRequest? {
        let arguments = argumentValues(directive)
        let here = position(of: directive.loc)
        guard case .string(let url)? = arguments["url"], !url.isEmpty else {
            report(
                .invalidArgument,
                type: typeName,
                field: fieldName,
                at: here,
                "@http needs the URL to call, such as @http(url: \"https://api.example.com/items/:id\")."
            )
            return nil
        }
        var method = HTTPRequest.Method.get
        if let text = arguments["method"]?.text {
            guard let parsed = HTTPRequest.Method(rawValue: text) else {
                report(
                    .invalidArgument,
                    type: typeName,
                    field: fieldName,
                    at: here,
                    "@http(method:) is one of GET, POST, PUT, DELETE, PATCH, not '\(text)'."
                )
                return nil
            }
            method = parsed
        }
        guard url.hasPrefix("http://") || url.hasPrefix("https://") else {
            report(
                .invalidArgument,
                type: typeName,
                field: fieldName,
                at: here,
                "@http(url:) must be an absolute URL starting with http:// or https://, not '\(url)'."
            )
            return nil
        }
        var headers: [HTTPRequest.Header] = []
        if case .list(let values)? = arguments["headers"] {
            for value in values {
                guard let key = value["key"]?.text, let headerValue = value["value"]?.text else {
                    report(
                        .invalidArgument,
                        type: typeName,
                        field: fieldName,
                        at: here,
                        "each @http header is { key: \"…\", value: \"…\" }."
                    )
                    return nil
                }
                headers.append(HTTPRequest.Header(key: key, value: headerValue))
            }
        }
        return HTTPRequest(url: url, method: method, headers: headers)
    }
}
