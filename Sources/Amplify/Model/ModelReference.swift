import Foundation

/// The model at the other end of a belongsTo or hasOne relation.
///
/// Generated models keep it behind a property of the related type (`comment.post`). It holds the
/// related model when it was loaded, or only its identifiers (the foreign-key values) when the
/// record came without it, so a foreign key is never lost in a round trip.
public struct ModelReference<Related: Model>: Sendable {
    /// Shared storage: a reference loaded lazily caches what it loaded.
    private final class Storage: @unchecked Sendable {
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

    /// The related model: loaded on first access when the reference has a loader.
    public var model: Related? {
        storage.lock.withLock {
            if storage.isLoaded { return storage.model }
            guard let loader = storage.loader else { return nil }
            let keys = Related.schema.primaryKey.fields.map(\.name)
            let values = Dictionary(zip(keys, storage.storedIdentifiers), uniquingKeysWith: { first, _ in first })
            storage.model = (try? loader.load(Related.self, matching: values))?.first
            storage.isLoaded = true
            return storage.model
        }
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
