import Foundation

/// How the local backend derives its API and resolves writes.
///
/// Every property has the default an Amplify project using DataStore gets: conflict detection on
/// for every model, resolved by automerge, tombstones kept for 30 days, the delta journal for 30
/// minutes, pages of 100 items and at most 1,000. `Idempotency-Key`s of mutations are kept for
/// 24 hours.
///
/// ```swift
/// var configuration = ServerConfiguration()
/// configuration.conflictResolution = .optimisticConcurrency
/// configuration.modelConflictResolution["Post"] = .custom { context in
///     .resolve(context.existingItem)
/// }
/// ```
public struct ServerConfiguration: Sendable {
    /// Whether models carry `_version`, `_deleted` and `_lastChangedAt`, deletes leave
    /// tombstones, and the API has `sync*` queries and `startedAt` on connections.
    public var conflictDetection: Bool

    /// Models without conflict detection in an API that has it: no sync metadata, no `sync*`
    /// query, and deletes that leave no tombstone, as if ``conflictDetection`` were off for them.
    public var modelsWithoutConflictDetection: Set<String> = []

    /// Whether `model` carries `_version`, `_deleted` and `_lastChangedAt` and has a `sync*` query.
    public func detectsConflicts(on model: String) -> Bool {
        conflictDetection && !modelsWithoutConflictDetection.contains(model)
    }

    /// The strategy for models without an entry in ``modelConflictResolution``.
    public var conflictResolution: ConflictResolutionStrategy

    /// Strategies for single models, by model name.
    public var modelConflictResolution: [String: ConflictResolutionStrategy]

    /// How long a deleted item stays as a tombstone, returned by get, list and sync.
    public var tombstoneTTL: Duration

    /// How long the delta journal keeps a change; a `sync*` query whose `lastSync` is older
    /// gets a full base scan instead.
    public var deltaSyncTTL: Duration

    /// The page size of list, sync and relation queries without `limit`.
    public var defaultPageSize: Int

    /// The largest page a query returns, whatever its `limit`.
    public var maximumPageSize: Int

    /// AppSync's `queryDepthLimit`: the deepest nesting of fields a request may select, the root
    /// field being level 1. AppSync's default, 0, sets no limit of its own, but a request is
    /// always refused beyond 75 levels, the highest limit AppSync accepts; so is any value
    /// outside 1–75.
    public var queryDepthLimit: Int

    /// AppSync's `resolverCountLimit`: the most resolvers a request may run, counting root
    /// fields and relation fields where the document selects them; 10,000 by default, as in
    /// AppSync, where 0 and any value outside 1–10,000 mean 10,000 too.
    public var resolverCountLimit: Int

    /// How long the HTTP endpoint keeps the response to a mutation sent with an
    /// `Idempotency-Key` header, and answers it again to a repeat of the request; 24 hours by
    /// default. Keys are kept in the data directory, per caller, and removed once expired.
    public var idempotencyKeyTTL: Duration

    /// The environment's name, what `${env}` in `@function(name:)` becomes (`"dev"`); `nil`
    /// removes `-${env}` from names, as Amplify does without an environment.
    public var environmentName: String?

    /// The functions of `@function` fields and Lambda resolvers, by function name (`${env}`
    /// replaced).
    public var functions: [String: LocalFunction]

    /// Where the functions' last invocations are kept, with their events, outcomes and log
    /// lines (the console's Functions page); `nil` keeps none. Servers given the same record,
    /// as a schema reload is, add to it.
    public var functionInvocations: FunctionInvocations? = nil

    /// The data sources of fields without a directive, by `Type.field` (`"Query.weather"`).
    /// An entry for a field with `@function` takes its place.
    public var resolvers: [String: ConfiguredResolver]

    /// Where the requests of `@http` fields go instead of the origin their URL names, by that
    /// origin (`"https://api.example.com"`, or as written, `"https://${env}.example.com"`): a
    /// local server's origin, with a path to put before the field's if it needs one
    /// (`http://127.0.0.1:8080/mock`). Origins without an entry are called as they are.
    public var httpOrigins: [String: URL] = [:]

    /// How long an HTTP data source may take to answer, connecting included; 10 seconds by
    /// default.
    public var httpTimeout: Duration = .seconds(10)

