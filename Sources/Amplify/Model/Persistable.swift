/// A value that can be stored in a model field and compared in a predicate.
///
/// `String`, `Int`, `Double`, `Bool`, the ``Temporal`` types and ``EnumPersistable`` enums
/// conform.
public protocol Persistable: Sendable {
    /// The value as it is stored and sent over the wire.
    var persistableValue: JSONValue { get }
}

extension String: Persistable {
    public var persistableValue: JSONValue { .string(self) }
}

extension Int: Persistable {
    public var persistableValue: JSONValue { .integer(self) }
}

extension Double: Persistable {
    public var persistableValue: JSONValue { .number(self) }
}

extension Bool: Persistable {
    public var persistableValue: JSONValue { .boolean(self) }
}

/// An enum generated from a GraphQL `enum`: its raw value is the GraphQL value's name.
public protocol EnumPersistable: Persistable, Codable, CaseIterable, Hashable {
    /// The GraphQL value's name.
    var rawValue: String { get }
}

extension EnumPersistable {
    public var persistableValue: JSONValue { .string(rawValue) }

    /// The enum's name as written in the GraphQL schema.
    public static var enumName: String { String(describing: self) }
}

/// A non-model type of the GraphQL schema, stored inside a model as an embedded value.
public protocol Embeddable: Codable, Sendable {
    /// The embedded type's fields.
    static var schema: ModelSchema { get }
}

extension Embeddable {
    /// The type's name as written in the GraphQL schema.
    public static var typeName: String { String(describing: self) }

    /// Builds the schema of an embedded type.
    public static func defineSchema(
        name: String? = nil,
        define: (inout ModelSchemaDefinition) -> Void
    ) -> ModelSchema {
        var definition = ModelSchemaDefinition(name: name ?? String(describing: self))
        define(&definition)
        return definition.build()
    }
}
