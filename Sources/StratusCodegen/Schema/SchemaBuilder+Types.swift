import GraphQL

/// The types other than models: non-model object types, interfaces, unions and inputs, and the
/// rules that tie them together.
extension SchemaBuilder {
    /// Directives that only a `@model` type takes, with the transformer's words when it refuses them.
    static let modelOnlyTypeDirectives: [String: String] = [
        "auth": "Types annotated with @auth must also be annotated with @model.",
        "key": "Types annotated with @key must also be annotated with @model.",
        "searchable": "Types annotated with @searchable must also be annotated with @model.",
        "versioned": "Types annotated with @versioned must also be annotated with @model.",
    ]

    /// Directives that only fields of `@model` types take.
    static let modelOnlyFieldDirectives: Set<String> = [
        "hasMany", "hasOne", "belongsTo", "manyToMany", "connection", "primaryKey", "index", "default",
    ]

    func buildNonModel(_ definition: ObjectDeclaration) -> NonModelType {
        let typeName = definition.name.value
        let typeDirectives = checkedDirectives(definition.directives, typeName: typeName, fieldName: nil)
        rejectModelOnlyTypeDirectives(typeDirectives, typeName: typeName)
        let fields = buildFields(of: definition, isInterface: false)
        return NonModelType(
            name: typeName,
            fields: fields,
            awsAuth: awsAuthDirectives(typeDirectives),
            position: position(of: definition.name.loc),
            interfaces: definition.interfaces.map(\.name.value)
        )
    }

    func buildInterface(_ definition: ObjectDeclaration) -> InterfaceType {
        let typeName = definition.name.value
        let typeDirectives = checkedDirectives(definition.directives, typeName: typeName, fieldName: nil)
        rejectModelOnlyTypeDirectives(typeDirectives, typeName: typeName)
        rejectDirectives(typeDirectives, named: ["model"], typeName: typeName, fieldName: nil) { _ in
            "@model belongs on object types, and \(typeName) is an interface. Declare 'type … implements "
                + "\(typeName) @model' instead."
        }
        return InterfaceType(
            name: typeName,
            fields: buildFields(of: definition, isInterface: true),
            interfaces: definition.interfaces.map(\.name.value),
            awsAuth: awsAuthDirectives(typeDirectives),
            position: position(of: definition.name.loc)
        )
    }

    private func rejectModelOnlyTypeDirectives(_ directives: [Directive], typeName: String) {
        for directive in directives {
            guard let message = Self.modelOnlyTypeDirectives[directive.name.value] else { continue }
            report(
                .misplacedDirective,
                type: typeName,
                at: position(of: directive.loc),
                "\(message) Add @model to \(typeName), or remove @\(directive.name.value)."
            )
        }
    }

