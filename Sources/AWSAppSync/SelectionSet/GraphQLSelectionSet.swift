/// The fields of one object of a response, by response key (the alias, or the field's name),
/// with nested objects as JSON objects: what a generated selection set holds.
///
/// A snapshot is a value: copying a selection set copies it, and it is `Sendable`.
public typealias Snapshot = [String: JSONValue]

/// A selection set generated into `API.swift`: an operation's `Data`, a nested object
/// (`ListTodosQuery.Data.ListTodo.Item`) or a fragment.
///
/// Its properties read and write its ``snapshot``; ``selections`` describe the fields for
/// reading a response (``init(jsonObject:variables:)``) and writing one back
/// (``jsonObject(variables:)``).
///
/// ```swift
/// var data = try ListTodosQuery.Data(jsonObject: response)
/// data.listTodos?.items?.append(ListTodosQuery.Data.ListTodo.Item(id: "1", name: "Milk"))
/// ```
public protocol GraphQLSelectionSet: JSONDecodable, JSONEncodable, Equatable {
    /// The fields, conditions and fragments of the selection set, in document order.
    static var selections: [any GraphQLSelection] { get }
    /// The object types the selection set can describe.
    static var possibleTypes: [String] { get }
    /// The fields, by response key.
    var snapshot: Snapshot { get }

    /// A selection set over `snapshot`, taken as is.
    init(snapshot: Snapshot)
}

extension GraphQLSelectionSet {
    /// No type condition: any type.
    public static var possibleTypes: [String] { [] }

    /// A selection set over a JSON object, taken as is (use ``init(jsonObject:variables:)`` to
    /// check it against ``selections``).
    ///
    /// - Throws: ``JSONDecodingError`` when `value` is not an object.
    public init(jsonValue value: JSONValue) throws {
        guard case .object(let object) = value else {
            throw JSONDecodingError.wrongType(value, expected: "an object")
        }
        self.init(snapshot: object)
    }

    /// The snapshot as a JSON object.
    public var jsonValue: JSONValue { .object(snapshot) }
}

/// A named fragment generated into `API.swift`: a selection set with its definition, which is
/// appended to every operation that spreads it.
public protocol GraphQLFragment: GraphQLSelectionSet {
    /// The fragment's definition as GraphQL (`fragment TodoFields on Todo { … }`).
    static var fragmentDefinition: String { get }
}

extension Dictionary where Key == String, Value == JSONValue {
    /// A field of a ``Snapshot`` by response key: how generated properties read and write.
    ///
    /// Setting `nil` stores null. Reading a value that is absent or of another type than `T`
    /// traps, naming the key: a snapshot read from a response was checked against its
    /// selection set, so this only happens to a snapshot built by hand with the wrong shape.
    public subscript<T: JSONDecodable & JSONEncodable>(field key: String) -> T {
        get {
            do {
                return try T(jsonValue: self[key] ?? .null)
            } catch {
                preconditionFailure(
                    "The snapshot's field '\(key)' does not hold a \(T.self): \(error). "
                        + "Build selection sets with their initializers or init(jsonObject:)."
                )
            }
        }
        set {
            self[key] = newValue.jsonValue
        }
    }
}
