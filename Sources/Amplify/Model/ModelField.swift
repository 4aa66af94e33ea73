/// One field of a ``ModelSchema``.
public struct ModelField: Sendable, Hashable {
    /// The field's name, as in the GraphQL schema and the JSON.
    public var name: String
    /// The field's type.
    public var type: ModelFieldType
    /// `true` when the GraphQL type is non-null.
    public var isRequired: Bool
    /// `true` for fields the backend sets (such as `createdAt`), never sent in inputs.
    public var isReadOnly: Bool
    /// `true` for a GraphQL list.
    public var isArray: Bool
    /// The relation this field stands for, if any.
    public var association: ModelAssociation?
    /// Field-level auth rules.
    public var authRules: [AuthRule]

    public init(
        name: String,
        type: ModelFieldType,
        isRequired: Bool = false,
        isReadOnly: Bool = false,
        isArray: Bool = false,
        association: ModelAssociation? = nil,
        authRules: [AuthRule] = []
    ) {
        self.name = name
        self.type = type
        self.isRequired = isRequired
        self.isReadOnly = isReadOnly
        self.isArray = isArray
        self.association = association
        self.authRules = authRules
    }

    /// The associated model's name for `.model` and `.collection` fields.
    public var associatedModelName: String? {
        switch type {
        case .model(let name), .collection(let name): return name
        default: return nil
        }
    }
}

/// How a field relates its model to another.
public enum ModelAssociation: Sendable, Hashable {
    /// The parent side of one-to-many: the children's `associatedFields` point back here.
    case hasMany(associatedFields: [String])
    /// The parent side of one-to-one; `targetNames` are this model's foreign-key fields, if any.
    case hasOne(associatedFields: [String], targetNames: [String])
    /// The child side: `targetNames` are this model's foreign-key fields.
    case belongsTo(associatedFields: [String], targetNames: [String])

    /// The foreign-key field names held by the model that declares the association.
    public var targetNames: [String] {
        switch self {
        case .hasMany: return []
        case .hasOne(_, let names), .belongsTo(_, let names): return names
        }
    }

    /// The fields of the other model that this association pairs with.
    public var associatedFields: [String] {
        switch self {
        case .hasMany(let fields), .hasOne(let fields, _), .belongsTo(let fields, _): return fields
        }
    }
}

/// Whether a field is required.
public enum ModelFieldNullability: Sendable {
    case optional
    case required
}