    /// The fields of a non-model type or an interface: any output type, arguments, `@function`
    /// and `@http`, `@aws_*` and static `@auth` rules.
    private func buildFields(of definition: ObjectDeclaration, isInterface: Bool) -> [Field] {
        let typeName = definition.name.value
        var fields: [Field] = []
        var seen: [String: SourcePosition] = [:]
        for fieldDefinition in definition.fields {
            let fieldName = fieldDefinition.name.value
            let here = position(of: fieldDefinition.name.loc)
            if let first = seen[fieldName] {
                report(
                    .duplicateField,
                    type: typeName,
                    field: fieldName,
                    at: here,
                    "the field '\(fieldName)' is declared twice (first at \(first)). Remove or rename one."
                )
                continue
            }
            seen[fieldName] = here
            let directives = checkedDirectives(fieldDefinition.directives, typeName: typeName, fieldName: fieldName)
            rejectDirectives(directives, named: Self.modelOnlyFieldDirectives, typeName: typeName, fieldName: fieldName)
            {
                "@\($0) works only on fields of @model types, and \(typeName) is not a @model. "
                    + "Add @model to \(typeName) or remove the directive."
            }
            rejectDirectives(directives, named: ["aws_subscribe"], typeName: typeName, fieldName: fieldName) { _ in
                "@aws_subscribe belongs on fields of the \(self.rootTypes.subscription) type. Move it there."
            }
            if isInterface {
                rejectDirectives(directives, named: ["auth"], typeName: typeName, fieldName: fieldName) { _ in
                    "The @auth directive cannot be placed on an interface's field. See \(typeName).\(fieldName). "
                        + "Put the rules on the fields of the types that implement it."
                }
                rejectDirectives(directives, named: ["function", "http"], typeName: typeName, fieldName: fieldName) {
                    "@\($0) resolves fields of object types, and \(typeName) is an interface. Put it on the "
                        + "field of each type that implements \(typeName)."
                }
            }
            guard let type = resolveType(fieldDefinition.type, typeName: typeName, fieldName: fieldName) else {
                continue
            }
            var field = Field(
                name: fieldName,
                type: type,
                relation: nil,
                defaultValue: nil,
                authRules: [],
                awsAuth: awsAuthDirectives(directives),
                isReadOnly: false,
                isImplicit: false,
                position: position(of: fieldDefinition.loc)
            )
            field.arguments = inputValues(fieldDefinition.arguments, typeName: typeName, fieldName: fieldName)
            if !isInterface {
                field.resolver = fieldResolver(directives, typeName: typeName, fieldName: fieldName)
                if let auth = directives.first(where: { $0.name.value == "auth" }) {
                    field.authRules = staticAuthRules(auth, typeName: typeName, fieldName: fieldName, isRoot: false)
                }
            }
            fields.append(field)
        }
        return fields
    }

    /// `@auth` on a field that no stored item backs (a root field, a non-model type's field):
    /// rules without `operations`, and only those Amplify enforces there, the static ones.
    func staticAuthRules(
        _ directive: Directive,
        typeName: String,
        fieldName: String,
        isRoot: Bool
    )
        -> [AuthRuleDefinition]
    {
        let here = position(of: directive.loc)
        let arguments = argumentValues(directive)
        let rules = authRules(arguments, typeName: typeName, fieldName: fieldName, at: here)
        guard case .list(let values) = arguments["rules"] ?? .null else { return rules }
        if values.contains(where: { $0["operations"] != nil }) {
            report(
                .invalidArgument,
                type: typeName,
                field: fieldName,
                at: here,
                isRoot
                    ? "@auth rules on fields within Query, Mutation, Subscription cannot specify 'operations' argument "
                        + "as these rules are already on an operation already. Remove 'operations'."
                    : "@auth rules on fields within types that does not have @model directive cannot specify "
                        + "'operations' argument as there are operations will be generated by the CLI. Remove 'operations'."
            )
        }
        for rule in rules where rule.allow == .owner || rule.groupsField != nil {
            report(
                .unsupported,
                type: typeName,
                field: fieldName,
                at: here,
                "an owner or groupsField rule compares the caller with a stored item, and \(typeName).\(fieldName) "
                    + "reads none, so Amplify would not enforce it. Use static rules here: public, private, or "
                    + "groups with a list of groups."
            )
        }
        return rules
    }

    func buildUnion(_ declaration: UnionDeclaration) -> UnionType {
        let name = declaration.name.value
        var members: [String] = []
        for member in declaration.members {
            let memberName = member.name.value
            if members.contains(memberName) {
                report(
                    .duplicateField,
                    type: name,
                    at: position(of: member.loc),
                    "the union '\(name)' names '\(memberName)' twice. Remove one."
                )
                continue
            }
            guard modelNames.contains(memberName) || nonModelNames.contains(memberName) else {
                let hint =
                    closestMatch(to: memberName, in: modelNames.union(nonModelNames)).map { " Did you mean '\($0)'?" }
                    ?? ""
                let what = kind(ofTypeNamed: memberName).map(describe) ?? "not declared"
                report(
                    .invalidArgument,
                    type: name,
                    at: position(of: member.loc),
                    "The member types of a Union type must all be Object base types, and '\(memberName)' is "
                        + "\(what).\(hint) Name object types (models or non-model types)."
                )
                continue
            }
            members.append(memberName)
        }
        return UnionType(name: name, members: members, position: position(of: declaration.name.loc))
    }

