import Amplify

/// The key of a record in the normalized cache: `QUERY_ROOT`, a key from `cacheKeyForObject`
/// (`"1"`), or the path of an object that has none (`QUERY_ROOT.listTodos(limit:10).items.0`).
public typealias CacheKey = String

/// Gives the cache key of a response object, or `nil` (or null) to key it by its path.
///
/// ```swift
/// appSyncClient?.apolloClient?.cacheKeyForObject = { $0["id"] }
/// ```
public typealias CacheKeyForObject = @Sendable (_ object: [String: JSONValue]) -> JSONValue?

/// The records of the cache: fields by field key (`name`, `getTodo(id:1)`), references to
/// other records as `{"$reference": key}`.
typealias RecordSet = [CacheKey: [String: JSONValue]]

enum CacheRoot {
    static let query: CacheKey = "QUERY_ROOT"
    static let mutation: CacheKey = "MUTATION_ROOT"
    static let subscription: CacheKey = "SUBSCRIPTION_ROOT"
    static let referenceKey = "$reference"

    /// The root of an operation's type.
    static func key<Operation: GraphQLOperation>(for operation: Operation.Type) -> CacheKey {
        if Operation.self is any GraphQLMutation.Type { return mutation }
        if Operation.self is any GraphQLSubscription.Type { return subscription }
        return query
    }
}

/// The fields `selections` select on an object of type `typename`, with conditions, type cases
/// and fragment spreads resolved as ``SelectionSetReader`` resolves them.
func collectFields(
    _ selections: [any GraphQLSelection],
    typename: String?,
    variables: GraphQLMap?,
    into fields: inout [GraphQLField]
) {
    for selection in selections {
        switch selection {
        case let field as GraphQLField:
            fields.append(field)
        case let condition as GraphQLBooleanCondition:
            if condition.isIncluded(with: variables) {
                collectFields(condition.selections, typename: typename, variables: variables, into: &fields)
            }
        case let spread as GraphQLFragmentSpread:
            let possibleTypes = spread.fragment.possibleTypes
            if possibleTypes.isEmpty || typename.map(possibleTypes.contains) ?? true {
                collectFields(spread.fragment.selections, typename: typename, variables: variables, into: &fields)
            }
        case let typeCase as GraphQLTypeCase:
            let chosen = typename.flatMap { typeCase.variants[$0] } ?? typeCase.default
            collectFields(chosen, typename: typename, variables: variables, into: &fields)
        default:
            preconditionFailure("Unknown selection \(type(of: selection)): use the selection types of AWSAppSync.")
        }
    }
}

/// Splits a response object into records: each object under the key `cacheKeyForObject`
/// gives it, or under its path, with references in place of nested objects.
struct CacheNormalizer {
    let variables: GraphQLMap?
    let cacheKeyForObject: CacheKeyForObject?
    private(set) var records: RecordSet = [:]

    init(variables: GraphQLMap?, cacheKeyForObject: CacheKeyForObject?) {
        self.variables = variables
        self.cacheKeyForObject = cacheKeyForObject
    }

    /// Adds the records of `object`, read with `selections`, under `key`.
    mutating func normalize(_ object: [String: JSONValue], selections: [any GraphQLSelection], key: CacheKey) {
        var fields: [GraphQLField] = []
        collectFields(selections, typename: object["__typename"]?.stringValue, variables: variables, into: &fields)
        var record = records[key] ?? [:]
        for field in fields {
            guard let value = object[field.responseKey] else { continue }
            let fieldKey = field.cacheKey(with: variables)
            record[fieldKey] = normalize(value, type: field.type, path: "\(key).\(fieldKey)")
        }
        records[key] = record
    }

    private mutating func normalize(_ value: JSONValue, type: GraphQLOutputType, path: CacheKey) -> JSONValue {
        if value.isNull { return .null }
        switch type {
        case .nonNull(let wrapped):
            return normalize(value, type: wrapped, path: path)
        case .scalar:
            return value
        case .list(let element):
            guard case .array(let elements) = value else { return value }
            var normalized: [JSONValue] = []
            normalized.reserveCapacity(elements.count)
            for (index, item) in elements.enumerated() {
                normalized.append(normalize(item, type: element, path: "\(path).\(index)"))
            }
            return .array(normalized)
        case .object(let selections):
            guard case .object(let object) = value else { return value }
            let key = cacheKeyForObject?(object).flatMap(Self.keyText) ?? path
            normalize(object, selections: selections, key: key)
            return .object([CacheRoot.referenceKey: .string(key)])
        }
    }

    /// The text of a value `cacheKeyForObject` returned; `nil` for null.
    static func keyText(_ value: JSONValue) -> CacheKey? {
        switch value {
        case .null: return nil
        case .string(let string): return string
        case .integer(let integer): return String(integer)
        case .number(let number): return String(number)
        case .boolean(let boolean): return String(boolean)
        case .array, .object: return value.canonicalText
        }
    }
}

/// Thrown inside the cache when a record or field a read needs is not there.
struct CacheMiss: Error {
    let key: String
}

