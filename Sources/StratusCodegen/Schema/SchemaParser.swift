import Foundation
import GraphQL

/// Parses an annotated GraphQL schema (Amplify's `@model` dialect) into an ``AnnotatedSchema``.
///
/// ```swift
/// let schema = try SchemaParser().parse(source, fileName: "schema.graphql")
/// ```
public struct SchemaParser: Sendable {
    public init() {}

    /// Parses, validates and resolves `source`.
    ///
    /// - Throws: ``SchemaError`` listing every problem found, each with its line and column.
    public func parse(_ source: String, fileName: String = "schema.graphql") throws(SchemaError) -> AnnotatedSchema {
        let builder = SchemaBuilder(fileName: fileName)
        let document: Document
        do {
            document = try GraphQL.parse(source: Source(body: source, name: fileName))
        } catch {
            let graphQLError = error as? GraphQLError
            let location = graphQLError?.locations.first.map { SourcePosition(line: $0.line, column: $0.column) }
            var message = String((graphQLError?.message ?? String(describing: error)).prefix { $0 != "\n" })
            if let range = message.range(of: #"^Syntax Error .*?\(\d+:\d+\) "#, options: .regularExpression) {
                message.removeSubrange(range)
            }
            message = message.trimmingCharacters(in: CharacterSet(charactersIn: ". "))
            builder.report(.syntax, at: location, "\(message). Fix the GraphQL syntax at this position.")
            throw builder.error
        }
        let schema = builder.build(document)
        guard builder.problems.isEmpty else { throw builder.error }
        return schema
    }
}

/// Collects problems while turning the GraphQL AST into an ``AnnotatedSchema``.
final class SchemaBuilder {
    let fileName: String
    private(set) var problems: [SchemaError.Problem] = []

    var objectDefinitions: [ObjectTypeDefinition] = []
    var enumDefinitions: [EnumTypeDefinition] = []
    var modelNames: Set<String> = []
    var nonModelNames: Set<String> = []
    var enumNames: Set<String> = []
    var pendingRelations: [PendingKey: PendingRelation] = [:]

    /// A model's field, as a dictionary key.
    struct PendingKey: Hashable {
        var model: String
        var field: String
    }

    /// A relation directive on a field, kept until every model is known.
    struct PendingRelation {
        var directive: String
        var arguments: [String: ArgumentValue]
        var position: SourcePosition
    }

    init(fileName: String) {
        self.fileName = fileName
    }

    var error: SchemaError {
        SchemaError(
            problems: problems.sorted {
                ($0.position?.line ?? 0, $0.position?.column ?? 0) < ($1.position?.line ?? 0, $1.position?.column ?? 0)
            },
            fileName: fileName
        )
    }

    func report(
        _ code: SchemaError.Problem.Code,
        type: String? = nil,
        field: String? = nil,
        at position: SourcePosition?,
        _ message: String
    ) {
        problems.append(
            SchemaError.Problem(code: code, typeName: type, fieldName: field, position: position, message: message)
        )
    }

    static let reservedTypeNames: Set<String> = [
        "Query", "Mutation", "Subscription", "Model", "List", "Temporal", "JSONValue", "AmplifyModels",
        "ModelSchema", "ModelField", "ModelKey", "Persistable", "Embeddable", "ModelAttributeTypes",
        "ModelSizeInput", "ModelSortDirection",
    ]

    static let reservedFieldNames: Set<String> = ["_version", "_deleted", "_lastChangedAt", "_ttl"]

    func build(_ document: Document) -> AnnotatedSchema {
        collectDefinitions(document)
        let enums = enumDefinitions.map { definition in
            EnumType(
                name: definition.name.value,
                values: definition.values.map(\.name.value),
                position: position(of: definition.loc)
            )
        }
        var models = objectDefinitions.filter { modelNames.contains($0.name.value) }.map(buildModel)
        let nonModels = objectDefinitions.filter { nonModelNames.contains($0.name.value) }.map(buildNonModel)
        resolveRelations(&models)
        checkNonModelCycles(nonModels)
        models = models.map(addImplicitFields)
        return AnnotatedSchema(models: models, enums: enums, nonModels: nonModels)
    }

    func position(of location: Location?) -> SourcePosition {
        guard let token = location?.startToken else { return SourcePosition(line: 0, column: 0) }
        return SourcePosition(line: token.line, column: token.column)
    }

    // MARK: - Definitions

