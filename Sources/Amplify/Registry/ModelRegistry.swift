import Foundation
import Synchronization

/// The models an app has registered, by name.
///
/// DataStore and the API category look models up here to decode records whose type is known
/// only by name (a sync page, a subscription event, an outbox row).
public enum ModelRegistry {
    private static let state = Mutex<[String: any Model.Type]>([:])
    private static let embeddables = Mutex<[String: any Embeddable.Type]>([:])

    /// Registers the non-model type `embeddableType` under its ``Embeddable/typeName``.
    public static func register(embeddableType: any Embeddable.Type) {
        embeddables.withLock { $0[embeddableType.typeName] = embeddableType }
    }

    /// The schema of the registered non-model type named `name`.
    public static func embeddableSchema(from name: String) -> ModelSchema? {
        embeddables.withLock { $0[name] }?.schema
    }

    /// Collects the types one registration registers; see ``modelTypes(registeredBy:)``.
    @TaskLocal private static var collector: Collector?

    private final class Collector: Sendable {
        let types = Mutex<[any Model.Type]>([])
    }

    /// Registers `modelType` under its ``Model/modelName``.
    public static func register(modelType: any Model.Type) {
        state.withLock { $0[modelType.modelName] = modelType }
        collector?.types.withLock { $0.append(modelType) }
    }

    /// Registers the models of `registration` and returns them, in the order it registers them.
    ///
    /// A store uses the types it is given rather than every registered type, so that two
    /// registrations with a model of the same name (two apps' models in one test process) do not
    /// replace each other's.
    ///
    /// ```swift
    /// let types = ModelRegistry.modelTypes(registeredBy: AmplifyModels())
    /// ```
    public static func modelTypes(registeredBy registration: some AmplifyModelRegistration) -> [any Model.Type] {
        let collector = Collector()
        $collector.withValue(collector) {
            registration.registerModels(registry: ModelRegistry.self)
        }
        return collector.types.withLock { $0 }
    }

    /// Every registered model type, by name.
    public static var models: [String: any Model.Type] {
        state.withLock { $0 }
    }

    /// The registered model type named `name`.
    public static func modelType(from name: String) -> (any Model.Type)? {
        state.withLock { $0[name] }
    }

    /// The schema of the registered model named `name`.
    public static func modelSchema(from name: String) -> ModelSchema? {
        modelType(from: name)?.schema
    }

    /// Decodes a record of the registered model named `modelName`.
    ///
    /// - Throws: ``ModelRegistryError`` when no model of that name is registered, or
    ///   `DecodingError` when the JSON does not fit the model.
    public static func decode(modelName: String, from json: JSONValue) throws -> any Model {
        guard let type = modelType(from: modelName) else {
            throw ModelRegistryError.unregistered(modelName: modelName, known: models.keys.sorted())
        }
        return try json.decode(as: type)
    }

    /// Removes every registration (for tests).
    public static func reset() {
        state.withLock { $0.removeAll() }
        embeddables.withLock { $0.removeAll() }
    }
}

/// A model that is not registered was asked for.
public struct ModelRegistryError: Error, CustomStringConvertible, Equatable {
    public let modelName: String
    public let known: [String]

    static func unregistered(modelName: String, known: [String]) -> ModelRegistryError {
        ModelRegistryError(modelName: modelName, known: known)
    }

    public var description: String {
        let list = known.isEmpty ? "none" : known.joined(separator: ", ")
        return "The model '\(modelName)' is not registered (registered: \(list)). "
            + "Pass the generated AmplifyModels() to the plugin, or regenerate models with "
            + "`stratus codegen models` after changing the schema."
    }
}

/// The set of generated models, as `AmplifyModels.swift` declares it.
public protocol AmplifyModelRegistration: Sendable {
    /// A hash of the stored shape of every model: it changes exactly when a local store must
    /// be migrated.
    var version: String { get }

    /// Registers every model with `registry`.
    func registerModels(registry: ModelRegistry.Type)
}
