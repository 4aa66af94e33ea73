import Foundation
import GraphQL

/// The API a client's statements run against, as GraphQL SDL: what `stratus codegen types`
/// checks statements with and takes types from.
///
/// Comes from a plain SDL (the schema of the deployed API), or from an introspection result
/// (`schema.json`, as the AppSync console exports it). An annotated Amplify schema is first
/// turned into its API, as `stratus serve` does (`ServerAPI(schema:).sdl`).
///
/// ```swift
/// let schema = try APISchema(sdl: source, fileName: "schema.graphql")
/// let swift = try TypesGenerator().generate(schema: schema, statements: files)
/// ```
public struct APISchema: Sendable {
    let schema: GraphQLSchema
    /// The SDL the schema was built from.
    public let sdl: String

    /// Builds the API from SDL.
    ///
    /// - Throws: ``TypesError`` naming the line and column of a syntax error, or saying why the
    ///   SDL does not make a schema.
    public init(sdl: String, fileName: String) throws(TypesError) {
        self.sdl = sdl
        do {
            schema = try buildSchema(source: Source(body: sdl, name: fileName))
        } catch let error as GraphQLError {
            guard error.locations.isEmpty, let document = try? parse(source: Source(body: sdl, name: fileName)) else {
                let location = error.locations.first
                throw TypesError(file: fileName, line: location?.line, column: location?.column, error.message)
            }
            // Validation problems come joined and without places: find each one's node again.
            throw TypesError(
                SDLProblemPlaces.problems(joinedMessage: error.message, document: document, file: fileName)
            )
        } catch {
            throw TypesError(file: fileName, "The schema cannot be built: \(error)")
        }
        guard schema.queryType != nil else {
            throw TypesError(
                file: fileName,
                "The schema has no Query type. Pass the API's schema, with its root types."
            )
        }
    }

    /// Builds the API from an introspection result: `{"data": {"__schema": …}}` as the AppSync
    /// console exports `schema.json`, or `{"__schema": …}`.
    ///
    /// - Throws: ``TypesError`` when the JSON is not an introspection result.
    public init(introspection json: Data, fileName: String) throws(TypesError) {
        let sdl = try IntrospectionSDL.sdl(fromJSON: json, fileName: fileName)
        try self.init(sdl: sdl, fileName: fileName)
    }

    /// Whether `source` is an annotated Amplify schema rather than an API's SDL: it has a type
    /// with `@model`, the `input AMPLIFY` header, or a directive Amplify's transformers apply
    /// (`@function`, `@auth`…), or it uses directives it does not declare, as annotated schemas
    /// do with AppSync's `@aws_*` and an API's SDL cannot.
    public static func isAnnotated(_ source: String) -> Bool {
        guard let document = try? parse(source: source) else {
            // Not GraphQL at all: the annotated schema parser reports the syntax error best.
            return true
        }
        var declared: Set<String> = ["deprecated", "skip", "include", "specifiedBy"]
        var used: Set<String> = []
        func use(_ directives: [Directive], fields: [FieldDefinition] = []) {
            used.formUnion(directives.map(\.name.value))
            for field in fields { used.formUnion(field.directives.map(\.name.value)) }
        }
        for definition in document.definitions {
            switch definition {
            case let directive as DirectiveDefinition: declared.insert(directive.name.value)
            case let input as InputObjectTypeDefinition where input.name.value == "AMPLIFY": return true
            case let object as ObjectTypeDefinition: use(object.directives, fields: object.fields)
            case let interface as InterfaceTypeDefinition: use(interface.directives, fields: interface.fields)
            case let object as TypeExtensionDefinition:
                use(object.definition.directives, fields: object.definition.fields)
            default: continue
            }
        }
        let transformerDirectives = Set(DirectiveSpec.all.keys.filter { !$0.hasPrefix("aws_") && $0 != "deprecated" })
        return !used.isDisjoint(with: transformerDirectives) || !used.isSubset(of: declared)
    }
}
