/// A field named by a predicate, resolved against a schema: how to read its value from a record
/// and how its values compare.
struct PredicateField {
    /// The field's name as the predicate wrote it.
    let name: String
    /// The model's name, for errors.
    let modelName: String
    /// How the field's values compare.
    let kind: PredicateValueKind
    /// The field's Swift type, for errors: `Int`, `[String]`, `PostStatus`.
    let typeName: String
    private let source: Source

    /// Where the value of a field comes from.
    private enum Source {
        /// The record's member of that name.
        case member
        /// A belongsTo or hasOne field: the record's `targetNames` members, else the primary key
        /// (`keyFields`) of the nested object.
        case association(targetNames: [String], keyFields: [String])
    }

    /// Resolves `name` against `schema`.
    ///
    /// - Throws: ``QueryPredicateError`` when `schema` has no such field and no association uses
    ///   that name as a foreign key, or when the field is a hasMany relation.
    init(named name: String, in schema: ModelSchema) throws {
        self.name = name
        self.modelName = schema.name
        guard let field = schema.field(named: name) else {
            let isForeignKey = schema.sortedFields.contains { $0.association?.targetNames.contains(name) == true }
            guard isForeignKey else { throw QueryPredicateError.unknownField(name, in: schema) }
            self.kind = .foreignKey
            self.typeName = "foreign key"
            self.source = .member
            return
        }
        switch field.type {
        case .collection:
            throw QueryPredicateError.hasManyField(field, in: schema)
        case .model(let associatedModel):
            let keyFields = ModelRegistry.modelSchema(from: associatedModel)?.primaryKey.fields.map(\.name) ?? []
            self.kind = .foreignKey
            self.source = .association(
                targetNames: field.association?.targetNames ?? [],
                keyFields: keyFields.isEmpty ? ["id"] : keyFields
            )
        default:
            let kind = PredicateValueKind(field.type)
            if field.isArray, case .list = kind {
                self.kind = kind
            } else if field.isArray {
                self.kind = .list(of: kind)
            } else {
                self.kind = kind
            }
            self.source = .member
        }
        self.typeName = Self.typeName(of: field)
    }

    /// The field's value in `record`; `nil` when it is missing or null.
    func value(in record: JSONValue) -> JSONValue? {
        switch source {
        case .member:
            return record[name]?.presentValue
        case .association(let targetNames, let keyFields):
            if !targetNames.isEmpty, let key = Self.key(targetNames.map { record[$0] }) {
                return key
            }
            switch record[name] {
            case .none, .null?: return nil
            case .object(let nested)?: return Self.key(keyFields.map { nested[$0] })
            case let scalar?: return scalar
            }
        }
    }

    /// One key value, or a composite key's values joined as ``Model/identifier`` joins them;
    /// `nil` when a component is missing.
    private static func key(_ components: [JSONValue?]) -> JSONValue? {
        let present = components.compactMap { $0?.presentValue }
        guard present.count == components.count, let first = present.first else { return nil }
        if present.count == 1 { return first }
        let joined = present.map(ModelSchema.identifierComponent).joined(separator: ModelSchema.identifierSeparator)
        return .string(joined)
    }

    private static func typeName(of field: ModelField) -> String {
        let name = field.type.swiftTypeName
        if field.isArray, !name.hasPrefix("["), !name.hasPrefix("List<") { return "[\(name)]" }
        return name
    }
}

extension ModelFieldType {
    /// The Swift spelling of the type, for messages: `String`, `Temporal.Date`, `[Address]`,
    /// `List<Comment>`.
    package var swiftTypeName: String {
        switch self {
        case .string: return "String"
        case .int, .timestamp: return "Int"
        case .double: return "Double"
        case .bool: return "Bool"
        case .date: return "Temporal.Date"
        case .dateTime: return "Temporal.DateTime"
        case .time: return "Temporal.Time"
        case .enumeration(let name), .embedded(let name), .model(let name): return name
        case .embeddedCollection(let element): return "[\(element.swiftTypeName)]"
        case .collection(let name): return "List<\(name)>"
        }
    }
}

extension JSONValue {
    /// The value, or `nil` for ``JSONValue/null``: a field that is null counts as missing.
    var presentValue: JSONValue? {
        isNull ? Optional.none : self
    }
}
