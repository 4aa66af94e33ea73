/// One entry of a generated selection set: a field, a condition, a type case or a fragment
/// spread.
public protocol GraphQLSelection: Sendable {}

/// A field of a selection set: its name, alias, arguments and type.
///
/// ```swift
/// GraphQLField("listTodos", arguments: ["limit": GraphQLVariable("limit")], type: .object(ListTodo.selections))
/// ```
public struct GraphQLField: GraphQLSelection {
    /// The field's name in the schema.
    public let name: String
    /// The alias the document gives the field, if any.
    public let alias: String?
    /// The arguments passed to the field, variables included.
    public let arguments: [String: any GraphQLInputValue]?
    /// The field's type, with the selections of object types.
    public let type: GraphQLOutputType

    /// The key of the field in a response and a snapshot: the alias, or the name.
    public var responseKey: String { alias ?? name }

    /// Creates a field.
    public init(
        _ name: String,
        alias: String? = nil,
        arguments: [String: any GraphQLInputValue]? = nil,
        type: GraphQLOutputType
    ) {
        self.name = name
        self.alias = alias
        self.arguments = arguments
        self.type = type
    }

    /// The field's name followed by its arguments, sorted by name, with variables replaced by
    /// their values: `getPost(id:1)`, `listPosts(filter:[title:[eq:A]],limit:10)`. Arguments
    /// whose value is null or an absent variable are left out; a field without arguments is its
    /// name.
    public func cacheKey(with variables: GraphQLMap?) -> String {
        let values = (arguments ?? [:]).mapValues { $0.evaluate(with: variables) }.filter { !$0.value.isNull }
        guard !values.isEmpty else { return name }
        return "\(name)(\(Self.orderIndependentKey(for: values)))"
    }

    private static func orderIndependentKey(for object: [String: JSONValue]) -> String {
        object.sorted { $0.key < $1.key }.map { "\($0.key):\(render($0.value))" }.joined(separator: ",")
    }

    private static func render(_ value: JSONValue) -> String {
        switch value {
        case .object(let object): return "[\(orderIndependentKey(for: object))]"
        case .array(let array): return "[\(array.map(render).joined(separator: ","))]"
        case .string(let string): return string
        case .integer(let integer): return String(integer)
        case .number(let number): return String(number)
        case .boolean(let boolean): return String(boolean)
        case .null: return "null"
        }
    }
}

/// The type of a field as generated code describes it.
public indirect enum GraphQLOutputType: Sendable {
    /// A scalar or enum, read with its type's ``JSONDecodable`` conformance.
    case scalar(any JSONDecodable.Type)
    /// An object, interface or union, with the selections made on it.
    case object([any GraphQLSelection])
    /// A type that cannot be null.
    case nonNull(GraphQLOutputType)
    /// A list of a type.
    case list(GraphQLOutputType)
}

/// Selections included only when a Boolean variable has a value: `@include(if: $x)` and
/// `@skip(if: $x)` (``inverted``).
public struct GraphQLBooleanCondition: GraphQLSelection {
    /// The variable the condition reads.
    public let variableName: String
    /// `true` for `@skip`: the selections are included when the variable is false.
    public let inverted: Bool
    /// The selections the condition guards.
    public let selections: [any GraphQLSelection]

    /// Creates a condition.
    public init(variableName: String, inverted: Bool, selections: [any GraphQLSelection]) {
        self.variableName = variableName
        self.inverted = inverted
        self.selections = selections
    }

    /// Whether the selections apply with `variables`: an absent or null variable counts as
    /// false.
    public func isIncluded(with variables: GraphQLMap?) -> Bool {
        let value = variables?[variableName]?.booleanValue ?? false
        return value != inverted
    }
}

/// Selections that depend on the object's `__typename`: inline fragments on other types.
public struct GraphQLTypeCase: GraphQLSelection {
    /// The selections for each type name.
    public let variants: [String: [any GraphQLSelection]]
    /// The selections for every other type.
    public let `default`: [any GraphQLSelection]

    /// Creates a type case.
    public init(variants: [String: [any GraphQLSelection]], default: [any GraphQLSelection]) {
        self.variants = variants
        self.default = `default`
    }
}

/// A spread of a named fragment: its selections apply when the object is one of its possible
/// types.
public struct GraphQLFragmentSpread: GraphQLSelection {
    /// The fragment spread.
    public let fragment: any GraphQLFragment.Type

    /// Creates a spread of `fragment`.
    public init(_ fragment: any GraphQLFragment.Type) {
        self.fragment = fragment
    }
}

/// A value passed to an argument: a literal or a variable, resolved against an operation's
/// variables.
public protocol GraphQLInputValue: Sendable {
    /// The value with variables replaced by their values (null for an absent variable).
    func evaluate(with variables: GraphQLMap?) -> JSONValue
}

/// A variable passed to an argument: `$limit`.
public struct GraphQLVariable: GraphQLInputValue, Hashable {
    /// The variable's name, without `$`.
    public let name: String

    /// A reference to the variable `name`.
    public init(_ name: String) {
        self.name = name
    }

    public func evaluate(with variables: GraphQLMap?) -> JSONValue {
        variables?[name] ?? .null
    }
}

extension JSONValue: GraphQLInputValue {
    /// The literal itself.
    public func evaluate(with variables: GraphQLMap?) -> JSONValue { self }
}

/// A list literal whose elements may be variables: `[$a, "b"]`.
public struct GraphQLInputList: GraphQLInputValue {
    /// The elements.
    public let elements: [any GraphQLInputValue]

    /// Creates a list literal.
    public init(_ elements: [any GraphQLInputValue]) {
        self.elements = elements
    }

    public func evaluate(with variables: GraphQLMap?) -> JSONValue {
        .array(elements.map { $0.evaluate(with: variables) })
    }
}

/// An object literal whose fields may be variables: `{title: {eq: $title}}`.
public struct GraphQLInputObject: GraphQLInputValue {
    /// The fields.
    public let fields: [String: any GraphQLInputValue]

    /// Creates an object literal.
    public init(_ fields: [String: any GraphQLInputValue]) {
        self.fields = fields
    }

    public func evaluate(with variables: GraphQLMap?) -> JSONValue {
        .object(fields.mapValues { $0.evaluate(with: variables) })
    }
}