/// Reads an operation's response back out of records: the inverse of ``CacheNormalizer``.
///
/// What it reads is checked against the selections as ``SelectionSetReader`` checks a
/// response (non-null fields not null, scalars of their type, lists and objects where the
/// selections have them), so that its object can be the data's snapshot without a second walk;
/// a value that does not fit is a ``CacheMiss``.
struct CacheReader {
    let variables: GraphQLMap?
    /// Whether to collect ``dependentKeys``: only watchers need them.
    let tracksDependencies: Bool
    let load: (CacheKey) throws -> [String: JSONValue]?
    /// Loads the records of a list's references together: returns them in the order of the
    /// keys (`nil` for an absent one), or `nil` when it kept them for ``load`` instead.
    let prefetch: ([CacheKey]) throws -> [[String: JSONValue]?]?
    /// The `record.field` keys read so far: what a watcher depends on.
    private(set) var dependentKeys: Set<String> = []

    init(
        variables: GraphQLMap?,
        tracksDependencies: Bool = true,
        load: @escaping (CacheKey) throws -> [String: JSONValue]?,
        prefetch: @escaping ([CacheKey]) throws -> [[String: JSONValue]?]? = { _ in nil }
    ) {
        self.variables = variables
        self.tracksDependencies = tracksDependencies
        self.load = load
        self.prefetch = prefetch
    }

    /// The response object of the record `key` read with `selections`.
    ///
    /// - Throws: ``CacheMiss`` when a record or a field is missing; the loader's errors.
    mutating func readObject(key: CacheKey, selections: [any GraphQLSelection]) throws -> [String: JSONValue] {
        var shape: ObjectShape?
        return try readObject(key: key, selections: selections, shape: &shape)
    }

    /// The response object of the record `key`, with the fields `shape` holds when it was
    /// worked out for the record's type (the objects of a list share it), else worked out here.
    private mutating func readObject(
        key: CacheKey,
        selections: [any GraphQLSelection],
        shape: inout ObjectShape?
    ) throws -> [String: JSONValue] {
        try readObject(key: key, record: try load(key), selections: selections, shape: &shape)
    }

    /// The response object of `record`, the record `key` (`nil`: absent).
    private mutating func readObject(
        key: CacheKey,
        record: [String: JSONValue]?,
        selections: [any GraphQLSelection],
        shape: inout ObjectShape?
    ) throws -> [String: JSONValue] {
        guard let record else { throw CacheMiss(key: key) }
        let typename = record["__typename"]?.stringValue
        if shape == nil || shape?.typename != typename {
            shape = ObjectShape(selections: selections, typename: typename, variables: variables)
        }
        guard let shape else { preconditionFailure("The shape was just worked out.") }
        if shape.isRecordItself, record.count == shape.distinctKeys, try holdsSelectedFields(record, of: shape, at: key)
        {
            // The record holds the selected fields and nothing else, checked: it is the object.
            return record
        }
        var object: [String: JSONValue] = [:]
        object.reserveCapacity(shape.fields.count)
        for field in shape.fields {
            if tracksDependencies { dependentKeys.insert(key + "." + field.key) }
            guard let stored = record[field.key] else { throw CacheMiss(key: key + "." + field.key) }
            var fieldShape: ObjectShape?
            let value = try read(stored, type: field.type, at: key, field.key, shape: &fieldShape)
            object[field.responseKey] = object[field.responseKey].map { SelectionSetReader.merge($0, value) } ?? value
        }
        return object
    }

    /// Reads the stored value of the field `fieldKey` of `record` as `type`; `shape` is that of
    /// the objects it holds, shared by the elements of a list.
    ///
    /// - Throws: ``CacheMiss`` when the value does not fit `type`; the loader's errors.
    private mutating func read(
        _ stored: JSONValue,
        type: GraphQLOutputType,
        at record: CacheKey,
        _ fieldKey: String,
        shape: inout ObjectShape?
    ) throws -> JSONValue {
        if case .nonNull(let wrapped) = type {
            guard !stored.isNull else { throw CacheMiss(key: record + "." + fieldKey) }
            return try read(stored, type: wrapped, at: record, fieldKey, shape: &shape)
        }
        if stored.isNull { return .null }
        switch type {
        case .nonNull(let wrapped):
            return try read(stored, type: wrapped, at: record, fieldKey, shape: &shape)
        case .scalar:
            try check(stored, type: type, at: record, fieldKey)
            return stored
        case .list(let elementType):
            guard case .array(let elements) = stored else { throw CacheMiss(key: record + "." + fieldKey) }
            var values: [JSONValue] = []
            values.reserveCapacity(elements.count)
            var elementShape: ObjectShape?
            guard let selections = Self.objectSelections(of: elementType) else {
                for element in elements {
                    values.append(try read(element, type: elementType, at: record, fieldKey, shape: &elementShape))
                }
                return .array(values)
            }
            let references = elements.map { $0.objectValue?[CacheRoot.referenceKey]?.stringValue }
            let records = try prefetch(references.compactMap { $0 })
            var position = 0
            for (element, reference) in zip(elements, references) {
                if let records, let reference {
                    // The loader handed the records over in the order of the references.
                    let object = try readObject(
                        key: reference,
                        record: records[position],
                        selections: selections,
                        shape: &elementShape
                    )
                    values.append(.object(object))
                    position += 1
                } else {
                    values.append(try read(element, type: elementType, at: record, fieldKey, shape: &elementShape))
                }
            }
            return .array(values)
        case .object(let selections):
            guard case .object(let reference) = stored, let key = reference[CacheRoot.referenceKey]?.stringValue
            else { throw CacheMiss(key: record + "." + fieldKey) }
            return .object(try readObject(key: key, selections: selections, shape: &shape))
        }
    }

