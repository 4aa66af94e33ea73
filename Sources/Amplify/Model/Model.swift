import Foundation

/// A type generated from a `@model` type of an annotated GraphQL schema.
///
/// Generated code supplies ``schema`` through ``defineSchema(name:define:)`` and coding keys that
/// conform to ``ModelKey``. Everything else has a default.
///
/// ```swift
/// public struct Post: Model {
///     public let id: String
///     public var title: String
/// }
/// ```
public protocol Model: Codable, Sendable {
    /// The shape of this model: fields, associations, keys, indexes and auth rules.
    static var schema: ModelSchema { get }

    /// The model's name as written in the GraphQL schema.
    static var modelName: String { get }

    /// The primary key's value; for a composite key, the values joined with `#`.
    var identifier: String { get }
}

extension Model {
    public static var modelName: String { String(describing: self) }

    /// The model's name as written in the GraphQL schema.
    public var modelName: String { Self.modelName }

    public var identifier: String {
        primaryKeyValues
            .map(ModelSchema.identifierComponent)
            .joined(separator: ModelSchema.identifierSeparator)
    }

    /// The primary-key values, in key order; `.null` for a key field that has no value.
    var primaryKeyValues: [JSONValue] {
        // Key fields are strings and numbers: a Double elsewhere in the model that JSON cannot
        // write (infinite or NaN) must not cost the model its key.
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "Infinity",
            negativeInfinity: "-Infinity",
            nan: "NaN"
        )
        let json: JSONValue
        do {
            json = try JSONValue(encoding: self, encoder: encoder)
        } catch {
            // `identifier` cannot throw (the seeds read it as a property), and a key read as
            // null would file the model under an empty identifier: a model that cannot be
            // encoded is a defect of its `encode(to:)`, which generated models do not have.
            preconditionFailure(
                "\(Self.schema.name) cannot be encoded to read its primary key: \(error). A model's encode(to:) "
                    + "must not throw; regenerate the model with `stratus codegen models`."
            )
        }
        return Self.schema.primaryKey.fields.map { json[$0.name] ?? .null }
    }

    /// The model as a JSON object keyed by field name.
    ///
    /// - Throws: `EncodingError` when a value cannot be encoded.
    public func jsonValue() throws -> JSONValue {
        try JSONValue(encoding: self)
    }
}

extension ModelSchema {
    /// The separator between the components of a composite identifier.
    public static let identifierSeparator = "#"

    static func identifierComponent(_ value: JSONValue) -> String {
        switch value {
        case .string(let string): return string
        case .integer(let int): return String(int)
        case .number(let double): return String(double)
        case .boolean(let bool): return String(bool)
        default: return ""
        }
    }
}
