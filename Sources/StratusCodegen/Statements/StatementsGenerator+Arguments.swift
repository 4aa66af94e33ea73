import AWSWire

/// The arguments of the generated query fields, named and typed as the AppSync transformer
/// declares them.
extension StatementsGenerator {
    /// `getPost(id: ID!)`; with a composite primary key, every key field, each non-null.
    func getArguments(of model: ModelType) -> [Statement.Argument] {
        model.primaryKey.map { Statement.Argument(name: $0, type: model.keyType(of: $0) + "!") }
    }

    /// `listPosts(filter:limit:nextToken:)`. A custom primary key adds its partition key (nullable)
    /// and sort key condition before them, and `sortDirection` after:
    /// `listOrders(customerId: ID, createdAt: ModelStringKeyConditionInput, filter: …, limit: …,
    /// nextToken: …, sortDirection: ModelSortDirection)`.
    func listArguments(of model: ModelType) -> [Statement.Argument] {
        let pagination = [
            filterArgument(of: model),
            Statement.Argument(name: "limit", type: "Int"),
            Statement.Argument(name: "nextToken", type: "String"),
        ]
        guard model.primaryKey != ["id"], let partitionKey = model.primaryKey.first else { return pagination }
        let sortKey = sortKeyArgument(Array(model.primaryKey.dropFirst()), keyName: "Primary", in: model)
        return [Statement.Argument(name: partitionKey, type: model.keyType(of: partitionKey))]
            + (sortKey.map { [$0] } ?? [])
            + pagination
            + [Statement.Argument(name: "sortDirection", type: "ModelSortDirection")]
    }

    /// `postsByBlog(blogID: ID!, title: ModelStringKeyConditionInput, sortDirection:, filter:,
    /// limit:, nextToken:)`: the query field of `@index(queryField:)`.
    func indexQueryArguments(of model: ModelType, index: Index) -> [Statement.Argument] {
        guard let partitionKey = index.fields.first else { return [] }
        let sortKey = sortKeyArgument(
            Array(index.fields.dropFirst()),
            keyName: Naming.upperFirst(index.name),
            in: model
        )
        return [Statement.Argument(name: partitionKey, type: model.keyType(of: partitionKey) + "!")]
            + (sortKey.map { [$0] } ?? [])
            + [
                Statement.Argument(name: "sortDirection", type: "ModelSortDirection"),
                filterArgument(of: model),
                Statement.Argument(name: "limit", type: "Int"),
                Statement.Argument(name: "nextToken", type: "String"),
            ]
    }

    /// `filter: Model<Type>FilterInput`.
    func filterArgument(of model: ModelType) -> Statement.Argument {
        Statement.Argument(name: "filter", type: "Model\(model.name)FilterInput")
    }

    /// The condition on the sort key fields of a key: `nil` without sort keys; for one field,
    /// an argument named after it with the key condition input of its scalar
    /// (`createdAt: ModelStringKeyConditionInput`); for several, one argument named after all of
    /// them in camel case with the key's composite input
    /// (`statusCreatedAt: ModelOrderPrimaryCompositeKeyConditionInput`).
    private func sortKeyArgument(_ fields: [String], keyName: String, in model: ModelType) -> Statement.Argument? {
        guard let first = fields.first else { return nil }
        if fields.count == 1 {
            return Statement.Argument(
                name: first,
                type: "Model\(model.keyConditionScalar(of: first))KeyConditionInput"
            )
        }
        let name = first + fields.dropFirst().map(Naming.upperFirst).joined()
        return Statement.Argument(name: name, type: "Model\(model.name)\(keyName)CompositeKeyConditionInput")
    }
}
