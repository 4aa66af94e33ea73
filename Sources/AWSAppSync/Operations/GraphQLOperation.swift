/// Variables of an operation, or the fields of an input object: JSON values by name.
///
/// A `nil` optional is left out rather than sent as null, so an update touches only the fields
/// it names; set a key to `JSONValue.null` to send null explicitly.
public typealias GraphQLMap = [String: JSONValue]

/// A GraphQL operation generated into `API.swift`: its document, its variables and the shape of
/// its data.
///
/// ```swift
/// let query = ListTodosQuery(limit: 10)
/// ListTodosQuery.operationString  // "query ListTodos($filter: …) { listTodos(…) { … } }"
/// query.variables                 // ["limit": 10]
/// ```
public protocol GraphQLOperation: Sendable {
    /// The operation's name in its document (`ListTodos`).
    static var operationName: String { get }
    /// The whole document to send: the operation, then every fragment it uses.
    static var operationString: String { get }
    /// The variables to send, `nil` when the operation declares none.
    var variables: GraphQLMap? { get }

    /// The selection set of the operation's root: what a response's `data` becomes.
    associatedtype Data: GraphQLSelectionSet
}

extension GraphQLOperation {
    /// No variables.
    public var variables: GraphQLMap? { nil }
}

/// A generated query (`ListTodosQuery`).
public protocol GraphQLQuery: GraphQLOperation {}

/// A generated mutation (`CreateTodoMutation`).
public protocol GraphQLMutation: GraphQLOperation {}

/// A generated subscription (`OnCreateTodoSubscription`).
public protocol GraphQLSubscription: GraphQLOperation {}

/// An input object generated into `API.swift` (`CreateTodoInput`): its fields as a
/// ``GraphQLMap``.
///
/// ```swift
/// let input = CreateTodoInput(name: "Use AppSync", description: "Realtime and Offline")
/// input.graphQLMap  // ["name": "Use AppSync", "description": "Realtime and Offline"]
/// ```
public protocol GraphQLMapConvertible: JSONEncodable, JSONDecodable {
    /// The fields that are set, by name.
    var graphQLMap: GraphQLMap { get }

    /// An input object holding `graphQLMap`.
    init(graphQLMap: GraphQLMap)
}

extension GraphQLMapConvertible {
    /// The input object as a JSON object.
    public var jsonValue: JSONValue { .object(graphQLMap) }

    /// Reads an input object from a JSON object.
    ///
    /// - Throws: ``JSONDecodingError`` when `value` is not an object.
    public init(jsonValue value: JSONValue) throws {
        guard case .object(let fields) = value else {
            throw JSONDecodingError.wrongType(value, expected: "an object")
        }
        self.init(graphQLMap: fields)
    }
}

extension Dictionary where Key == String, Value == JSONValue {
    /// A map of the values that are not `nil`: how generated code builds variables and input
    /// objects from optional arguments.
    ///
    /// ```swift
    /// GraphQLMap(omittingNil: ["limit": limit?.jsonValue, "nextToken": nextToken?.jsonValue])
    /// ```
    public init(omittingNil values: [String: JSONValue?]) {
        self = values.compactMapValues { $0 }
    }

    /// An input field of a ``GraphQLMap``: reading an absent key gives `nil` for an optional,
    /// and setting `nil` removes the key.
    ///
    /// Reading a value of another type than `T` is a programming error (the map was filled by
    /// hand with the wrong type) and traps, naming the key.
    public subscript<T: JSONDecodable & JSONEncodable>(input key: String) -> T {
        get {
            do {
                return try T(jsonValue: self[key] ?? .null)
            } catch {
                preconditionFailure("The input field '\(key)' does not hold a \(T.self): \(error)")
            }
        }
        set {
            let value = newValue.jsonValue
            if value.isNull {
                removeValue(forKey: key)
            } else {
                self[key] = value
            }
        }
    }
}
