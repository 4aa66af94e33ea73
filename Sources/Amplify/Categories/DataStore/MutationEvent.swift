import AWSWire
import Foundation

/// One change to a model: what observers receive and what the outbox stores.
public struct MutationEvent: Sendable, Hashable, Codable {
    /// The kind of change.
    public enum MutationType: String, Sendable, Hashable, Codable {
        case create
        case update
        case delete
    }

    /// This event's own identifier.
    public var id: String
    /// The changed model's identifier.
    public var modelId: String
    /// The changed model's name.
    public var modelName: String
    /// The model as JSON text.
    public var json: String
    /// `create`, `update` or `delete`.
    public var mutationType: String
    /// When the change was made.
    public var createdAt: Temporal.DateTime
    /// The sync version the change was based on, when known.
    public var version: Int?
    /// A condition the backend must check, as GraphQL filter JSON text.
    public var graphQLFilterJSON: String?

    public init(
        id: String = MutationEvent.newIdentifier(),
        modelId: String,
        modelName: String,
        json: String,
        mutationType: MutationType,
        createdAt: Temporal.DateTime = .now(),
        version: Int? = nil,
        graphQLFilterJSON: String? = nil
    ) {
        self.id = id
        self.modelId = modelId
        self.modelName = modelName
        self.json = json
        self.mutationType = mutationType.rawValue
        self.createdAt = createdAt
        self.version = version
        self.graphQLFilterJSON = graphQLFilterJSON
    }

    /// A new event identifier: the text of a random UUID.
    @usableFromInline
    static func newIdentifier() -> String { UUID.systemRandom().uuidString }

    /// An event for `model`.
    ///
    /// - Throws: `EncodingError` when the model cannot be encoded.
    public init<M: Model>(model: M, mutationType: MutationType, version: Int? = nil) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        self.init(
            modelId: model.identifier,
            modelName: M.modelName,
            json: String(decoding: try encoder.encode(model), as: UTF8.self),
            mutationType: mutationType,
            version: version
        )
    }

    /// The model, decoded through the ``ModelRegistry``.
    ///
    /// - Throws: ``JSONParseError`` when the text is not JSON, ``ModelRegistryError`` when the model
    ///   is not registered, `DecodingError` when the JSON does not fit it.
    public func decodeModel() throws -> any Model {
        let json = try JSONValue(parsing: json)
        return try ModelRegistry.decode(modelName: modelName, from: json)
    }

    /// The model as `M`.
    ///
    /// - Throws: `DecodingError` when the JSON does not fit `M`.
    public func decodeModel<M: Model>(as type: M.Type) throws -> M {
        try JSONDecoder().decode(M.self, from: Data(json.utf8))
    }
}

/// One result of `observeQuery`: the matching models, and whether the store is synced.
public struct DataStoreQuerySnapshot<M: Model>: Sendable {
    public var items: [M]
    public var isSynced: Bool

    public init(items: [M], isSynced: Bool) {
        self.items = items
        self.isSynced = isSynced
    }
}
