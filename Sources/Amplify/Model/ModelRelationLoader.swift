import Foundation

/// Loads the models at the other end of a relation, for lists and references decoded without
/// them.
///
/// A store (DataStore's SQLite engine, say) puts its loader in the decoder's `userInfo` under
/// ``Foundation/CodingUserInfoKey/modelRelationLoader`` when it decodes records; every `List`
/// and ``ModelReference`` decoded that way loads on first access.
public protocol ModelRelationLoader: Sendable {
    /// The models of `type` whose fields equal `values` (field name to value).
    ///
    /// - Throws: whatever the store throws.
    func load<M: Model>(_ type: M.Type, matching values: [String: JSONValue]) throws -> [M]
}

extension CodingUserInfoKey {
    /// Where a decoder carries the ``ModelRelationLoader`` of the store it reads from.
    public static let modelRelationLoader = CodingUserInfoKey(rawValue: "stratus.modelRelationLoader")!
}

/// Loads a hasMany list through a ``ModelRelationLoader``.
struct RelationListProvider<Element: Model>: ModelListProvider {
    let loader: any ModelRelationLoader
    let values: [String: JSONValue]

    func load() throws -> [Element] {
        try loader.load(Element.self, matching: values)
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
