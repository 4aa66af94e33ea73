import Foundation
import StratusCodegen

/// The resolvers of the generated API: AppSync's model resolvers, over an ``ItemStore``.
///
/// Queries and mutations follow the Amplify GraphQL transformer's resolvers; with conflict
/// detection, writes are versioned and resolved by the model's ``ConflictResolutionStrategy``.
struct ModelResolver: Sendable {
    let api: ServerAPI
    let store: any ServerStore
    let clock: @Sendable () -> Date
    let tokenSecret: [UInt8]
    let locks: WriteLocks
    /// Where committed writes are announced to subscriptions.
    let events: MutationBroadcaster

    var schema: AnnotatedSchema { api.schema }
    /// The store's item calls, in spans when the request is traced.
    var storeCalls: TracedItemStore { TracedItemStore(store: store) }
    var configuration: ServerConfiguration { api.configuration }
    /// Whether `model` has conflict detection.
    func conflictDetection(_ model: ModelType) -> Bool { configuration.detectsConflicts(on: model.name) }

    /// The current instant in epoch milliseconds.
    func now() -> Int {
        Timestamp.milliseconds(clock())
    }

    /// The page size for a `limit` argument: the default page size without one, at most the
    /// maximum page size.
    ///
    /// - Throws: ``ResolverError`` for a limit below 1, with DynamoDB's message.
    func pageSize(_ limit: JSON?) throws(ResolverError) -> Int {
        guard let limit = limit?.intValue else { return max(configuration.defaultPageSize, 1) }
        guard limit >= 1 else {
            throw ResolverError.dynamoDBValidation(
                "1 validation error detected: Value '\(limit)' at 'limit' failed to satisfy constraint: "
                    + "Member must have value greater than or equal to 1"
            )
        }
        return min(limit, max(configuration.maximumPageSize, 1))
    }

    func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    /// The primary key values of `model` in `arguments`, in key order, as stored.
    func key(of model: ModelType, in arguments: JSONObject) throws(ResolverError) -> [JSON] {
        var key: [JSON] = []
        for name in model.primaryKey {
            guard let value = arguments[name], !value.isNull, let field = model.field(named: name) else {
                throw ResolverError.invalidInput("The key field '\(name)' of \(model.name) is missing.")
            }
            // DynamoDB refuses an empty string in its partition and sort key attributes.
            if value.stringValue?.isEmpty == true, model.primaryKey.count <= 2 || name == model.primaryKey[0] {
                throw ResolverError.dynamoDBValidation(
                    "One or more parameter values are not valid. The AttributeValue for a key attribute cannot "
                        + "contain an empty string value. Key: \(name)"
                )
            }
            key.append(try storedValue(value, type: field.type, in: schema))
        }
        return key
    }

    // MARK: - Get

    func get(_ model: ModelType, arguments: JSONObject) async throws -> ResolvedItem? {
        let key = try key(of: model, in: arguments)
        return try await storeCalls.fetchItem(model: model.name, key: key, now: now()).map {
            ResolvedItem(model: model, item: $0)
        }
    }

    // MARK: - List and index queries

    func list(
        _ model: ModelType,
        field: String,
        arguments: JSONObject,
        identity: Identity,
        restriction: ItemPredicate? = nil
    ) async throws -> ResolvedConnection {
        var keyCondition: [ItemPredicate] = []
        if model.hasCustomPrimaryKey, let partitionKey = model.primaryKey.first {
            if let value = arguments[partitionKey], !value.isNull {
                keyCondition.append(.field(partitionKey, .compare(.eq, try stored(value, model, partitionKey))))
                if let sortKey = model.primarySortKeyArgument, let condition = arguments[sortKey.name] {
                    keyCondition.append(try sortKeyCondition(condition, sortKey: sortKey, model: model))
                }
            }
        }
        return try await page(
            model,
            field: field,
            arguments: arguments,
            keyCondition: .all(keyCondition),
            order: model.primaryKey,
            identity: identity,
            restriction: restriction
        )
    }

