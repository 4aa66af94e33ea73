import Amplify

/// Loads the relations of models read from a ``StorageEngine``: the decoder of every query
/// carries one, so hasMany lists and belongsTo and hasOne references load on first access.
struct StoreRelationLoader: ModelRelationLoader {
    let engine: StorageEngine

    func load<M: Model>(_ type: M.Type, matching values: [String: JSONValue]) throws -> [M] {
        try engine.load(type, matching: values)
    }
}