    private func collectDefinitions(_ document: Document) {
        var seen: [String: SourcePosition] = [:]
        for definition in document.definitions {
            let name: Name
            switch definition {
            case let object as ObjectTypeDefinition:
                name = object.name
            case let enumeration as EnumTypeDefinition:
                name = enumeration.name
            case let other as TypeDefinition:
                let kind = String(describing: other.kind).replacingOccurrences(of: "TypeDefinition", with: "")
                report(
                    .unsupported,
                    at: position(of: other.loc),
                    "\(kind) type definitions are not supported in an annotated schema. "
                        + "Use @model types, non-model object types and enums."
                )
                continue
            default:
                report(
                    .unsupported,
                    at: position(of: definition.loc),
                    "only type and enum definitions are supported in an annotated schema; remove this definition."
                )
                continue
            }
            let here = position(of: name.loc)
            if let first = seen[name.value] {
                report(
                    .duplicateType,
                    type: name.value,
                    at: here,
                    "the type '\(name.value)' is declared twice (first at \(first)). Rename one of them or merge their fields."
                )
                continue
            }
            seen[name.value] = here
            if Self.reservedTypeNames.contains(name.value) || Scalar(rawValue: name.value) != nil
                || isGeneratedTypeName(name.value)
            {
                report(
                    .reservedName,
                    type: name.value,
                    at: here,
                    "'\(name.value)' is a reserved name: Stratus generates it or uses it in generated code. Rename the type."
                )
                continue
            }
            if let object = definition as? ObjectTypeDefinition {
                objectDefinitions.append(object)
                if object.directives.contains(where: { $0.name.value == "model" }) {
                    modelNames.insert(name.value)
                } else {
                    nonModelNames.insert(name.value)
                }
            } else if let enumeration = definition as? EnumTypeDefinition {
                enumDefinitions.append(enumeration)
                enumNames.insert(name.value)
            }
        }
    }

    private func isGeneratedTypeName(_ name: String) -> Bool {
        guard name.hasPrefix("Model"), name.count > 5 else { return false }
        return ["Connection", "FilterInput", "ConditionInput", "Input"].contains(where: name.hasSuffix)
    }

    // MARK: - Fields

    func resolveType(_ type: any GraphQL.`Type`, typeName: String, fieldName: String) -> FieldType? {
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
        let kind: FieldType.Kind
        if let scalar = Scalar(rawValue: name) {
            kind = .scalar(scalar)
        } else if enumNames.contains(name) {
            kind = .enumeration
        } else if modelNames.contains(name) {
            kind = .model
        } else if nonModelNames.contains(name) {
            kind = .nonModel
        } else {
            let known =
                Scalar.allCases.map(\.rawValue) + enumNames.sorted() + modelNames.sorted() + nonModelNames.sorted()
            let hint = closestMatch(to: name, in: known).map { " Did you mean '\($0)'?" } ?? ""
            report(
                .unknownType,
                type: typeName,
                field: fieldName,
                at: position(of: named.loc),
                "the type '\(name)' is not declared.\(hint) Declare it, or use a GraphQL or AWS scalar."
            )
            return nil
        }
        return FieldType(
            name: name,
            kind: kind,
            isRequired: isRequired,
            isList: isList,
            isElementRequired: isElementRequired
        )
    }

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

    /// The `@aws_*` authorization directives among `directives`.
    func awsAuthDirectives(_ directives: [Directive]) -> [AWSAuthDirective] {
        directives.compactMap {
            AWSAuthDirective.parse(name: $0.name.value, cognitoGroups: argumentValues($0)["cognito_groups"]?.texts)
        }
    }

    private func buildNonModel(_ definition: ObjectTypeDefinition) -> NonModelType {
        let typeName = definition.name.value
        let typeDirectives = checkedDirectives(definition.directives, typeName: typeName, fieldName: nil)
        var fields: [Field] = []
        for fieldDefinition in definition.fields {
            let fieldName = fieldDefinition.name.value
            let directives = checkedDirectives(fieldDefinition.directives, typeName: typeName, fieldName: fieldName)
            guard let type = resolveType(fieldDefinition.type, typeName: typeName, fieldName: fieldName) else {
                continue
            }
            for directive in directives
            where ["hasMany", "hasOne", "belongsTo", "manyToMany", "connection", "primaryKey", "index"]
                .contains(directive.name.value)
            {
                report(
                    .misplacedDirective,
                    type: typeName,
                    field: fieldName,
                    at: position(of: directive.loc),
                    "@\(directive.name.value) works only on fields of @model types, and \(typeName) is not a @model. "
                        + "Add @model to \(typeName) or remove the directive."
                )
            }
            if type.kind == .model {
                report(
                    .invalidRelation,
                    type: typeName,
                    field: fieldName,
                    at: position(of: fieldDefinition.loc),
                    "a non-model type cannot hold the @model type '\(type.name)'. Store its id instead (\(fieldName)ID: ID)."
                )
                continue
            }
            fields.append(
                Field(
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
            )
        }
        return NonModelType(
            name: typeName,
            fields: fields,
            awsAuth: awsAuthDirectives(typeDirectives),
            position: position(of: definition.name.loc)
        )
    }

    /// A non-model type that holds itself by value, directly or through others, cannot become a struct.
    private func checkNonModelCycles(_ nonModels: [NonModelType]) {
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