    /// The region the API runs in: what `${aws_region}` in an `@http` URL becomes.
    public var region = "us-east-1"

    /// Creates a configuration; every argument has the AppSync default.
    public init(
        conflictDetection: Bool = true,
        conflictResolution: ConflictResolutionStrategy = .automerge,
        modelConflictResolution: [String: ConflictResolutionStrategy] = [:],
        tombstoneTTL: Duration = .seconds(30 * 24 * 3600),
        deltaSyncTTL: Duration = .seconds(30 * 60),
        defaultPageSize: Int = 100,
        maximumPageSize: Int = 1000,
        queryDepthLimit: Int = 0,
        resolverCountLimit: Int = 10_000,
        idempotencyKeyTTL: Duration = .seconds(24 * 3600),
        environmentName: String? = nil,
        functions: [String: LocalFunction] = [:],
        resolvers: [String: ConfiguredResolver] = [:]
    ) {
        self.idempotencyKeyTTL = idempotencyKeyTTL
        self.environmentName = environmentName
        self.functions = functions
        self.resolvers = resolvers
        self.queryDepthLimit = queryDepthLimit
        self.resolverCountLimit = resolverCountLimit
        self.conflictDetection = conflictDetection
        self.conflictResolution = conflictResolution
        self.modelConflictResolution = modelConflictResolution
        self.tombstoneTTL = tombstoneTTL
        self.deltaSyncTTL = deltaSyncTTL
        self.defaultPageSize = defaultPageSize
        self.maximumPageSize = maximumPageSize
    }

    /// The strategy that resolves conflicting writes to `model`.
    public func conflictResolution(for model: String) -> ConflictResolutionStrategy {
        modelConflictResolution[model] ?? conflictResolution
    }
}

/// How the server answers a write whose `_version` does not match the stored item's.
public enum ConflictResolutionStrategy: Sendable {
    /// AppSync's AUTOMERGE: scalar fields that differ keep the server's value, lists are
    /// appended, fields absent or null on the server take the incoming value; the write succeeds
    /// with the server's version plus one. Deletes without the current version are rejected.
    case automerge
    /// AppSync's OPTIMISTIC_CONCURRENCY: the write is rejected with `ConflictUnhandled` and the
    /// server's item.
    case optimisticConcurrency
    /// AppSync's LAMBDA strategy, as a closure: it sees both items and decides.
    case custom(ConflictHandler)
}

/// Decides a conflict between an incoming write and the stored item.
///
/// Throwing rejects the write like ``ConflictResolution/reject``.
public typealias ConflictHandler = @Sendable (ConflictContext) async throws -> ConflictResolution

/// What a custom conflict handler sees: the payload AppSync sends a Lambda conflict handler.
public struct ConflictContext: Sendable {
    /// The model's name.
    public var typeName: String
    /// The write as the client sent it: the mutation's `input`, `_version` included.
    public var newItem: JSONObject
    /// The stored item, with `_version`, `_deleted`, `_lastChangedAt` and `__typename`.
    public var existingItem: JSONObject
    /// Every argument of the mutation (`input`, `condition`).
    public var arguments: JSONObject
    /// The mutation field: `updatePost` or `deletePost`.
    public var resolver: String
    /// Who sent the write.
    public var identity: Identity

    /// Creates a context; the server makes one for each conflict a custom handler decides.
    public init(
        typeName: String,
        newItem: JSONObject,
        existingItem: JSONObject,
        arguments: JSONObject,
        resolver: String,
        identity: Identity
    ) {
        self.typeName = typeName
        self.newItem = newItem
        self.existingItem = existingItem
        self.arguments = arguments
        self.resolver = resolver
        self.identity = identity
    }
}

/// A custom conflict handler's decision.
public enum ConflictResolution: Sendable, Hashable {
    /// Store this item (its key fields and sync metadata are the server's) with the server's
    /// version plus one: AppSync's `{"action":"RESOLVE","resolvedItem":{…}}`.
    case resolve(JSONObject)
    /// Reject the write with `ConflictUnhandled`: `{"action":"REJECT"}`.
    case reject
    /// Delete the item, leaving a tombstone: `{"action":"REMOVE"}`.
    case remove
}
