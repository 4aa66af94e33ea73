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

    /// Derives the API of `schema`.
    public init(schema: AnnotatedSchema, configuration: ServerConfiguration = ServerConfiguration()) {
        self.schema = schema
        self.configuration = configuration
        var writer = SDLWriter(schema: schema, conflictDetection: configuration.conflictDetection)
        sdl = writer.write()
    }
}
