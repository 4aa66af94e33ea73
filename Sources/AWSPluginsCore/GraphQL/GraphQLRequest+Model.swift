import AWSWire
import Amplify
import Foundation

/// The subscription a model request listens to.
public enum GraphQLSubscriptionType: String, Sendable, CaseIterable {
    case onCreate
    case onUpdate
    case onDelete
}

extension GraphQLRequest {
    /// Creates `model`: `createPost(input:)`.
    ///
    /// - Throws: `APIError.operationError(_:_:)` naming the model and its identifier when the
    ///   model cannot be encoded (a `Double` that is infinite or NaN, say).
    public static func create<M: Model>(
        _ model: M,
        includesSyncFields: Bool = false
    ) throws(APIError) -> GraphQLRequest<M> {
        mutation(
            model,
            kind: "create",
            input: try ModelInput.values(of: model, nullsForMissing: false, operation: "create"),
            where: nil,
            syncFields: includesSyncFields
        )
    }

    /// Updates `model`; a field that is `nil` is sent as `null`, which clears it. With a predicate,
    /// the backend updates only when the stored record matches it. On an API with conflict
    /// detection, pass the `_version` the change is based on: without it, AUTOMERGE keeps the
    /// server's values.
    ///
    /// - Throws: `APIError.operationError(_:_:)` naming the model and its identifier when the
    ///   model cannot be encoded.
    public static func update<M: Model>(
        _ model: M,
        where predicate: (any QueryPredicate)? = nil,
        version: Int? = nil,
        includesSyncFields: Bool = false
    ) throws(APIError) -> GraphQLRequest<M> {
        let values = try ModelInput.values(of: model, nullsForMissing: true, operation: "update")
        return mutation(
            model,
            kind: "update",
            input: values.merging(ModelInput.version(version)) { _, new in new },
            where: predicate,
            syncFields: includesSyncFields
        )
    }

    /// Deletes `model`; with a predicate, only when the stored record matches it. On an API with
    /// conflict detection, pass the `_version` the deletion is based on.
    ///
    /// - Throws: `APIError.operationError(_:_:)` naming the model and its identifier when the
    ///   model cannot be encoded.
    public static func delete<M: Model>(
        _ model: M,
        where predicate: (any QueryPredicate)? = nil,
        version: Int? = nil,
        includesSyncFields: Bool = false
    ) throws(APIError) -> GraphQLRequest<M> {
        mutation(
            model,
            kind: "delete",
            input: try ModelInput.key(of: model).merging(ModelInput.version(version)) { _, new in new },
            where: predicate,
            syncFields: includesSyncFields
        )
    }

    /// Reads the model of type `modelType` whose identifier is `id`: `getPost(id:)`. For a composite
    /// key, `id` is the model's `Model.identifier`: the key values joined with `#`.
    public static func get<M: Model>(
        _ modelType: M.Type,
        byId id: String,
        includesSyncFields: Bool = false
    ) -> GraphQLRequest<M?> {
        let schema = M.schema
        let keys = schema.primaryKey.fields
        let values = keys.count > 1 ? id.components(separatedBy: ModelSchema.identifierSeparator) : [id]
        var variables: [String: JSONValue] = [:]
        for (key, value) in zip(keys, values) {
            variables[key.name] =
                key.type == .int || key.type == .timestamp
                ? (Int(value).map(JSONValue.integer) ?? .string(value)) : .string(value)
        }
        return get(modelType, variables: variables, includesSyncFields: includesSyncFields)
    }

    /// Reads the model of type `modelType` whose custom primary key is `identifier`:
    /// `getAuthor(country:handle:)`, each key field a variable of its own type.
    ///
    /// ```swift
    /// let author = try await Amplify.API.query(
    ///     request: .get(Author.self, byIdentifier: .identifier(country: "NZ", handle: "kiwi"))
    /// ).get()
    /// ```
    public static func get<M: Model>(
        _ modelType: M.Type,
        byIdentifier identifier: ModelIdentifier<M, ModelIdentifierFormat.Custom>,
        includesSyncFields: Bool = false
    ) -> GraphQLRequest<M?> {
        let variables = Dictionary(
            identifier.fields.map { ($0.name, $0.value) },
            uniquingKeysWith: { first, _ in first }
        )
        return get(modelType, variables: variables, includesSyncFields: includesSyncFields)
    }

