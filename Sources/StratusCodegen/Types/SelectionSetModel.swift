import GraphQL

/// A Swift type as generated code spells it.
indirect enum SwiftType: Equatable {
    /// A type by name; `nested` for a struct nested in the selection set being written.
    case named(String, nested: Bool)
    case list(SwiftType)
    case optional(SwiftType)

    var spelling: String {
        switch self {
        case .named(let name, _): return name
        case .list(let element): return "[\(element.spelling)]"
        case .optional(let wrapped): return wrapped.spelling + "?"
        }
    }

    var isOptional: Bool {
        if case .optional = self { return true }
        return false
    }

    /// The type seen from outside the struct it is nested in: nested names get `prefix.`.
    func qualified(by prefix: String) -> SwiftType {
        switch self {
        case .named(let name, let nested): return nested ? .named("\(prefix).\(name)", nested: false) : self
        case .list(let element): return .list(element.qualified(by: prefix))
        case .optional(let wrapped): return .optional(wrapped.qualified(by: prefix))
        }
    }

    /// Whether a property of this type can be an `Identifiable` struct's `id`: a scalar (or an
    /// optional one), which is `Hashable`; not a list or a selection set.
    var isIdentifier: Bool {
        switch self {
        case .named(let name, let nested): return !nested && Self.scalarSpellings.contains(name)
        case .optional(let wrapped): return wrapped.isIdentifier
        case .list: return false
        }
    }

    private static let scalarSpellings: Set<String> = ["GraphQLID", "String", "Int", "Double", "Bool"]

    /// The type made optional, unless it already is.
    var optional: SwiftType { isOptional ? self : .optional(self) }
}

/// An entry of a generated `selections` array.
indirect enum RuntimeSelection {
    /// A field: its name, alias, arguments as Swift expressions, and schema type.
    case field(
        name: String,
        alias: String?,
        arguments: [(String, String)],
        type: any GraphQLOutputType,
        responseKey: String
    )
    /// `@include(if: $variable)` (or `@skip`, inverted) around selections.
    case condition(variable: String, inverted: Bool, [RuntimeSelection])
    /// A spread of the named fragment.
    case fragment(String)
    /// Selections chosen by `__typename`: the struct of each object type, else `default`.
    case typeCase(variants: [(String, String)], default: [RuntimeSelection])
}

/// What one generated selection-set struct holds.
struct SelectionSetModel {
    /// A property: a field by response key, with its Swift type.
    struct Property {
        var responseKey: String
        var type: SwiftType
    }

    /// A struct nested in this one, for an object field.
    struct Nested {
        var name: String
        var model: SelectionSetModel
    }

    /// A fragment spread on this selection set; `isOptional` when it may not apply.
    struct FragmentUse: Equatable {
        var name: String
        var isOptional: Bool
    }

    /// An `asHuman` accessor of an inline fragment on another type, and its struct.
    struct TypeCase {
        var property: String
        var structName: String
    }

    var typeName: String
    var possibleTypes: [String]
    var isConcrete: Bool
    var selections: [RuntimeSelection] = []
    var properties: [Property] = []
    var nested: [Nested] = []
    var fragments: [FragmentUse] = []
    var typeCases: [TypeCase] = []
    /// The nested struct of each object field, by response key.
    var structNames: [String: String] = [:]
}