    func buildInput(_ declaration: InputDeclaration) -> InputType {
        let name = declaration.name.value
        let fields = inputValues(declaration.fields, typeName: name, fieldName: nil)
        if fields.isEmpty, declaration.fields.isEmpty {
            report(
                .invalidArgument,
                type: name,
                at: position(of: declaration.name.loc),
                "the input '\(name)' has no fields, which GraphQL does not allow. Add its fields."
            )
        }
        return InputType(name: name, fields: fields, position: position(of: declaration.name.loc))
    }

    // MARK: - Checks across types

    /// A non-model type held by a model is stored with it and written through its input: it can
    /// hold only what an input can (no models, interfaces, unions or connections), and its
    /// hand-written `<Type>Input`, if any, must be the one the API generates.
    func checkStoredValues(models: [ModelType], nonModels: [NonModelType]) {
        let byName = Dictionary(nonModels.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var visited: Set<String> = []
        func visit(_ name: String, heldBy holder: (type: String, field: String)) {
            guard !visited.contains(name), let type = byName[name] else { return }
            visited.insert(name)
            for field in type.fields {
                switch field.type.kind {
                case .nonModel:
                    visit(field.type.name, heldBy: holder)
                case .model, .interface, .union, .connection:
                    report(
                        .invalidRelation,
                        type: type.name,
                        field: field.name,
                        at: field.position,
                        "\(holder.type).\(holder.field) stores the non-model type \(name), which cannot hold "
                            + "\(describe(field.type.kind)) ('\(field.type.name)'): stored values are written "
                            + "whole through the mutation inputs. Store its id instead ('\(field.name)ID: ID'), "
                            + "or use a separate type for results."
                    )
                default:
                    break
                }
            }
        }
        for model in models {
            for field in model.fields where field.type.kind == .nonModel {
                visit(field.type.name, heldBy: (model.name, field.name))
            }
        }
        for declaration in declaredNonModelInputs {
            let name = declaration.name.value
            guard let type = byName[String(name.dropLast(5))] else { continue }
            let declared = inputValues(declaration.fields, typeName: name, fieldName: nil)
            let generated = type.fields.compactMap { field -> String? in
                switch field.type.kind {
                case .scalar, .enumeration, .customScalar: "\(field.name): \(field.type)"
                case .nonModel:
                    "\(field.name): \(field.type.description.replacingOccurrences(of: field.type.name, with: field.type.name + "Input"))"
                default: nil
                }
            }
            let written = declared.map { "\($0.name): \($0.type)" }
            if written != generated {
                reportGeneratedName(
                    declaration.name,
                    "the API generates it for the non-model type \(type.name) as { \(generated.joined(separator: ", ")) }, "
                        + "and this declaration differs"
                )
            }
        }
    }

    /// The input the API generates for a non-model type holds the fields an input can hold; a
    /// type with none has no input, which no argument can then use.
    func checkGeneratedInputUses(in schema: AnnotatedSchema) {
        let withoutInput = Set(
            schema.nonModels.filter { type in
                type.fields.allSatisfy { [.model, .interface, .union, .connection].contains($0.type.kind) }
            }.map { $0.name + "Input" }
        )
        guard !withoutInput.isEmpty else { return }
        let values =
            schema.operations.flatMap(\.arguments) + schema.inputs.flatMap(\.fields)
            + (schema.models.flatMap(\.fields) + schema.nonModels.flatMap(\.fields)).flatMap(\.arguments)
        for value in values where value.type.kind == .input && withoutInput.contains(value.type.name) {
            let type = String(value.type.name.dropLast(5))
            report(
                .unknownType,
                type: value.type.name,
                at: value.position,
                "'\(value.type.name)' is not generated: every field of \(type) holds a model, an interface, a union or "
                    + "a connection, which inputs cannot. Declare an input with the fields to pass."
            )
        }
    }

    /// Each object type has the fields of the interfaces it implements, with compatible types.
    func checkImplementations(models: [ModelType], nonModels: [NonModelType], interfaces: [InterfaceType]) {
        let byName = Dictionary(interfaces.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let objects: [(name: String, interfaces: [String], fields: [Field], position: SourcePosition)] =
            models.map { ($0.name, $0.interfaces, $0.fields, $0.position) }
            + nonModels.map { ($0.name, $0.interfaces, $0.fields, $0.position) }
            + interfaces.map { ($0.name, $0.interfaces, $0.fields, $0.position) }
        for object in objects {
            for interfaceName in object.interfaces {
                guard let interface = byName[interfaceName] else {
                    let hint =
                        closestMatch(to: interfaceName, in: interfaceNames).map { " Did you mean '\($0)'?" } ?? ""
                    report(
                        .unknownType,
                        type: object.name,
                        at: object.position,
                        "\(object.name) implements '\(interfaceName)', which is not an interface.\(hint) "
                            + "Declare 'interface \(interfaceName) { … }' or remove it."
                    )
                    continue
                }
                for required in interface.fields {
                    guard let field = object.fields.first(where: { $0.name == required.name }) else {
                        report(
                            .missingField,
                            type: object.name,
                            at: object.position,
                            "Interface field \(interfaceName).\(required.name) expected but \(object.name) does not "
                                + "provide it. Add '\(required.name): \(required.type)' to \(object.name)."
                        )
                        continue
                    }
                    if !isCompatible(field.type, with: required.type) {
                        report(
                            .invalidArgument,
                            type: object.name,
                            field: field.name,
                            at: field.position,
                            "Interface field \(interfaceName).\(required.name) expects type \(required.type) but "
                                + "\(object.name).\(field.name) is type \(field.type). Make it \(required.type)."
                        )
                    }
                }
            }
        }
    }

    /// GraphQL's covariance for implementing fields: the same or a stricter type, or a member of
    /// the expected union or interface.
    private func isCompatible(_ type: FieldType, with expected: FieldType) -> Bool {
        guard type.isList == expected.isList else { return false }
        if expected.isRequired && !type.isRequired { return false }
        if type.isList && expected.isElementRequired && !type.isElementRequired { return false }
        if type.name == expected.name { return true }
        switch expected.kind {
        case .union:
            return unionDeclarations.first { $0.name.value == expected.name }?.members
                .contains { $0.name.value == type.name } ?? false
        case .interface:
            let implementing =
                objectDeclarations.first { $0.name.value == type.name }
                ?? interfaceDeclarations.first { $0.name.value == type.name }
            return implementing?.interfaces.contains { $0.name.value == expected.name } ?? false
        default:
            return false
        }
    }

    /// A non-model type that holds itself by value, directly or through others, cannot become a struct.
    func checkNonModelCycles(_ nonModels: [NonModelType]) {
        let byName = Dictionary(nonModels.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var reported: Set<String> = []
        func visit(_ name: String, path: [(type: String, field: Field)]) {
            guard let type = byName[name] else { return }
            for field in type.fields where field.type.kind == .nonModel && !field.type.isList {
                let step = path + [(name, field)]
                if let start = step.firstIndex(where: { $0.type == field.type.name }) {
                    let cycle = step[start...]
                    let key = cycle.map(\.type).sorted().joined(separator: ",")
                    guard !reported.contains(key) else { continue }
                    reported.insert(key)
                    let chain =
                        cycle.map { "\($0.type).\($0.field.name)" }.joined(separator: " → ") + " → \(field.type.name)"
                    let first = cycle.first!
                    report(
                        .cycle,
                        type: first.type,
                        field: first.field.name,
                        at: first.field.position,
                        "\(chain) is a cycle of non-model types held by value, which cannot be generated "
                            + "(a Swift struct cannot contain itself). Make one of these fields a list, "
                            + "or make one of the types a @model and use a relation."
                    )
                } else if !path.contains(where: { $0.type == name && $0.field == field }) {
                    visit(field.type.name, path: step)
                }
            }
        }
        for type in nonModels { visit(type.name, path: []) }
    }
}
