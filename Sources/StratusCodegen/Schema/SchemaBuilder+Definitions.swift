import GraphQL

/// Sorting the document's definitions into declarations: root types, `schema { }`, type
/// extensions merged into their types, `input AMPLIFY`, and the names each kind of type takes.
extension SchemaBuilder {
    /// The AWS AppSync scalars and GraphQL's own, which every API has.
    static let builtInScalarNames = Set(Scalar.allCases.map(\.rawValue))

    func collectDefinitions(_ document: Document) {
        collectRootTypeNames(document)
        var seen: [String: SourcePosition] = [:]
        var extensions: [any Definition] = []
        for definition in document.definitions {
            switch definition {
            case is SchemaDefinition:
                continue
            case let input as InputObjectTypeDefinition where input.name.value == "AMPLIFY":
                readAmplifyInput(input)
                continue
            case is TypeExtensionDefinition, is InputObjectExtensionDefinition, is EnumExtensionDefinition,
                is InterfaceExtensionDefinition, is UnionExtensionDefinition:
                extensions.append(definition)
                continue
            case let type as TypeDefinition:
                guard declare(type.name, seen: &seen) else { continue }
                add(type)
            default:
                reportUnsupported(definition)
            }
        }
        for definition in extensions {
            applyExtension(definition)
        }
        collectGeneratedNames()
        checkGeneratedNameCollisions()
    }

    /// The root type names of the `schema { }` block, if there is one.
    private func collectRootTypeNames(_ document: Document) {
        var first: SourcePosition?
        for case let definition as SchemaDefinition in document.definitions {
            let here = position(of: definition.loc)
            if let first {
                report(
                    .duplicateType,
                    type: "schema",
                    at: here,
                    "the schema block is declared twice (first at \(first)). Merge them into one."
                )
                continue
            }
            first = here
            for operation in definition.operationTypes {
                let name = operation.type.name.value
                switch operation.operation {
                case .query: rootTypes.query = name
                case .mutation: rootTypes.mutation = name
                case .subscription: rootTypes.subscription = name
                }
            }
        }
    }

    /// Registers the name of a type definition; `false` when it cannot be declared.
    private func declare(_ name: Name, seen: inout [String: SourcePosition]) -> Bool {
        let here = position(of: name.loc)
        let text = name.value
        if let first = seen[text] {
            report(
                .duplicateType,
                type: text,
                at: here,
                "the type '\(text)' is declared twice (first at \(first)). Rename one of them or merge their fields."
            )
            return false
        }
        seen[text] = here
        if Self.builtInScalarNames.contains(text) {
            report(
                .reservedName,
                type: text,
                at: here,
                "'\(text)' is one of the scalars every AppSync API has, so the schema cannot declare it "
                    + "(Amplify's transformer refuses it too). Remove this declaration."
            )
            return false
        }
        return true
    }

    private func add(_ type: TypeDefinition) {
        let name = type.name.value
        switch type {
        case let object as ObjectTypeDefinition:
            let declaration = ObjectDeclaration(
                name: object.name,
                directives: object.directives,
                fields: object.fields,
                interfaces: object.interfaces,
                loc: object.loc
            )
            if let kind = rootKind(of: name) {
                if declaration.isModel {
                    report(
                        .reservedName,
                        type: name,
                        at: position(of: object.name.loc),
                        "'\(name)' is a reserved type name and currently in use within the default schema element: "
                            + "it is the schema's \(kind.rawValue) type. Rename the @model type."
                    )
                    return
                }
                rootDeclarations[kind, default: []].append(declaration)
                return
            }
            objectDeclarations.append(declaration)
            if declaration.isModel {
                modelNames.insert(name)
            } else {
                nonModelNames.insert(name)
            }
        case let enumeration as EnumTypeDefinition:
            enumDeclarations.append(
                EnumDeclaration(
                    name: enumeration.name,
                    values: enumeration.values.map(\.name.value),
                    loc: enumeration.loc
                )
            )
            enumNames.insert(name)
        case let input as InputObjectTypeDefinition:
            inputDeclarations.append(InputDeclaration(name: input.name, fields: input.fields, loc: input.loc))
            inputNames.insert(name)
        case let interface as InterfaceTypeDefinition:
            interfaceDeclarations.append(
                ObjectDeclaration(
                    name: interface.name,
                    directives: interface.directives,
                    fields: interface.fields,
                    interfaces: interface.interfaces,
                    loc: interface.loc
                )
            )
            interfaceNames.insert(name)
        case let union as UnionTypeDefinition:
            unionDeclarations.append(UnionDeclaration(name: union.name, members: union.types, loc: union.loc))
            unionNames.insert(name)
        case let scalar as ScalarTypeDefinition:
            scalarDeclarations.append((name, position(of: scalar.name.loc)))
            scalarNames.insert(name)
        default:
            reportUnsupported(type)
        }
    }

