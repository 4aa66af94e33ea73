import StratusCodegen

/// The values of `@default(value:)`, read as their fields' types once, when the server starts,
/// so that a default that is not a value of its field's type is refused rather than stored.
enum DefaultValue {
    /// A `@default` value that is not a value of its field's type.
    struct Invalid: Error, Sendable, CustomStringConvertible {
        var model: String
        var field: StratusCodegen.Field
        var text: String

        var description: String {
            "The @default value '\(text)' of '\(model).\(field.name)' is not a valid \(field.type.name). "
                + "Give @default a value of the field's type, or remove it."
        }
    }

    /// The default of `field` in `model`, as stored; `nil` when it has none.
    ///
    /// - Throws: ``Invalid`` when the default is not a value of the field's type.
    static func of(_ field: StratusCodegen.Field, in model: String, schema: AnnotatedSchema) throws(Invalid) -> JSON? {
        guard let text = field.defaultValue else { return nil }
        guard let value = value(text, type: field.type, schema: schema) else {
            throw Invalid(model: model, field: field, text: text)
        }
        return value
    }

    /// Checks every default of `schema`.
    ///
    /// - Throws: ``Invalid`` for the first default that is not a value of its field's type.
    static func check(_ schema: AnnotatedSchema) throws(Invalid) {
        for model in schema.models {
            for field in model.fields {
                _ = try of(field, in: model.name, schema: schema)
            }
        }
    }

    private static func value(_ text: String, type: FieldType, schema: AnnotatedSchema) -> JSON? {
        guard !type.isList else { return nil }
        switch type.kind {
        case .scalar(.int), .scalar(.awsTimestamp):
            return Int(text).map(JSON.int)
        case .scalar(.float):
            return Double(text).map(JSON.double)
        case .scalar(.boolean):
            return text == "true" ? .bool(true) : text == "false" ? .bool(false) : nil
        case .scalar(.awsJSON):
            do {
                return try JSON(parsing: text)
            } catch {
                return nil
            }
        case .scalar(let scalar):
            return AWSScalarValidation.problem(with: .string(text), as: scalar) == nil ? .string(text) : nil
        case .enumeration:
            let values = schema.enums.first { $0.name == type.name }?.values ?? []
            return values.contains(text) ? .string(text) : nil
        case .nonModel, .model, .interface, .union, .input, .customScalar, .connection:
            return nil
        }
    }
}
