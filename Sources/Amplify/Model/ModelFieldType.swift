/// The type of a model field.
public indirect enum ModelFieldType: Sendable, Hashable {
    case string
    case int
    case double
    case bool
    /// `AWSDate`, stored as ``Temporal/Date``.
    case date
    /// `AWSDateTime`, stored as ``Temporal/DateTime``.
    case dateTime
    /// `AWSTime`, stored as ``Temporal/Time``.
    case time
    /// `AWSTimestamp`: seconds since the epoch, stored as an `Int`.
    case timestamp
    /// A GraphQL enum, by name.
    case enumeration(name: String)
    /// A non-model type stored inside the model, by name.
    case embedded(name: String)
    /// A list of scalars, enums or embedded values.
    case embeddedCollection(of: ModelFieldType)
    /// A single associated model (belongsTo, hasOne), by name.
    case model(name: String)
    /// A list of associated models (hasMany), by the child model's name.
    case collection(of: String)

    /// A GraphQL enum field whose Swift type is `type`.
    public static func `enum`<E: EnumPersistable>(type: E.Type) -> ModelFieldType {
        .enumeration(name: E.enumName)
    }

    /// A non-model field whose Swift type is `type`, which this registers
    /// (``ModelRegistry/register(embeddableType:)``): the request builders select its fields by
    /// name.
    public static func embedded<E: Embeddable>(type: E.Type) -> ModelFieldType {
        ModelRegistry.register(embeddableType: E.self)
        return .embedded(name: E.typeName)
    }

    /// A list of non-model values whose Swift type is `type`, which this registers as
    /// ``embedded(type:)`` does.
    public static func embeddedCollection<E: Embeddable>(of type: E.Type) -> ModelFieldType {
        .embeddedCollection(of: .embedded(type: E.self))
    }

    /// `true` for the types that name another model.
    public var isAssociation: Bool {
        switch self {
        case .model, .collection: return true
        default: return false
        }
    }
}