    /// The selections of a list's elements when they are objects (nullable or not).
    private static func objectSelections(of elementType: GraphQLOutputType) -> [any GraphQLSelection]? {
        switch elementType {
        case .object(let selections), .nonNull(.object(let selections)): return selections
        default: return nil
        }
    }

    /// Whether `record`, which has as many fields as `shape` selects, holds the selected fields
    /// (checked against their types); walks the record rather than looking each field up.
    private mutating func holdsSelectedFields(
        _ record: [String: JSONValue],
        of shape: ObjectShape,
        at key: CacheKey
    ) throws -> Bool {
        for (name, stored) in record {
            guard let type = shape.type(ofField: name) else { return false }
            if tracksDependencies { dependentKeys.insert(key + "." + name) }
            try check(stored, type: type, at: key, name)
        }
        return true
    }

    /// Checks a stored value of a type without objects, as ``read(_:type:at:_:shape:)`` would
    /// read it, without building it again.
    ///
    /// - Throws: ``CacheMiss`` when the value does not fit `type`.
    private func check(_ stored: JSONValue, type: GraphQLOutputType, at record: CacheKey, _ fieldKey: String) throws {
        switch type {
        case .nonNull(let wrapped):
            guard !stored.isNull else { throw CacheMiss(key: record + "." + fieldKey) }
            try check(stored, type: wrapped, at: record, fieldKey)
        case _ where stored.isNull:
            return
        case .scalar(let scalar):
            do {
                _ = try scalar.init(jsonValue: stored)
            } catch {
                throw CacheMiss(key: record + "." + fieldKey)
            }
        case .list(let elementType):
            guard case .array(let elements) = stored else { throw CacheMiss(key: record + "." + fieldKey) }
            for element in elements { try check(element, type: elementType, at: record, fieldKey) }
        case .object:
            preconditionFailure("Objects are read, not checked: their records are other records.")
        }
    }
}

/// The fields that selections select on objects of one type: worked out once for all the
/// objects of a list rather than once per object.
private struct ObjectShape {
    struct Field {
        /// The field's key in a record: its name, with its arguments when it has some.
        let key: String
        let responseKey: String
        let type: GraphQLOutputType
    }

    let typename: String?
    let fields: [Field]
    /// How many different record keys ``fields`` have (a fragment may select a field again).
    let distinctKeys: Int
    /// Whether a record with exactly these fields is the object itself: every field is keyed
    /// in the record as in the response (no alias, no arguments) and holds no objects, which a
    /// record holds as references to other records. A field selected twice reads the same
    /// stored value, so the merge of its reads is that value.
    let isRecordItself: Bool
    /// The position of each key in ``fields``, for shapes of more fields than a walk is fast for.
    private let fieldIndex: [String: Int]?
    private static let fieldsToWalk = 12

    init(selections: [any GraphQLSelection], typename: String?, variables: GraphQLMap?) {
        var selected: [GraphQLField] = []
        collectFields(selections, typename: typename, variables: variables, into: &selected)
        self.typename = typename
        fields = selected.map { field in
            Field(
                key: field.arguments?.isEmpty ?? true ? field.name : field.cacheKey(with: variables),
                responseKey: field.responseKey,
                type: field.type
            )
        }
        let keys = fields.map(\.key)
        distinctKeys = Set(keys).count
        fieldIndex =
            keys.count > Self.fieldsToWalk
            ? Dictionary(zip(keys, keys.indices), uniquingKeysWith: { first, _ in first }) : nil
        isRecordItself = fields.allSatisfy { $0.key == $0.responseKey && !Self.holdsObjects($0.type) }
    }

    /// The type of the field keyed `key` in a record, or `nil` when none is selected. A shape
    /// has a handful of fields: a walk of them compares short strings, faster than hashing.
    func type(ofField key: String) -> GraphQLOutputType? {
        if let index = fieldIndex { return index[key].map { fields[$0].type } }
        for field in fields where field.key == key { return field.type }
        return nil
    }

    private static func holdsObjects(_ type: GraphQLOutputType) -> Bool {
        switch type {
        case .scalar: return false
        case .object: return true
        case .nonNull(let wrapped), .list(let wrapped): return holdsObjects(wrapped)
        }
    }
}
