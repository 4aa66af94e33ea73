import Foundation
import GraphQL

/// Parses an annotated GraphQL schema (Amplify's `@model` dialect) into an ``AnnotatedSchema``.
///
/// It reads what Amplify's GraphQL transformers read, v2's directives and v1's alike: `@model`
/// types and their directives, enums, non-model types, hand-written `Query`, `Mutation` and
/// `Subscription` fields (with `@function`, `@http`, `@aws_subscribe` and the `@aws_*`
/// authorization directives), `input`, `interface`, `union` and `scalar` types, `extend type`,
/// a `schema { }` block, and the `input AMPLIFY { globalAuthRule: … }` sandbox rule.
///
/// ```swift
/// let schema = try SchemaParser().parse(source, fileName: "schema.graphql")
/// ```
public struct SchemaParser: Sendable {
    /// A parser; it keeps no state between schemas.
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
    var warnings: [SchemaWarning] = []

    /// Object types other than the root types, with their extensions merged, in order.
    var objectDeclarations: [ObjectDeclaration] = []
    /// The root types' declarations and extensions, by operation kind.
    var rootDeclarations: [CustomOperation.Kind: [ObjectDeclaration]] = [:]
    var interfaceDeclarations: [ObjectDeclaration] = []
    var enumDeclarations: [EnumDeclaration] = []
    var inputDeclarations: [InputDeclaration] = []
    /// Hand-written inputs named like a non-model type's generated input (`LocationInput`).
    var declaredNonModelInputs: [InputDeclaration] = []
    var unionDeclarations: [UnionDeclaration] = []
    var scalarDeclarations: [(name: String, position: SourcePosition)] = []
    var rootTypes = RootTypeNames()
    var globalAuthRule: AuthRuleDefinition?

    var modelNames: Set<String> = []
    var nonModelNames: Set<String> = []
    var enumNames: Set<String> = []
    var inputNames: Set<String> = []
    var interfaceNames: Set<String> = []
    var unionNames: Set<String> = []
    var scalarNames: Set<String> = []
    /// Types the API generates that hand-written fields may use: connections (by name, their
    /// model), inputs and enums.
    var generatedConnections: [String: String] = [:]
    var generatedInputNames: Set<String> = []
    var generatedEnumNames: Set<String> = []
    /// What each generated type is generated for ("the model Post"), for messages.
    var generatedTypeOwners: [String: String] = [:]
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

    func warn(type: String, field: String? = nil, at position: SourcePosition, _ message: String) {
        warnings.append(SchemaWarning(typeName: type, fieldName: field, position: position, message: message))
    }

    static let reservedFieldNames: Set<String> = ["_version", "_deleted", "_lastChangedAt", "_ttl"]

    func build(_ document: Document) -> AnnotatedSchema {
        collectDefinitions(document)
        let enums = enumDeclarations.map { declaration in
            EnumType(name: declaration.name.value, values: declaration.values, position: position(of: declaration.loc))
        }
        let scalars = scalarDeclarations.map { CustomScalar(name: $0.name, position: $0.position) }
        let inputs = inputDeclarations.map(buildInput)
        let interfaces = interfaceDeclarations.map(buildInterface)
        let unions = unionDeclarations.map(buildUnion)
        var models = objectDeclarations.filter { modelNames.contains($0.name.value) }.map(buildModel)
        let nonModels = objectDeclarations.filter { nonModelNames.contains($0.name.value) }.map(buildNonModel)
        applyGlobalAuthRule(to: &models)
        resolveRelations(&models)
        checkNonModelCycles(nonModels)
        checkStoredValues(models: models, nonModels: nonModels)
        models = models.map(addImplicitFields)
        checkImplementations(models: models, nonModels: nonModels, interfaces: interfaces)
        var schema = AnnotatedSchema(models: models, enums: enums, nonModels: nonModels)
        schema.rootTypes = rootTypes
        schema.inputs = inputs
        schema.interfaces = interfaces
        schema.unions = unions
        schema.scalars = scalars
        schema.globalAuthRule = globalAuthRule
        schema.operations = buildOperations(in: schema)
        rewriteHTTPArguments(in: &schema)
        checkGeneratedInputUses(in: schema)
        schema.warnings = warnings.sorted {
            ($0.position.line, $0.position.column) < ($1.position.line, $1.position.column)
        }
        return schema
    }

    func position(of location: Location?) -> SourcePosition {
        guard let token = location?.startToken else { return SourcePosition(line: 0, column: 0) }
        return SourcePosition(line: token.line, column: token.column)
    }
}

/// An object or interface type, with the fields, directives and interfaces of its `extend`
/// definitions merged in.
struct ObjectDeclaration {
    var name: Name
    var directives: [Directive]
    var fields: [FieldDefinition]
    var interfaces: [NamedType]
    var loc: Location?

    var isModel: Bool { directives.contains { $0.name.value == "model" } }
}

/// An enum type with the values of its extensions.
struct EnumDeclaration {
    var name: Name
    var values: [String]
    var loc: Location?
}

/// An input type with the fields of its extensions.
struct InputDeclaration {
    var name: Name
    var fields: [InputValueDefinition]
    var loc: Location?
}

/// A union type with the members of its extensions.
struct UnionDeclaration {
    var name: Name
    var members: [NamedType]
    var loc: Location?
}