    private static func get<M: Model>(
        _ modelType: M.Type,
        variables: [String: JSONValue],
        includesSyncFields: Bool
    ) -> GraphQLRequest<M?> {
        let (document, field) = ModelDocument.get(M.schema, syncFields: includesSyncFields)
        return GraphQLRequest<M?>(document: document, variables: variables, responseType: M?.self, decodePath: field)
    }

    static func graphQLKeyType(of field: ModelField) -> String {
        switch field.type {
        case .int, .timestamp: return "Int!"
        case .double: return "Float!"
        case .string where field.name == "id": return "ID!"
        case .enumeration(let name): return name + "!"
        case .date: return "AWSDate!"
        case .dateTime: return "AWSDateTime!"
        case .time: return "AWSTime!"
        default: return "String!"
        }
    }

    /// Lists models of type `modelType` matching `predicate`, one page of at most `limit`
    /// (default 1000) starting at `nextToken`. The returned `List` carries the next page's token.
    public static func list<M: Model>(
        _ modelType: M.Type,
        where predicate: (any QueryPredicate)? = nil,
        limit: Int? = nil,
        nextToken: String? = nil,
        includesSyncFields: Bool = false
    ) -> GraphQLRequest<List<M>> {
        let schema = M.schema
        let plural = schema.listPluralName ?? M.modelName + "s"
        let field = "list\(plural)"
        let selection = ModelSelectionSet(schema: schema, includesSyncFields: includesSyncFields).lines(indent: 6)
        let document =
            ([
                "query List\(plural)($filter: Model\(M.modelName)FilterInput, $limit: Int, $nextToken: String) {",
                "  \(field)(filter: $filter, limit: $limit, nextToken: $nextToken) {",
                "    items {",
            ] + selection + ["    }", "    nextToken", "  }", "}"]).joined(separator: "\n")
        var variables: [String: JSONValue] = ["limit": .integer(limit ?? 1000)]
        if let filter = predicate?.graphQLFilter(for: schema) { variables["filter"] = filter }
        if let nextToken { variables["nextToken"] = .string(nextToken) }
        return GraphQLRequest<List<M>>(
            document: document,
            variables: variables,
            responseType: List<M>.self,
            decodePath: field
        )
    }

    /// Listens to `type` events of models of type `modelType`: `onCreatePost`.
    public static func subscription<M: Model>(
        of modelType: M.Type,
        type: GraphQLSubscriptionType,
        includesSyncFields: Bool = false
    ) -> GraphQLRequest<M> {
        let (document, field) = ModelDocument.subscription(M.schema, type: type, syncFields: includesSyncFields)
        return GraphQLRequest<M>(document: document, variables: nil, responseType: M.self, decodePath: field)
    }

    private static func mutation<M: Model>(
        _ model: M,
        kind: String,
        input: [String: JSONValue],
        where predicate: (any QueryPredicate)?,
        syncFields: Bool
    ) -> GraphQLRequest<M> {
        let (document, field) = ModelDocument.mutation(
            M.schema,
            kind: kind,
            withCondition: kind != "create" || predicate != nil,
            syncFields: syncFields
        )
        var variables: [String: JSONValue] = ["input": .object(input)]
        if let condition = predicate?.graphQLFilter(for: M.schema) { variables["condition"] = condition }
        return GraphQLRequest<M>(document: document, variables: variables, responseType: M.self, decodePath: field)
    }
}

/// The documents of the model requests, by schema: the typed builders and DataStore's sync
/// requests share them.
enum ModelDocument {
    /// `mutation CreatePost($input: CreatePostInput![, $condition: ModelPostConditionInput])`.
    static func mutation(
        _ schema: ModelSchema,
        kind: String,
        withCondition: Bool,
        syncFields: Bool
    ) -> (document: String, field: String) {
        let field = kind + schema.name
        let arguments = withCondition ? "input: $input, condition: $condition" : "input: $input"
        let declarations =
            "$input: \(Naming.upperFirst(kind))\(schema.name)Input!"
            + (withCondition ? ", $condition: Model\(schema.name)ConditionInput" : "")
        let selection = ModelSelectionSet(schema: schema, includesSyncFields: syncFields).lines(indent: 4)
        let document =
            (["mutation \(Naming.upperFirst(field))(\(declarations)) {", "  \(field)(\(arguments)) {"] + selection + [
                "  }", "}",
            ])
            .joined(separator: "\n")
        return (document, field)
    }

