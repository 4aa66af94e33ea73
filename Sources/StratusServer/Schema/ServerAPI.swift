import StratusCodegen

/// The AppSync API an annotated schema stands for: every type, input, connection, query,
/// mutation and subscription the Amplify GraphQL transformer generates from it.
///
/// ```swift
/// let schema = try SchemaParser().parse(source, fileName: "schema.graphql")
/// let api = ServerAPI(schema: schema)
/// print(api.sdl)  // type Post { id: ID! … _lastChangedAt: AWSTimestamp! } …
/// ```
public struct ServerAPI: Sendable {
    /// The annotated schema the API derives from.
    public let schema: AnnotatedSchema
    /// The configuration the API derives with (conflict detection adds the sync metadata).
    public let configuration: ServerConfiguration
    /// The API as GraphQL SDL, with the declarations of the AWS scalars and `@aws_*` directives
    /// so that any GraphQL tool reads it.
    public let sdl: String

    /// What a developer should know about the schema's rules before serving it: owner fields
    /// that the owner rules let their owners (or co-owners) change, handing the item to
    /// someone else. Amplify's transformer warns of the same.
    public var warnings: [String] {
        schema.models.compactMap { model in
            guard model.authRules.contains(where: { $0.allow == .owner }) else { return nil }
            let roles = FieldAccessMatrix(building: model).reassignableOwnerFields
            guard !roles.isEmpty else { return nil }
            let who = roles.map { "'\($0.role)' may change \($0.fields.map { "'\($0)'" }.joined(separator: ", "))" }
            return "Warning: the owners of \(model.name) may give its items away (\(who.joined(separator: "; "))). "
                + "If that is not intended, give these fields @auth rules of their own, such as "
                + "`owner: String @auth(rules: [{ allow: owner, operations: [read, delete] }])`."
        }
    }

    /// Derives the API of `schema`.
    public init(schema: AnnotatedSchema, configuration: ServerConfiguration = ServerConfiguration()) {
        self.schema = schema
        self.configuration = configuration
        var writer = SDLWriter(
            schema: schema,
            detectsConflicts: { [configuration] in configuration.detectsConflicts(on: $0) }
        )
        sdl = writer.write()
    }
}