    func indexQuery(
        _ model: ModelType,
        index: Index,
        arguments: JSONObject,
        identity: Identity,
        restriction: ItemPredicate? = nil
    ) async throws -> ResolvedConnection {
        guard let partitionKey = index.fields.first, let value = arguments[partitionKey], !value.isNull else {
            throw ResolverError.invalidInput("The query \(index.queryField ?? index.name) needs '\(index.fields[0])'.")
        }
        var keyCondition: [ItemPredicate] = [
            .field(partitionKey, .compare(.eq, try stored(value, model, partitionKey)))
        ]
        keyCondition += index.fields.dropFirst().map { .field($0, .exists(true)) }
        if let sortKey = model.sortKeyArgument(of: index), let condition = arguments[sortKey.name] {
            keyCondition.append(try sortKeyCondition(condition, sortKey: sortKey, model: model))
        }
        return try await page(
            model,
            field: index.queryField ?? index.name,
            arguments: arguments,
            keyCondition: .all(keyCondition),
            order: index.fields + model.primaryKey.filter { !index.fields.contains($0) },
            identity: identity,
            restriction: restriction
        )
    }

    /// A page of `model` read in `order`, DynamoDB style, filtered within what `identity` may
    /// read.
    func page(
        _ model: ModelType,
        field: String,
        arguments: JSONObject,
        keyCondition: ItemPredicate,
        order: [String],
        scope: JSON = .null,
        identity: Identity,
        restriction: ItemPredicate? = nil
    ) async throws -> ResolvedConnection {
        let digest = PageToken.digest(field: field, arguments: pagingFree(arguments, scope: scope))
        var after: [JSON]?
        if let token = arguments["nextToken"]?.stringValue {
            guard let decoded = PageToken(decoding: token, secret: tokenSecret, query: digest),
                let lastKey = decoded.lastKey, lastKey.count == order.count
            else { throw ResolverError.invalidNextToken }
            after = lastKey
        }
        let query = PageQuery(
            model: model.name,
            keyCondition: keyCondition,
            filter: Self.restricted(
                try PredicateParser(model: model, schema: schema, identity: identity, operation: .list)
                    .parse(arguments["filter"]),
                Self.restricted(try Self.keyReadability(model, order, identity), restriction)
            ),
            order: order,
            descending: arguments["sortDirection"]?.stringValue == "DESC",
            after: after,
            limit: try pageSize(arguments["limit"]),
            now: now()
        )
        let page = try await storeCalls.fetchPage(query)
        return ResolvedConnection(
            items: page.items.map { ResolvedItem(model: model, item: $0) },
            nextToken: page.lastKey.map { PageToken(query: digest, lastKey: $0).encoded(secret: tokenSecret) },
            startedAt: nil
        )
    }

    /// The items whose key fields the caller may read, when a key field has rules of its own:
    /// a key condition and the order of a page must not tell anything of a value hidden from
    /// the caller. `nil` when every key field is readable wherever the caller reads.
    ///
    /// - Throws: ``ResolverError`` `Unauthorized` when the caller may read a key field nowhere.
    static func keyReadability(
        _ model: ModelType,
        _ keyFields: [String],
        _ identity: Identity
    ) throws(ResolverError) -> ItemPredicate? {
        var readable: [ItemPredicate] = []
        for name in keyFields {
            guard let field = model.field(named: name), Authorization.isGuarded(field) else { continue }
            switch Authorization.readAccess(to: field, of: model, for: identity, operation: .list) {
            case .all: continue
            case .denied: throw Authorization.unauthorized(field: name, type: model.name)
            case .rows(let rules): readable.append(.any(rules.map(\.predicate)))
            }
        }
        return readable.isEmpty ? nil : .all(readable)
    }

    /// A filter narrowed to the items the caller may read.
    static func restricted(_ filter: ItemPredicate?, _ restriction: ItemPredicate?) -> ItemPredicate? {
        guard let restriction else { return filter }
        guard let filter else { return restriction }
        return .all([filter, restriction])
    }

    /// The arguments that name a query: all but `limit` and `nextToken`, and the parent's key for
    /// a relation.
    private func pagingFree(_ arguments: JSONObject, scope: JSON) -> JSON {
        var object = arguments
        object["limit"] = nil
        object["nextToken"] = nil
        object["_scope"] = scope.isNull ? nil : scope
        return .object(object)
    }

