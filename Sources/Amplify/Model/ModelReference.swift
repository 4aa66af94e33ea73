import Foundation

/// The model at the other end of a belongsTo or hasOne relation.
///
/// Generated models keep it behind a property of the related type (`comment.post`). It holds the
/// related model when it was loaded, or only its identifiers (the foreign-key values) when the
/// record came without it, so a foreign key is never lost in a round trip.
///
/// A reference decoded with a ``ModelRelationLoader`` loads the related model through it: by
/// ``get()``, which reports a failure, or on first read of ``model``. When that read fails to
/// load, the failure is logged through the loader, the read sees `nil`, and nothing is cached:
/// the next read or ``get()`` tries again.
public struct ModelReference<Related: Model>: Sendable {
    /// Whether a reference holds its model.
    public enum LoadedState: Sendable {
        /// Not loaded yet: the related model's primary-key values, in key order.
        case notLoaded(identifiers: [JSONValue])
        /// Loaded: the related model, or `nil` when there is none.
        case loaded(Related?)
    }

    /// Shared storage: a reference loaded lazily caches what it loaded.
    private final class Storage: @unchecked Sendable {
        /// Guards `model` and `isLoaded`; never held while loading.
        let lock = NSLock()
        var model: Related?
        var isLoaded: Bool
        let storedIdentifiers: [JSONValue]
        let loader: (any ModelRelationLoader)?

        init(model: Related?, isLoaded: Bool, identifiers: [JSONValue], loader: (any ModelRelationLoader)?) {
            self.model = model
            self.isLoaded = isLoaded
            self.storedIdentifiers = identifiers
            self.loader = loader
        }

        /// The loaded model, if loaded.
        var loaded: Related?? {
            lock.withLock { isLoaded ? .some(model) : .none }
        }

        /// Stores `fetched` unless another load stored its result first, and returns what is stored.
        func store(_ fetched: Related?) -> Related? {
            lock.withLock {
                if isLoaded { return model }
                model = fetched
                isLoaded = true
                return fetched
            }
        }

        /// The related model's key values, by field name.
        var keyValues: [String: JSONValue] {
            let keys = Related.schema.primaryKey.fields.map(\.name)
            return Dictionary(zip(keys, storedIdentifiers), uniquingKeysWith: { first, _ in first })
        }
    }

    private let storage: Storage

    /// A reference to `model`, or to nothing.
    public init(_ model: Related?) {
        storage = Storage(model: model, isLoaded: true, identifiers: [], loader: nil)
    }

    /// A reference that knows only the related model's primary-key values, in key order; with a
    /// `loader`, the model is loaded on first access.
    public init(identifiers: [JSONValue], loader: (any ModelRelationLoader)? = nil) {
        storage = Storage(model: nil, isLoaded: false, identifiers: identifiers, loader: loader)
    }

    /// The related model: loaded on first read when the reference has a loader.
    ///
    /// A failed load is logged through the loader and reads as `nil`, without being cached; call
    /// ``get()`` to receive the error.
    public var model: Related? {
        if let loaded = storage.loaded { return loaded }
        guard let loader = storage.loader else { return nil }
        let values = storage.keyValues
        do {
            return storage.store(try loader.load(Related.self, matching: values).first)
        } catch {
            loader.loadFailed(error, loading: "\(Related.modelName) where \(RelationLog.describe(values))")
            return nil
        }
    }

    /// The related model, loading it first if needed.
    ///
    /// Concurrent calls may each load; the first result stored is the one every later read sees.
    /// A failed load leaves the reference not loaded, so a later call tries again.
    ///
    /// - Throws: what the loader throws (DataStore throws ``DataStoreError``).
    public func get() async throws -> Related? {
        if let loaded = storage.loaded { return loaded }
        guard let loader = storage.loader else { return nil }
        let fetched = try await loader.fetch(Related.self, matching: storage.keyValues).first
        return storage.store(fetched)
    }

    /// The related model when it is in memory, or the identifiers it would be loaded by.
    public var loadedState: LoadedState {
        if let loaded = storage.loaded { return .loaded(loaded) }
        return .notLoaded(identifiers: storage.storedIdentifiers)
    }

    /// `true` when the related model is in memory (or the reference is empty).
    public var isLoaded: Bool {
        storage.lock.withLock { storage.isLoaded }
    }

    /// The related model's primary-key values, in key order; empty when there is no related model.
    public var identifiers: [JSONValue] {
        let (loaded, model, stored) = storage.lock.withLock {
            (storage.isLoaded, storage.model, storage.storedIdentifiers)
        }
        guard loaded, stored.isEmpty else { return stored }
        return model?.primaryKeyValues ?? []
    }

    /// Decodes the reference stored under `field`, or, when the related object is absent or
    /// incomplete, the foreign-key values stored under `targetNames`.
    ///
    /// - Throws: `DecodingError` when the JSON is malformed.
    public init(from decoder: any Decoder, field: String, targetNames: [String]) throws {
        let container = try decoder.container(keyedBy: AnyModelCodingKey.self)
        let nested = try container.decodeIfPresent(JSONValue.self, forKey: AnyModelCodingKey(field)) ?? .null
        if case .object = nested {
            if let model = try? nested.decode(as: Related.self) {
                self.init(model)
                return
            }
            let keys = Related.schema.primaryKey.fields.map { nested[$0.name] ?? .null }
            if !keys.allSatisfy(\.isNull) {
                self.init(identifiers: keys, loader: decoder.userInfo[.modelRelationLoader] as? any ModelRelationLoader)
                return
            }
        }
        let values = try targetNames.map {
            try container.decodeIfPresent(JSONValue.self, forKey: AnyModelCodingKey($0)) ?? .null
        }
        if values.allSatisfy(\.isNull) {
            self.init(nil)
        } else {
            self.init(identifiers: values, loader: decoder.userInfo[.modelRelationLoader] as? any ModelRelationLoader)
        }
    }

    /// Encodes the loaded model under `field` and the foreign-key values under `targetNames`.
    ///
    /// A reference that has not loaded its model encodes only the foreign-key values: encoding
    /// never loads, so saving a model read from a store does not read its relations first.
    ///
    /// - Throws: `EncodingError` when a value cannot be encoded.
    public func encode(to encoder: any Encoder, field: String, targetNames: [String]) throws {
        var container = encoder.container(keyedBy: AnyModelCodingKey.self)
        let loaded = storage.lock.withLock { storage.isLoaded ? storage.model : nil }
        if let loaded {
            try container.encode(loaded, forKey: AnyModelCodingKey(field))
        }
        for (name, value) in zip(targetNames, identifiers) where !value.isNull {
            try container.encode(value, forKey: AnyModelCodingKey(name))
        }
    }
}

extension ModelReference: Equatable where Related: Equatable {
    public static func == (lhs: ModelReference, rhs: ModelReference) -> Bool {
        if lhs.isLoaded && rhs.isLoaded { return lhs.model == rhs.model }
        return lhs.identifiers == rhs.identifiers
    }
}

/// A coding key made from any string, for fields known only at run time.
public struct AnyModelCodingKey: CodingKey, Hashable, Sendable {
    public let stringValue: String
    public let intValue: Int?

    public init(_ string: String) {
        self.stringValue = string
        self.intValue = nil
    }

    public init?(stringValue: String) {
        self.init(stringValue)
    }

    public init?(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}
