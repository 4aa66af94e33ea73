import StratusCodegen

/// An argument of a generated field: `limit: Int`.
struct APIArgument: Hashable {
    var name: String
    /// The type as GraphQL writes it.
    var type: String
}

/// The argument that conditions the sort key fields of a key: `title: ModelStringKeyConditionInput`
/// for one field, `statusCreatedAt: ModelPostByStatusCompositeKeyConditionInput` for several.
struct SortKeyArgument: Hashable {
    var name: String
    var type: String
    /// The sort key fields, in key order.
    var fields: [String]

    var isComposite: Bool { fields.count > 1 }
}

extension ModelType {
    /// Fields stored in the model's table: all but relation fields.
    var storedFields: [Field] {
        fields.filter { $0.type.kind != .model }
    }

    /// The `createdAt`/`updatedAt` field names, those that are on.
    var timestampFields: [String] {
        [timestamps?.createdAt, timestamps?.updatedAt].compactMap { $0 }
    }

    /// `getPost(id: ID!)`; with a composite primary key, every key field, each non-null.
    var getArguments: [APIArgument] {
        primaryKey.map { APIArgument(name: $0, type: keyType(of: $0) + "!") }
    }

    /// `listPosts(filter:limit:nextToken:)`. A custom primary key adds its partition key
    /// (nullable) and sort key condition before them, and `sortDirection` after.
    var listArguments: [APIArgument] {
        let pagination = [filterArgument, APIArgument(name: "limit", type: "Int"), nextTokenArgument]
        guard hasCustomPrimaryKey, let partitionKey = primaryKey.first else { return pagination }
        let sortKey = primarySortKeyArgument.map { [APIArgument(name: $0.name, type: $0.type)] } ?? []
        return [APIArgument(name: partitionKey, type: keyType(of: partitionKey))] + sortKey + pagination
            + [sortDirectionArgument]
    }

    /// `syncPosts(filter:limit:nextToken:lastSync:)`.
    var syncArguments: [APIArgument] {
        [
            filterArgument, APIArgument(name: "limit", type: "Int"), nextTokenArgument,
            APIArgument(name: "lastSync", type: "AWSTimestamp"),
        ]
    }

    /// `postsByBlog(blogID: ID!, title: ModelStringKeyConditionInput, sortDirection:, filter:,
    /// limit:, nextToken:)`: the query field of `@index(queryField:)`.
    func indexQueryArguments(_ index: Index) -> [APIArgument] {
        guard let partitionKey = index.fields.first else { return [] }
        let sortKey = sortKeyArgument(of: index).map { [APIArgument(name: $0.name, type: $0.type)] } ?? []
        return [APIArgument(name: partitionKey, type: keyType(of: partitionKey) + "!")] + sortKey
            + [sortDirectionArgument, filterArgument, APIArgument(name: "limit", type: "Int"), nextTokenArgument]
    }

    /// `true` when the primary key is not the default `id`.
    var hasCustomPrimaryKey: Bool { primaryKey != ["id"] }

    /// The sort key condition of the primary key, `nil` without sort keys.
    var primarySortKeyArgument: SortKeyArgument? {
        sortKeyArgument(fields: Array(primaryKey.dropFirst()), keyName: "Primary")
    }

    /// The sort key condition of an index, `nil` without sort keys.
    func sortKeyArgument(of index: Index, droppingFirst count: Int = 1) -> SortKeyArgument? {
        sortKeyArgument(fields: Array(index.fields.dropFirst(count)), keyName: Naming.upperFirst(index.name))
    }

    /// The composite key condition inputs the model needs: one per key with several sort fields.
    var compositeKeys: [(typeName: String, keyInputName: String, fields: [String])] {
        var keys: [(String, [String])] = []
        if primaryKey.count > 2 { keys.append(("Primary", Array(primaryKey.dropFirst()))) }
        for index in indexes where index.fields.count > 2 {
            keys.append((Naming.upperFirst(index.name), Array(index.fields.dropFirst())))
        }
        return keys.map { keyName, fields in
            (
                "Model\(name)\(keyName)CompositeKeyConditionInput",
                "Model\(name)\(keyName)CompositeKeyInput", fields
            )
        }
    }

    private func sortKeyArgument(fields: [String], keyName: String) -> SortKeyArgument? {
        guard let first = fields.first else { return nil }
        if fields.count == 1 {
            return SortKeyArgument(
                name: first,
                type: "Model\(keyConditionScalar(of: first))KeyConditionInput",
                fields: fields
            )
        }
        return SortKeyArgument(
            name: first + fields.dropFirst().map(Naming.upperFirst).joined(),
            type: "Model\(name)\(keyName)CompositeKeyConditionInput",
            fields: fields
        )
    }

    var filterArgument: APIArgument { APIArgument(name: "filter", type: "Model\(name)FilterInput") }
    private var nextTokenArgument: APIArgument { APIArgument(name: "nextToken", type: "String") }
    private var sortDirectionArgument: APIArgument { APIArgument(name: "sortDirection", type: "ModelSortDirection") }

    /// The connection field and its arguments for a `@hasMany` field: the related model's filter,
    /// `sortDirection`, `limit`, `nextToken`, and a sort key condition when the relation's index
    /// has sort keys.
    func hasManyArguments(of relation: Relation, in schema: AnnotatedSchema) -> [APIArgument] {
        var arguments: [APIArgument] = []
        if let child = schema.model(named: relation.relatedModel),
            let sortKey = child.hasManySortKey(of: relation)
        {
            arguments.append(APIArgument(name: sortKey.name, type: sortKey.type))
        }
        return arguments + [
            APIArgument(name: "filter", type: "Model\(relation.relatedModel)FilterInput"),
            APIArgument(name: "sortDirection", type: "ModelSortDirection"),
            APIArgument(name: "limit", type: "Int"),
            APIArgument(name: "nextToken", type: "String"),
        ]
    }

    /// For the child of a `@hasMany` through an index, the sort key condition of that index.
    func hasManySortKey(of relation: Relation) -> SortKeyArgument? {
        guard let indexName = relation.indexName, let index = indexes.first(where: { $0.name == indexName }) else {
            return nil
        }
        return sortKeyArgument(of: index, droppingFirst: relation.childKeyFields.count)
    }
}

extension Field {
    /// `true` for scalar and enum fields, single or lists: those filters and conditions compare.
    var isFilterable: Bool {
        switch type.kind {
        case .scalar, .enumeration: return true
        case .nonModel, .model, .interface, .union, .input, .customScalar, .connection: return false
        }
    }

    /// The scalar, for scalar fields.
    var scalar: Scalar? {
        if case .scalar(let scalar) = type.kind { return scalar }
        return nil
    }
}

extension Scalar {
    /// The scalar whose `Model<Scalar>Input` filters this one: `ID`, `Int`, `Float`, `Boolean`
    /// keep theirs, `AWSTimestamp` filters as `Int`, the others as `String`.
    var filterScalar: Scalar {
        switch self {
        case .id, .int, .float, .boolean: return self
        case .awsTimestamp: return .int
        case .string, .awsDate, .awsTime, .awsDateTime, .awsEmail, .awsJSON, .awsPhone, .awsURL, .awsIPAddress:
            return .string
        }
    }
}