    /// The kind of root type `name` is, if it is one.
    func rootKind(of name: String) -> CustomOperation.Kind? {
        CustomOperation.Kind.allCases.first { rootTypes.name(of: $0) == name }
    }

    private func reportUnsupported(_ definition: any Definition) {
        let what =
            switch definition {
            case is DirectiveDefinition:
                "directive definitions are not supported: Stratus knows Amplify's and AppSync's directives, "
                    + "and no others. Remove this definition."
            case is ScalarExtensionDefinition:
                "'extend scalar' is not supported: a scalar has nothing to extend here. Remove this definition."
            case is SchemaExtensionDefinition:
                "'extend schema' is not supported. Name the root types in one 'schema { }' block."
            default:
                "operations and fragments do not belong in a schema. Move them to the client's statements."
            }
        report(.unsupported, at: position(of: definition.loc), what)
    }

    // MARK: - Extensions

    /// Merges `extend type`, `extend input`, `extend enum`, `extend interface` and `extend union`
    /// into the types they extend, as Amplify folds them in before transforming.
    private func applyExtension(_ definition: any Definition) {
        switch definition {
        case let object as TypeExtensionDefinition:
            let base = object.definition
            let name = base.name.value
            if let kind = rootKind(of: name) {
                // The generated operations make every root type exist.
                rootDeclarations[kind, default: []].append(
                    ObjectDeclaration(
                        name: base.name,
                        directives: base.directives,
                        fields: base.fields,
                        interfaces: base.interfaces,
                        loc: base.loc
                    )
                )
            } else if let index = objectDeclarations.firstIndex(where: { $0.name.value == name }) {
                merge(base.fields, base.directives, base.interfaces, into: &objectDeclarations[index])
            } else {
                reportMissingBase(of: base.name, keyword: "type")
            }
        case let interface as InterfaceExtensionDefinition:
            let base = interface.definition
            if let index = interfaceDeclarations.firstIndex(where: { $0.name.value == base.name.value }) {
                merge(base.fields, base.directives, base.interfaces, into: &interfaceDeclarations[index])
            } else {
                reportMissingBase(of: base.name, keyword: "interface")
            }
        case let input as InputObjectExtensionDefinition:
            let base = input.definition
            if let index = inputDeclarations.firstIndex(where: { $0.name.value == base.name.value }) {
                inputDeclarations[index].fields += base.fields
            } else {
                reportMissingBase(of: base.name, keyword: "input")
            }
        case let enumeration as EnumExtensionDefinition:
            let base = enumeration.definition
            if let index = enumDeclarations.firstIndex(where: { $0.name.value == base.name.value }) {
                enumDeclarations[index].values += base.values.map(\.name.value)
            } else {
                reportMissingBase(of: base.name, keyword: "enum")
            }
        case let union as UnionExtensionDefinition:
            let base = union.definition
            if let index = unionDeclarations.firstIndex(where: { $0.name.value == base.name.value }) {
                unionDeclarations[index].members += base.types
            } else {
                reportMissingBase(of: base.name, keyword: "union")
            }
        default:
            break
        }
    }

    /// Adds an extension's fields, directives and interfaces. A directive the type already has
    /// is kept once, as Amplify keeps it; a field declared twice is reported where the fields
    /// are built.
    private func merge(
        _ fields: [FieldDefinition],
        _ directives: [Directive],
        _ interfaces: [NamedType],
        into declaration: inout ObjectDeclaration
    ) {
        declaration.fields += fields
        let known = Set(declaration.directives.map(\.name.value))
        declaration.directives += directives.filter { !known.contains($0.name.value) }
        declaration.interfaces += interfaces
    }

    private func reportMissingBase(of name: Name, keyword: String) {
        report(
            .unknownType,
            type: name.value,
            at: position(of: name.loc),
            "Cannot extend nonexistent type '\(name.value)'. Declare '\(keyword) \(name.value) { … }' first, "
                + "or write these fields in it."
        )
    }

    // MARK: - Generated names

    /// The names of the types the API generates for the declared models, enums and non-model
    /// types, which hand-written fields may use.
    private func collectGeneratedNames() {
        generatedEnumNames = ["ModelSortDirection", "ModelAttributeTypes"]
        var owners: [String: String] = [:]
        for name in ["ModelSizeInput", "ModelSortDirection", "ModelAttributeTypes"] { owners[name] = "every schema" }
        for scalar in ["String", "ID", "Int", "Float", "Boolean"] {
            for name in ["Model\(scalar)Input", "ModelSubscription\(scalar)Input", "Model\(scalar)KeyConditionInput"] {
                owners[name] = "every schema"
            }
        }
        for model in modelNames {
            generatedConnections["Model\(model)Connection"] = model
            for name in [
                "Model\(model)FilterInput", "Model\(model)ConditionInput", "Create\(model)Input",
                "Update\(model)Input", "Delete\(model)Input", "ModelSubscription\(model)FilterInput",
            ] {
                owners[name] = "the model \(model)"
            }
        }
        for enumeration in enumNames {
            owners["Model\(enumeration)Input"] = "the enum \(enumeration)"
            owners["Model\(enumeration)ListInput"] = "the enum \(enumeration)"
        }
        for nonModel in nonModelNames {
            owners["\(nonModel)Input"] = "the non-model type \(nonModel)"
        }
        generatedTypeOwners = owners
        generatedInputNames = Set(owners.keys).subtracting(generatedEnumNames)
    }

