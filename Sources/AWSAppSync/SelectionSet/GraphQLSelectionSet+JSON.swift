extension GraphQLSelectionSet {
    /// Reads a response object (an operation's `data`, or any object its selections describe),
    /// checking it against ``selections``.
    ///
    /// Each selected field must be present under its response key (the alias, or the name);
    /// a non-null field must not be null; scalars and enums must have their type; lists and
    /// objects must be lists and objects. Fragment spreads and type cases apply according to
    /// the object's `__typename`, and `@include`/`@skip` conditions according to `variables`.
    /// The snapshot keeps the selected fields only, fields selected twice merged.
    ///
    /// ```swift
    /// let data = try ListTodosQuery.Data(jsonObject: ["listTodos": ["__typename": "ModelTodoConnection", …]])
    /// ```
    ///
    /// - Throws: ``JSONDecodingError`` naming the path of the first value that does not fit.
    public init(jsonObject: [String: JSONValue], variables: GraphQLMap? = nil) throws(JSONDecodingError) {
        let reader = SelectionSetReader(variables: variables)
        self.init(snapshot: try reader.read(Self.selections, from: jsonObject, path: []))
    }

    /// The selection set as a response object: its selected fields, checked against
    /// ``selections`` as ``init(jsonObject:variables:)`` checks a response.
    ///
    /// - Throws: ``JSONDecodingError`` naming the path of the first field that is absent or
    ///   does not have its type, as in a snapshot built by hand.
    public func jsonObject(variables: GraphQLMap? = nil) throws(JSONDecodingError) -> [String: JSONValue] {
        try SelectionSetReader(variables: variables).read(Self.selections, from: snapshot, path: [])
    }
}

/// Walks selections over a JSON object, keeping the selected fields and checking their types:
/// the one walk behind reading a response and writing a selection set back.
struct SelectionSetReader {
    let variables: GraphQLMap?

    func read(
        _ selections: [any GraphQLSelection],
        from object: [String: JSONValue],
        path: [String]
    ) throws(JSONDecodingError) -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        try collect(selections, from: object, path: path, into: &result)
        return result
    }

    private func collect(
        _ selections: [any GraphQLSelection],
        from object: [String: JSONValue],
        path: [String],
        into result: inout [String: JSONValue]
    ) throws(JSONDecodingError) {
        let typename = object["__typename"]?.stringValue
        for selection in selections {
            switch selection {
            case let field as GraphQLField:
                let key = field.responseKey
                let fieldPath = path + [key]
                guard let value = object[key] else { throw .missingValue(at: fieldPath) }
                let read = try self.value(value, of: field.type, path: fieldPath)
                result[key] = result[key].map { Self.merge($0, read) } ?? read
            case let condition as GraphQLBooleanCondition:
                if condition.isIncluded(with: variables) {
                    try collect(condition.selections, from: object, path: path, into: &result)
                }
            case let spread as GraphQLFragmentSpread:
                let possibleTypes = spread.fragment.possibleTypes
                if possibleTypes.isEmpty || typename.map(possibleTypes.contains) ?? true {
                    try collect(spread.fragment.selections, from: object, path: path, into: &result)
                }
            case let typeCase as GraphQLTypeCase:
                let chosen = typename.flatMap { typeCase.variants[$0] } ?? typeCase.default
                try collect(chosen, from: object, path: path, into: &result)
            default:
                preconditionFailure("Unknown selection \(type(of: selection)): use the selection types of AWSAppSync.")
            }
        }
    }

    private func value(
        _ value: JSONValue,
        of type: GraphQLOutputType,
        path: [String]
    ) throws(JSONDecodingError) -> JSONValue {
        if case .nonNull(let wrapped) = type {
            if value.isNull { throw .nullValue(expected: Self.describe(wrapped), at: path) }
            return try self.value(value, of: wrapped, path: path)
        }
        if value.isNull { return .null }
        switch type {
        case .nonNull(let wrapped):
            return try self.value(value, of: wrapped, path: path)
        case .scalar(let scalar):
            do {
                _ = try scalar.init(jsonValue: value)
            } catch {
                throw .wrongType(value, expected: Self.describe(type), at: path)
            }
            return value
        case .list(let elementType):
            guard case .array(let elements) = value else {
                throw .wrongType(value, expected: Self.describe(type), at: path)
            }
            var read: [JSONValue] = []
            read.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                read.append(try self.value(element, of: elementType, path: path + [String(index)]))
            }
            return .array(read)
        case .object(let selections):
            guard case .object(let object) = value else {
                throw .wrongType(value, expected: "an object", at: path)
            }
            return .object(try read(selections, from: object, path: path))
        }
    }

    /// `String`, `a list of Int`, `an object`: a type as messages name it.
    private static func describe(_ type: GraphQLOutputType) -> String {
        switch type {
        case .scalar(let scalar): return String(describing: scalar)
        case .object: return "an object"
        case .nonNull(let wrapped): return describe(wrapped)
        case .list(let element): return "a list of \(describe(element))"
        }
    }

    /// Two reads of the same response key: objects merge field by field, lists element by
    /// element; otherwise the later read wins (both come from the same value).
    static func merge(_ first: JSONValue, _ second: JSONValue) -> JSONValue {
        switch (first, second) {
        case (.object(let a), .object(let b)):
            return .object(a.merging(b) { merge($0, $1) })
        case (.array(let a), .array(let b)) where a.count == b.count:
            return .array(zip(a, b).map { merge($0, $1) })
        default:
            return second
        }
    }
}
