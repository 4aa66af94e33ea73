/// How a model is identified: by its `id` field, or by a custom primary key.
public enum ModelIdentifierFormat {
    /// The `id` field: the identifier is a `String`.
    public enum Default: AnyModelIdentifierFormat {}
    /// A custom primary key (`@primaryKey` on another field, with or without sort key fields):
    /// the identifier is a ``ModelIdentifier`` that `stratus codegen models` names
    /// `Model.identifier(field1:field2:)`.
    public enum Custom: AnyModelIdentifierFormat {}
}

/// A kind of identifier: ``ModelIdentifierFormat/Default`` or ``ModelIdentifierFormat/Custom``.
public protocol AnyModelIdentifierFormat: Sendable {}

/// A model whose identifier has a type of its own: what `stratus codegen models` declares for
/// models with a custom primary key.
///
/// ```swift
/// extension Author: ModelIdentifiable {
///     public typealias IdentifierFormat = ModelIdentifierFormat.Custom
///     public typealias IdentifierProtocol = ModelIdentifier<Self, ModelIdentifierFormat.Custom>
/// }
/// ```
public protocol ModelIdentifiable {
    /// The kind of identifier.
    associatedtype IdentifierFormat: AnyModelIdentifierFormat
    /// The identifier's type, which the generated `identifier(…)` factory extends.
    associatedtype IdentifierProtocol
}

/// The primary-key values of one model of type `M`, in the key's order.
///
/// Generated code makes them with the model's factory, so that a call names every key field:
///
/// ```swift
/// let author = try await Amplify.DataStore.query(
///     Author.self,
///     byIdentifier: .identifier(country: "NZ", handle: "kiwi")
/// )
/// let request = GraphQLRequest<Author?>.get(Author.self, byIdentifier: .identifier(country: "NZ", handle: "kiwi"))
/// ```
public struct ModelIdentifier<M: Model, Format: AnyModelIdentifierFormat>: Sendable, Hashable {
    /// One key field and its value, as stored and sent over the wire.
    public struct Field: Sendable, Hashable {
        public let name: String
        public let value: JSONValue
    }

    /// The key's fields, in the key's order.
    public let fields: [Field]

    /// The identifier of the fields `fields`, given in the key's order.
    ///
    /// Every field of `M`'s primary key must be given, in order: a missing or misnamed field is
    /// a defect of the caller (generated code gives them all) and traps, naming the key.
    public static func make(fields: [(name: String, value: any Persistable)]) -> Self {
        let names = fields.map(\.name)
        let keyNames = M.schema.primaryKey.fields.map(\.name)
        precondition(
            names == keyNames,
            "The identifier of \(M.schema.name) names the fields \(names), but its primary key is \(keyNames). "
                + "Give every key field in order; regenerate the model with `stratus codegen models`."
        )
        return Self(fields: fields.map { Field(name: $0.name, value: $0.value.persistableValue) })
    }

    /// The values joined with ``ModelSchema/identifierSeparator``, as ``Model/identifier`` gives
    /// them for a stored model: what `query(_:byIdentifier:)` with a `String` takes.
    public var stringValue: String {
        fields.map { ModelSchema.identifierComponent($0.value) }.joined(separator: ModelSchema.identifierSeparator)
    }
}
