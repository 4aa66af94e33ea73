/// The builder that generated `+Schema.swift` files fill in.
///
/// ```swift
/// public static let schema = defineSchema { model in
///     let post = Post.keys
///     model.listPluralName = "Posts"
///     model.attributes(.primaryKey(fields: [post.id]))
///     model.fields(
///         .field(post.id, is: .required, ofType: .string),
///         .hasMany(post.comments, is: .optional, ofType: Comment.self, associatedFields: [Comment.keys.post])
///     )
/// }
/// ```
public struct ModelSchemaDefinition: Sendable {
    public var name: String
    public var listPluralName: String?
    public var syncPluralName: String?
    public var authRules: [AuthRule] = []
    var modelAttributes: [ModelAttribute] = []
    var modelFields: [ModelField] = []

    init(name: String) {
        self.name = name
    }

    /// Adds model attributes: indexes and the primary key.
    public mutating func attributes(_ attributes: ModelAttribute...) {
        modelAttributes.append(contentsOf: attributes)
    }

    /// Adds fields, in declaration order.
    public mutating func fields(_ definitions: ModelFieldDefinition...) {
        modelFields.append(contentsOf: definitions.map(\.field))
    }

    func build() -> ModelSchema {
        ModelSchema(
            name: name,
            listPluralName: listPluralName,
            syncPluralName: syncPluralName,
            authRules: authRules,
            attributes: modelAttributes,
            fields: modelFields
        )
    }
}

/// One field in a ``ModelSchemaDefinition``.
public struct ModelFieldDefinition: Sendable {
    /// The field it defines.
    public let field: ModelField

    /// A scalar, enum or embedded field.
    public static func field(
        _ key: some ModelKey,
        is nullability: ModelFieldNullability = .required,
        isReadOnly: Bool = false,
        ofType type: ModelFieldType,
        authRules: [AuthRule] = []
    ) -> ModelFieldDefinition {
        let isArray: Bool
        if case .embeddedCollection = type { isArray = true } else { isArray = false }
        return ModelFieldDefinition(
            field: ModelField(
                name: key.stringValue,
                type: type,
                isRequired: nullability == .required,
                isReadOnly: isReadOnly,
                isArray: isArray,
                authRules: authRules
            )
        )
    }

    /// The conventional `id: ID!` field.
    public static func id(_ name: String = "id") -> ModelFieldDefinition {
        ModelFieldDefinition(field: ModelField(name: name, type: .string, isRequired: true))
    }

    /// The parent side of a one-to-many relation.
    public static func hasMany<M: Model>(
        _ key: some ModelKey,
        is nullability: ModelFieldNullability = .optional,
        isReadOnly: Bool = false,
        ofType type: M.Type,
        associatedFields: [any ModelKey]
    ) -> ModelFieldDefinition {
        ModelFieldDefinition(
            field: ModelField(
                name: key.stringValue,
                type: .collection(of: M.modelName),
                isRequired: nullability == .required,
                isReadOnly: isReadOnly,
                isArray: true,
                association: .hasMany(associatedFields: associatedFields.map(\.stringValue))
            )
        )
    }

    /// The parent side of a one-to-many relation, paired with one field of the child.
    public static func hasMany<M: Model>(
        _ key: some ModelKey,
        is nullability: ModelFieldNullability = .optional,
        isReadOnly: Bool = false,
        ofType type: M.Type,
        associatedWith associatedKey: some ModelKey
    ) -> ModelFieldDefinition {
        hasMany(key, is: nullability, isReadOnly: isReadOnly, ofType: type, associatedFields: [associatedKey])
    }

    /// The parent side of a one-to-one relation.
    public static func hasOne<M: Model>(
        _ key: some ModelKey,
        is nullability: ModelFieldNullability = .optional,
        isReadOnly: Bool = false,
        ofType type: M.Type,
        associatedFields: [any ModelKey] = [],
        targetNames: [String] = []
    ) -> ModelFieldDefinition {
        reference(
            key,
            to: M.self,
            nullability: nullability,
            isReadOnly: isReadOnly,
            association: .hasOne(associatedFields: associatedFields.map(\.stringValue), targetNames: targetNames)
        )
    }

    /// The child side of a relation: `targetNames` are this model's foreign-key fields.
    public static func belongsTo<M: Model>(
        _ key: some ModelKey,
        is nullability: ModelFieldNullability = .optional,
        isReadOnly: Bool = false,
        ofType type: M.Type,
        associatedFields: [any ModelKey] = [],
        targetNames: [String] = []
    ) -> ModelFieldDefinition {
        reference(
            key,
            to: M.self,
            nullability: nullability,
            isReadOnly: isReadOnly,
            association: .belongsTo(associatedFields: associatedFields.map(\.stringValue), targetNames: targetNames)
        )
    }

    private static func reference<M: Model>(
        _ key: some ModelKey,
        to type: M.Type,
        nullability: ModelFieldNullability,
        isReadOnly: Bool,
        association: ModelAssociation
    ) -> ModelFieldDefinition {
        ModelFieldDefinition(
            field: ModelField(
                name: key.stringValue,
                type: .model(name: M.modelName),
                isRequired: nullability == .required,
                isReadOnly: isReadOnly,
                association: association
            )
        )
    }
}

extension Model {
    /// Builds the schema of a generated model.
    public static func defineSchema(
        name: String? = nil,
        define: (inout ModelSchemaDefinition) -> Void
    ) -> ModelSchema {
        var definition = ModelSchemaDefinition(name: name ?? modelName)
        define(&definition)
        return definition.build()
    }
}
