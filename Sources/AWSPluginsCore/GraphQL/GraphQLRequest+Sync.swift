import AWSWire
import Amplify

/// The requests of DataStore's sync engine: by schema rather than by type, with the sync fields
/// (`_version`, `_deleted`, `_lastChangedAt`) selected, answering raw JSON.
extension GraphQLRequest where R == JSONValue {
    /// One page of `sync<Plural>`: the records of the model of `schema` matching `filter`
    /// (a GraphQL filter), changed since `lastSync` (milliseconds since 1970) when given.
    ///
    /// The answer is `{items, nextToken, startedAt}`.
    public static func syncQuery(
        modelSchema schema: ModelSchema,
        filter: JSONValue? = nil,
        limit: Int,
        nextToken: String? = nil,
        lastSync: Int? = nil
    ) -> GraphQLRequest<JSONValue> {
        let plural = schema.syncPluralName ?? schema.listPluralName ?? schema.name + "s"
        let field = "sync\(plural)"
        let selection = ModelSelectionSet(schema: schema, includesSyncFields: true).lines(indent: 6)
        let document =
            ([
                "query Sync\(plural)($filter: Model\(schema.name)FilterInput, $limit: Int, $nextToken: String, "
                    + "$lastSync: AWSTimestamp) {",
                "  \(field)(filter: $filter, limit: $limit, nextToken: $nextToken, lastSync: $lastSync) {",
                "    items {",
            ] + selection + ["    }", "    nextToken", "    startedAt", "  }", "}"]).joined(separator: "\n")
        var variables: [String: JSONValue] = ["limit": .integer(limit)]
        if let filter { variables["filter"] = filter }
        if let nextToken { variables["nextToken"] = .string(nextToken) }
        if let lastSync { variables["lastSync"] = .integer(lastSync) }
        return GraphQLRequest<JSONValue>(
            document: document,
            variables: variables,
            responseType: JSONValue.self,
            decodePath: field
        )
    }

    /// `type` events (`onCreatePost`, ...) of the model of `schema`, with the sync fields.
    public static func syncSubscription(
        modelSchema schema: ModelSchema,
        type: GraphQLSubscriptionType
    ) -> GraphQLRequest<JSONValue> {
        let (document, field) = ModelDocument.subscription(schema, type: type, syncFields: true)
        return GraphQLRequest<JSONValue>(
            document: document,
            variables: nil,
            responseType: JSONValue.self,
            decodePath: field
        )
    }

    /// The record of the model of `schema` whose key fields hold `key`, with the sync fields;
    /// `null` when there is none.
    public static func syncGet(modelSchema schema: ModelSchema, key: [String: JSONValue]) -> GraphQLRequest<JSONValue> {
        let keys = schema.primaryKey.fields
        let (document, field) = ModelDocument.get(schema, syncFields: true)
        var variables: [String: JSONValue] = [:]
        for field in keys { variables[field.name] = key[field.name] ?? .null }
        return GraphQLRequest<JSONValue>(
            document: document,
            variables: variables,
            responseType: JSONValue.self,
            decodePath: field
        )
    }

    /// One change of ``syncTransaction(_:)``: the arguments of ``syncMutation(modelSchema:kind:json:version:condition:)``.
    public struct SyncChange: Sendable {
        public var modelSchema: ModelSchema
        public var kind: String
        public var json: [String: JSONValue]
        public var version: Int?
        public var condition: JSONValue?

        public init(
            modelSchema: ModelSchema,
            kind: String,
            json: [String: JSONValue],
            version: Int?,
            condition: JSONValue?
        ) {
            self.modelSchema = modelSchema
            self.kind = kind
            self.json = json
            self.version = version
            self.condition = condition
        }
    }

    /// The mutations of several outbox changes in one document, in order: change `i` is the
    /// root field `m<i>` with the variables `$input<i>` and `$condition<i>`, and the answer is
    /// `{m0: …, m1: …}`. Sent with `Stratus-Transaction: atomic`, `stratus serve` applies them
    /// all or nothing.
    public static func syncTransaction(_ changes: [SyncChange]) -> GraphQLRequest<JSONValue> {
        var declarations: [String] = []
        var fields: [String] = []
        var variables: [String: JSONValue] = [:]
        for (index, change) in changes.enumerated() {
            let single = syncMutation(
                modelSchema: change.modelSchema,
                kind: change.kind,
                json: change.json,
                version: change.version,
                condition: change.condition
            )
            let schema = change.modelSchema
            let withCondition = change.kind != "create" || change.condition != nil
            declarations.append("$input\(index): \(Naming.upperFirst(change.kind))\(schema.name)Input!")
            var arguments = "input: $input\(index)"
            if withCondition {
                declarations.append("$condition\(index): Model\(schema.name)ConditionInput")
                arguments += ", condition: $condition\(index)"
            }
            let selection = ModelSelectionSet(schema: schema, includesSyncFields: true).lines(indent: 4)
            fields += ["  m\(index): \(change.kind)\(schema.name)(\(arguments)) {"] + selection + ["  }"]
            variables["input\(index)"] = single.variables?["input"]
            if let condition = single.variables?["condition"] { variables["condition\(index)"] = condition }
        }
        let document =
            (["mutation Transaction(\(declarations.joined(separator: ", "))) {"] + fields + ["}"])
            .joined(separator: "\n")
        return GraphQLRequest<JSONValue>(document: document, variables: variables, responseType: JSONValue.self)
    }

    /// The mutation that sends one outbox change: `createPost`, `updatePost` or `deletePost`
    /// with `input` built from the record `json` (the model's JSON), `_version` when known, and
    /// `condition` (a GraphQL filter) when the change has one.
    public static func syncMutation(
        modelSchema schema: ModelSchema,
        kind: String,
        json: [String: JSONValue],
        version: Int?,
        condition: JSONValue?
    ) -> GraphQLRequest<JSONValue> {
        var input: [String: JSONValue]
        if kind == "delete" {
            input = [:]
            for field in schema.primaryKey.fields { input[field.name] = json[field.name] ?? .null }
        } else {
            input = ModelInput.values(of: json, schema: schema, nullsForMissing: kind == "update")
        }
        if let version { input["_version"] = .integer(version) }
        let (document, field) = ModelDocument.mutation(
            schema,
            kind: kind,
            withCondition: kind != "create" || condition != nil,
            syncFields: true
        )
        var variables: [String: JSONValue] = ["input": .object(input)]
        if let condition { variables["condition"] = condition }
        return GraphQLRequest<JSONValue>(
            document: document,
            variables: variables,
            responseType: JSONValue.self,
            decodePath: field
        )
    }
}
