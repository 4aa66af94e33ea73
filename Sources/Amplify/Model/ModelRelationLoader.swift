import Foundation

/// Loads the models at the other end of a relation, for lists and references decoded without
/// them.
///
/// A store (DataStore's SQLite engine, say) puts its loader in the decoder's `userInfo` under
/// `CodingUserInfoKey.modelRelationLoader` when it decodes records; every `List`
/// and ``ModelReference`` decoded that way loads on first access.
public protocol ModelRelationLoader: Sendable {
    /// The models of `type` whose fields equal `values` (field name to value), blocking the
    /// caller: what accessing a list as a collection, or a reference's model, calls.
    ///
    /// - Throws: whatever the store throws.
    func load<M: Model>(_ type: M.Type, matching values: [String: JSONValue]) throws -> [M]

    /// The models of `type` whose fields equal `values`: what ``List/fetch()`` and
    /// ``ModelReference/get()`` call. By default, calls the blocking ``load(_:matching:)``.
    ///
    /// - Throws: whatever the store throws.
    func fetch<M: Model>(_ type: M.Type, matching values: [String: JSONValue]) async throws -> [M]

    /// Reports a failed load that no caller can receive: a list accessed as a collection, a
    /// reference's model read as a property. `relation` names what was loaded
    /// (`Comment where postCommentsId = p1`). By default, writes to standard error.
    func loadFailed(_ error: any Error, loading relation: String)
}

extension ModelRelationLoader {
    public func fetch<M: Model>(_ type: M.Type, matching values: [String: JSONValue]) async throws -> [M] {
        try load(type, matching: values)
    }

    public func loadFailed(_ error: any Error, loading relation: String) {
        RelationLog.standardError(Self.failureMessage(error, loading: relation))
    }

    /// The message that reports a failed load of `relation`.
    package static func failureMessage(_ error: any Error, loading relation: String) -> String {
        "Loading \(relation) failed: \(error). It reads as not there until an access loads it; call "
            + "`try await list.fetch()` or `try await reference.get()` to receive the error."
    }
}

/// Where relation loads report failures by default.
enum RelationLog {
    /// Writes `message` and a newline to standard error.
    static func standardError(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    /// `values` as a condition: `postCommentsId = p1 and x = 2`.
    static func describe(_ values: [String: JSONValue]) -> String {
        values.keys.sorted().map { key in
            let value = values[key] ?? .null
            return "\(key) = \(value.stringValue ?? value.intValue.map(String.init) ?? "\(value)")"
        }
        .joined(separator: " and ")
    }
}

extension CodingUserInfoKey {
    /// Where a decoder carries the ``ModelRelationLoader`` of the store it reads from.
    public static let modelRelationLoader = CodingUserInfoKey(rawValue: "stratus.modelRelationLoader")!
}

/// Loads a hasMany list through a ``ModelRelationLoader``.
struct RelationListProvider<Element: Model>: ModelListProvider {
    let loader: any ModelRelationLoader
    let values: [String: JSONValue]

    var associatedValues: [String: JSONValue] { values }

    func load() throws -> [Element] {
        try loader.load(Element.self, matching: values)
    }

    func fetch() async throws -> [Element] {
        try await loader.fetch(Element.self, matching: values)
    }

    func loadFailed(_ error: any Error) {
        loader.loadFailed(error, loading: "\(Element.modelName) where \(RelationLog.describe(values))")
    }
}

extension List {
    /// Decodes the hasMany field `field` of a model whose schema is `parent`.
    ///
    /// The list is loaded when the JSON holds it (an array or a connection object), lazy when
    /// the decoder carries a ``ModelRelationLoader``, and `nil` otherwise.
    ///
    /// - Throws: `DecodingError` when the JSON is malformed.
    public static func decode(from decoder: any Decoder, field: String, of parent: ModelSchema) throws -> List<Element>?
    {
        let container = try decoder.container(keyedBy: AnyModelCodingKey.self)
        let key = AnyModelCodingKey(field)
        if container.contains(key), try !container.decodeNil(forKey: key) {
            return try container.decode(List<Element>.self, forKey: key)
        }
        guard let loader = decoder.userInfo[.modelRelationLoader] as? any ModelRelationLoader,
            case .hasMany(let associated)? = parent.field(named: field)?.association
        else { return nil }
        let childKeys = associated.flatMap { name -> [String] in
            if case .belongsTo(_, let targets)? = Element.schema.field(named: name)?.association { return targets }
            return [name]
        }
        let parentValues = try parent.primaryKey.fields.map {
            try container.decodeIfPresent(JSONValue.self, forKey: AnyModelCodingKey($0.name)) ?? .null
        }
        let values = Dictionary(zip(childKeys, parentValues), uniquingKeysWith: { first, _ in first })
        return List(provider: RelationListProvider(loader: loader, values: values))
    }
}