    /// A hand-written type named like a generated one is the generated type written out when it
    /// has the same fields (a connection may leave some out), and is then dropped; otherwise the
    /// schema must rename it.
    private func checkGeneratedNameCollisions() {
        objectDeclarations.removeAll { declaration in
            let name = declaration.name.value
            if let model = generatedConnections[name] {
                return acceptsDeclaredConnection(declaration, of: model)
            }
            guard let owner = generatedTypeOwners[name] else { return false }
            reportGeneratedName(declaration.name, "the API generates it for \(owner)")
            nonModelNames.remove(name)
            modelNames.remove(name)
            return true
        }
        inputDeclarations.removeAll { declaration in
            let name = declaration.name.value
            if name.hasSuffix("Input"), nonModelNames.contains(String(name.dropLast(5))) {
                // Compared with the non-model type's input once its fields are known.
                declaredNonModelInputs.append(declaration)
                inputNames.remove(name)
                return true
            }
            guard let owner = generatedTypeOwners[name] ?? generatedConnections[name].map({ "the model \($0)" }) else {
                return false
            }
            reportGeneratedName(declaration.name, "the API generates it for \(owner)")
            inputNames.remove(name)
            return true
        }
        for declaration in enumDeclarations where generatedEnumNames.contains(declaration.name.value) {
            reportGeneratedName(declaration.name, "the API generates it for every schema")
        }
        enumDeclarations.removeAll { generatedEnumNames.contains($0.name.value) }
    }

    /// Whether a hand-written `Model<M>Connection` is the generated one: `items` a list of `M`,
    /// `nextToken: String`, `startedAt: AWSTimestamp`, any of them left out. Reports it otherwise.
    private func acceptsDeclaredConnection(_ declaration: ObjectDeclaration, of model: String) -> Bool {
        let name = declaration.name.value
        for field in declaration.fields {
            let type = Self.baseTypeName(field.type)
            let isList = Self.isList(field.type)
            let matches =
                switch field.name.value {
                case "items": isList && type == model
                case "nextToken": !isList && type == "String"
                case "startedAt": !isList && type == "AWSTimestamp"
                default: false
                }
            guard matches else {
                reportGeneratedName(
                    declaration.name,
                    "the API generates it for the model \(model) (items: [\(model)]!, nextToken: String, "
                        + "startedAt: AWSTimestamp), and this declaration differs at '\(field.name.value)'"
                )
                nonModelNames.remove(name)
                return true
            }
        }
        nonModelNames.remove(name)
        return true
    }

    /// Reports a hand-written type that takes a generated type's name, with the rename to make.
    func reportGeneratedName(_ name: Name, _ reason: String) {
        let text = name.value
        report(
            .reservedName,
            type: text,
            at: position(of: name.loc),
            "'\(text)' is a reserved name: \(reason). Rename the type to '\(suggestedRename(of: text))', "
                + "with every field that uses it."
        )
    }

    /// A free name for a type whose name is taken: without its `Model` prefix, or with `Custom`
    /// in front.
    func suggestedRename(of name: String) -> String {
        let taken =
            modelNames.union(nonModelNames).union(enumNames).union(inputNames).union(interfaceNames)
            .union(unionNames).union(scalarNames).union(generatedInputNames).union(generatedEnumNames)
            .union(generatedConnections.keys)
        if name.hasPrefix("Model"), name.count > 5 {
            let stripped = String(name.dropFirst(5))
            if !taken.contains(stripped), stripped.first?.isUppercase == true { return stripped }
        }
        var candidate = "Custom" + name
        while taken.contains(candidate) { candidate = "Custom" + candidate }
        return candidate
    }

    static func baseTypeName(_ type: any GraphQL.`Type`) -> String {
        switch type {
        case let named as NamedType: return named.name.value
        case let list as ListType: return baseTypeName(list.type)
        case let nonNull as NonNullType: return baseTypeName(nonNull.type)
        default: return ""
        }
    }

    static func isList(_ type: any GraphQL.`Type`) -> Bool {
        switch type {
        case is ListType: return true
        case let nonNull as NonNullType: return isList(nonNull.type)
        default: return false
        }
    }
}