    /// `query GetPost($id: ID!)`, with one variable per key field.
    static func get(_ schema: ModelSchema, syncFields: Bool) -> (document: String, field: String) {
        let keys = schema.primaryKey.fields
        let field = "get\(schema.name)"
        let declarations = keys.map { "$\($0.name): \(GraphQLRequest<JSONValue>.graphQLKeyType(of: $0))" }
            .joined(separator: ", ")
        let arguments = keys.map { "\($0.name): $\($0.name)" }.joined(separator: ", ")
        let selection = ModelSelectionSet(schema: schema, includesSyncFields: syncFields).lines(indent: 4)
        let document =
            (["query Get\(schema.name)(\(declarations)) {", "  \(field)(\(arguments)) {"] + selection + ["  }", "}"])
            .joined(separator: "\n")
        return (document, field)
    }

    /// `subscription OnCreatePost { onCreatePost { … } }`.
    static func subscription(
        _ schema: ModelSchema,
        type: GraphQLSubscriptionType,
        syncFields: Bool
    ) -> (document: String, field: String) {
        let field = type.rawValue + schema.name
        let selection = ModelSelectionSet(schema: schema, includesSyncFields: syncFields).lines(indent: 4)
        let document =
            (["subscription \(Naming.upperFirst(field)) {", "  \(field) {"] + selection + ["  }", "}"])
            .joined(separator: "\n")
        return (document, field)
    }
}

/// The `input` of a model mutation, from the model's JSON and its schema.
enum ModelInput {
    /// Every stored field the backend accepts: no read-only fields, no associations (their
    /// foreign keys are fields of their own).
    ///
    /// - Throws: ``APIError/operationError(_:_:)`` when the model cannot be encoded.
    static func values<M: Model>(
        of model: M,
        nullsForMissing: Bool,
        operation: String
    ) throws(APIError) -> [String: JSONValue] {
        values(of: try fields(of: model, operation: operation), schema: M.schema, nullsForMissing: nullsForMissing)
    }

    /// The `input` of a record's JSON: its stored fields the backend accepts, and with
    /// `nullsForMissing` a `null` for every missing field that is not part of the key.
    static func values(
        of json: [String: JSONValue],
        schema: ModelSchema,
        nullsForMissing: Bool
    ) -> [String: JSONValue] {
        let keyNames = Set(schema.primaryKey.fields.map(\.name))
        var input: [String: JSONValue] = [:]
        for field in schema.sortedFields where !field.isReadOnly && !field.type.isAssociation {
            if let value = json[field.name], !value.isNull {
                input[field.name] = value
            } else if nullsForMissing && !keyNames.contains(field.name) {
                input[field.name] = .null
            }
        }
        return input
    }

    /// `_version`, when known.
    static func version(_ version: Int?) -> [String: JSONValue] {
        version.map { ["_version": .integer($0)] } ?? [:]
    }

    /// The primary-key fields only.
    ///
    /// - Throws: ``APIError/operationError(_:_:)`` when the model cannot be encoded.
    static func key<M: Model>(of model: M) throws(APIError) -> [String: JSONValue] {
        let json = try fields(of: model, operation: "delete")
        var input: [String: JSONValue] = [:]
        for field in M.schema.primaryKey.fields { input[field.name] = json[field.name] ?? .null }
        return input
    }

    /// The model's fields, as its JSON object.
    private static func fields<M: Model>(of model: M, operation: String) throws(APIError) -> [String: JSONValue] {
        let json: JSONValue
        do {
            json = try model.jsonValue()
        } catch {
            throw APIError.operationError(
                "The \(M.modelName) '\(model.identifier)' cannot be encoded as the input of "
                    + "\(operation)\(M.modelName): \(error).",
                "Check the values of its fields; a Double cannot be infinite or NaN."
            )
        }
        guard case .object(let members) = json else {
            throw APIError.operationError(
                "The \(M.modelName) '\(model.identifier)' encodes as \(json), not as a JSON object, so it cannot be "
                    + "the input of \(operation)\(M.modelName).",
                "Regenerate the model with `stratus codegen models`."
            )
        }
        return members
    }
}
