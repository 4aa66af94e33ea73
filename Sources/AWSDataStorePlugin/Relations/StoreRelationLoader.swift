import Amplify

/// Loads the relations of models read from a ``StorageEngine``: the decoder of every query
/// carries one, so hasMany lists and belongsTo and hasOne references load on first access, and
/// `List.fetch()` and `ModelReference.get()` load without blocking.
struct StoreRelationLoader: ModelRelationLoader {
    let engine: StorageEngine

    func load<M: Model>(_ type: M.Type, matching values: [String: JSONValue]) throws -> [M] {
        try engine.load(type, matching: values)
    }

    func fetch<M: Model>(_ type: M.Type, matching values: [String: JSONValue]) async throws -> [M] {
        try await engine.fetch(type, matching: values)
    }

    /// Logs the failure as an error in the plugin's log.
    func loadFailed(_ error: any Error, loading relation: String) {
        engine.log(.init(level: .error, message: Self.failureMessage(error, loading: relation)))
    }
}