    private func stored(_ value: JSON, _ model: ModelType, _ field: String) throws(ResolverError) -> JSON {
        guard let type = model.field(named: field)?.type else { return value }
        return try storedValue(value, type: type, in: schema)
    }

    /// The condition of a sort key argument: `{eq: "a"}`, `{between: ["a", "b"]}`,
    /// `{beginsWith: "a"}`, or for a composite key the same operators over an object of the sort
    /// key fields, compared field by field in key order.
    func sortKeyCondition(
        _ value: JSON,
        sortKey: SortKeyArgument,
        model: ModelType
    ) throws(ResolverError)
        -> ItemPredicate
    {
        guard case .object(let operators) = value else { return .always }
        var predicates: [ItemPredicate] = []
        for (name, operand) in operators where !operand.isNull {
            if !sortKey.isComposite {
                let field = sortKey.fields[0]
                switch name {
                case "between":
                    let bounds = operand.arrayValue ?? []
                    guard bounds.count == 2 else {
                        throw ResolverError.invalidInput("'between' takes two values; it got \(operand.text).")
                    }
                    predicates.append(
                        .field(
                            field,
                            .between(try stored(bounds[0], model, field), try stored(bounds[1], model, field))
                        )
                    )
                case "beginsWith":
                    predicates.append(.field(field, .beginsWith(operand.stringValue ?? operand.text)))
                default:
                    guard let comparison = FieldCondition.Comparison(rawValue: name) else { continue }
                    predicates.append(.field(field, .compare(comparison, try stored(operand, model, field))))
                }
                continue
            }
            let tuple = try compositeValues(operand, sortKey: sortKey, model: model)
            switch name {
            case "between":
                let bounds = operand.arrayValue ?? []
                guard bounds.count == 2 else {
                    throw ResolverError.invalidInput("'between' takes two values; it got \(operand.text).")
                }
                let low = try compositeValues(bounds[0], sortKey: sortKey, model: model)
                let high = try compositeValues(bounds[1], sortKey: sortKey, model: model)
                predicates.append(.all([compare(low, .ge), compare(high, .le)]))
            case "beginsWith":
                guard let last = tuple.last else { continue }
                var conditions = tuple.dropLast().map { ItemPredicate.field($0.field, .compare(.eq, $0.value)) }
                if let prefix = last.value.stringValue {
                    conditions.append(.field(last.field, .beginsWith(prefix)))
                } else {
                    conditions.append(.field(last.field, .compare(.eq, last.value)))
                }
                predicates.append(.all(conditions))
            default:
                guard let comparison = FieldCondition.Comparison(rawValue: name) else { continue }
                predicates.append(compare(tuple, comparison))
            }
        }
        return .all(predicates)
    }

    /// The leading sort key fields a composite key input gives, with their stored values.
    private func compositeValues(
        _ value: JSON,
        sortKey: SortKeyArgument,
        model: ModelType
    ) throws(ResolverError)
        -> [(field: String, value: JSON)]
    {
        guard case .object(let members) = value else { return [] }
        var result: [(String, JSON)] = []
        for field in sortKey.fields {
            guard let member = members[field], !member.isNull else { break }
            result.append((field, try stored(member, model, field)))
        }
        return result
    }

    /// A lexicographic comparison of leading key fields with a tuple of values.
    private func compare(
        _ tuple: [(field: String, value: JSON)],
        _ comparison: FieldCondition.Comparison
    )
        -> ItemPredicate
    {
        guard let first = tuple.first else { return .always }
        if comparison == .eq || comparison == .ne || tuple.count == 1 {
            let equal = ItemPredicate.all(tuple.map { .field($0.field, .compare(.eq, $0.value)) })
            switch comparison {
            case .eq: return equal
            case .ne: return .not(equal)
            default: return .field(first.field, .compare(comparison, first.value))
            }
        }
        let strict: FieldCondition.Comparison = (comparison == .le || comparison == .lt) ? .lt : .gt
        return .any([
            .field(first.field, .compare(strict, first.value)),
            .all([.field(first.field, .compare(.eq, first.value)), compare(Array(tuple.dropFirst()), comparison)]),
        ])
    }
}
