import Foundation
import GraphQL
import PostgresNIO
import StratusCodegen
import Synchronization
import Tracing

/// The local AppSync-compatible backend, in process: the API derived from an annotated schema,
/// its resolvers, and the data directory they read and write.
///
/// The HTTP and WebSocket endpoints call ``execute(query:variables:operationName:identity:)``
/// once they have authenticated a request; tests and tools may call it directly:
///
/// ```swift
/// let schema = try SchemaParser().parse(source, fileName: "schema.graphql")
/// let server = try StratusServer(schema: schema, dataDirectory: URL(filePath: ".stratus"))
/// let response = await server.execute(
///     query: "mutation { createPost(input: {title: \"Hello\"}) { id title } }",
///     identity: .apiKey
/// )
/// print(response.text)  // {"data":{"createPost":{"id":"…","title":"Hello"}}}
/// ```
public final class StratusServer: Sendable {
    /// The API the server answers.
    public let api: ServerAPI
    /// Where the data lives; `nil` when it lives in a PostgreSQL database.
    public let dataDirectory: URL?
    /// The additive schema changes migrated into the data directory when the server opened it;
    /// empty when the schema is the one the directory was written for.
    public var appliedSchemaChanges: [SchemaChange] { store.appliedChanges }

    let executable: ExecutableSchema
    let store: any ServerStore
    /// The functions of `@function` fields and Lambda resolvers.
    let functions: LocalFunctions
    /// The last invocations of the functions, with their events, outcomes and log lines;
    /// `nil` unless ``ServerConfiguration/functionInvocations`` gives a record.
    public var functionInvocations: FunctionInvocations? { functions.invocations }
    /// The names of the functions configured (`stratus.json`'s `functions`), in order.
    public var functionNames: [String] { functions.names }
    /// The results of hand-written mutations, as hand-written subscriptions hear them.
    let handWrittenEvents: HandWrittenEvents
    /// What people should know about hand-written fields at start-up: those that answer `null`
    /// for want of a resolver, and how to attach one.
    public let resolverNotices: [String]
    /// The current instant.
    let clock: @Sendable () -> Date
    /// The mutations under way with an `Idempotency-Key`.
    let idempotentRequests = IdempotentRequests()
    /// The committed writes, as subscriptions hear them.
    let events: MutationBroadcaster
    /// The locks that keep one write of an item at a time in this server.
    let writeLocks: WriteLocks
    /// Where the server writes what operators should know.
    let log: @Sendable (String) -> Void
    /// Where the delivery lag of the writes a shared store announces is recorded
    /// (``measureJournalLag(with:)``).
    private let journalLagMetrics = JournalLagMetrics()

    /// Records, in `metrics`, how long after they were written the writes announced by a store
    /// that several servers share reach this server's subscribers.
    package func measureJournalLag(with metrics: ServerMetrics) {
        journalLagMetrics.metrics.withLock { $0 = metrics }
    }

    /// Where the delivery lag of announced writes is recorded, shared with the store's reader.
    private final class JournalLagMetrics: Sendable {
        let metrics = Mutex<ServerMetrics?>(nil)
    }
    /// The selection keys of the running subscriptions, one string each.
    let selectionKeys = SelectionKeys()
    private let documents = DocumentCache()

    /// The parsed documents' cache, for tests to observe.
    package var documentCache: DocumentCache { documents }
    /// How many jobs of heavy requests have run on their own thread (``HeavyRequestLane``).
    package var heavyLaneJobs: Int { heavyLane.jobsRun }
    /// How many pages of lists, syncs and relations the store has read.
    package var pagesRead: Int { store.pagesRead }
    private let limits: DocumentLimits
    private let directReads: DirectReads
    private let directMutations: DirectMutations
    private let heavyLane = HeavyRequestLane()
    private let validationsCancelled = Atomic<Int>(0)

    /// How many validations stopped early because their request was cancelled (at its
    /// execution deadline, say), for tests.
    package var cancelledValidations: Int { validationsCancelled.load(ordering: .relaxed) }

    /// Opens the data directory (creating it if needed) and derives the API of `schema`.
    ///
    /// - Parameters:
    ///   - schema: The annotated schema.
    ///   - configuration: Conflict handling, TTLs and page sizes.
    ///   - dataDirectory: The directory of the database; the same directory opened again finds
    ///     the same items, tombstones and sync journal.
    ///   - clock: The current instant; tests pass a fixed one.
    ///   - log: Where failures the responses do not detail are described, and warnings about
    ///     the data directory's modes.
    /// A directory written for an earlier version of the schema migrates in place when the
    /// changes are additive (see ``SchemaChange``), keeping its items, tombstones and journal.
    /// The directory is its owner's alone (mode 0700, files 0600); one found readable by other
    /// users is narrowed, with a warning naming each path.
    ///
    /// - Throws: ``ServerError`` when the directory cannot be opened or another server has it
    ///   open, when the schema changed in ways that would lose stored data
    ///   (``ServerError/refusedSchemaChanges`` lists them; the directory is left untouched), when
    ///   a `@default` value is not a value of its field's type, or when the API is not valid.
    public convenience init(
        schema: AnnotatedSchema,
        configuration: ServerConfiguration = ServerConfiguration(),
        dataDirectory: URL,
        clock: @escaping @Sendable () -> Date = { Date() },
        log: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
    ) throws(ServerError) {
        try self.init(
            schema: schema,
            configuration: configuration,
            dataDirectory: dataDirectory,
            clock: clock,
            log: log,
            sharingSubscriptionsOf: nil
        )
    }

    /// Opens the data directory as the public initializer does; with `previous`, a closed server
    /// of the same directory, the new server publishes its writes to `previous`'s subscribers,
    /// so that subscriptions started on it keep hearing them (a schema reload).
    package convenience init(
        schema: AnnotatedSchema,
        configuration: ServerConfiguration,
        dataDirectory: URL,
        clock: @escaping @Sendable () -> Date,
        log: @escaping @Sendable (String) -> Void,
        sharingSubscriptionsOf previous: StratusServer?
    ) throws(ServerError) {
        precondition(
            previous?.store.announcesWrites != true,
            "Only a server of a data directory shares its subscriptions with its successor."
        )
        try Self.checkDefaults(schema)
        // Before the store opens: a configuration that names unknown fields leaves nothing behind.
        _ = try CustomFieldPlan(schema: schema, configuration: configuration)
        let store: SQLiteItemStore
        do {
            store = try SQLiteItemStore(directory: dataDirectory, schema: schema)
        } catch {
            throw ServerError.storage(error)
        }
        for warning in store.narrowedModes { log(warning) }
        do {
            try self.init(
                schema: schema,
                configuration: configuration,
                store: store,
                dataDirectory: dataDirectory,
                clock: clock,
                log: log,
                sharing: previous.map { ($0.events, $0.handWrittenEvents) }
            )
        } catch {
            // Closed, so that the directory can be opened again: the failure to start is the
            // one to report.
            try? store.close()
            throw error
        }
    }

    /// Connects to a PostgreSQL database, creating or migrating its tables, and derives the API
    /// of `schema`. Several servers may share the database: each write is checked and made in one
    /// transaction, and every server's subscriptions hear every server's writes.
    ///
    /// ```swift
    /// let server = try await StratusServer(
    ///     schema: schema,
    ///     database: try PostgresLocation("postgres://stratus@127.0.0.1:5432/app")
    /// )
    /// ```
    ///
    /// - Parameters:
    ///   - schema: The annotated schema.
    ///   - configuration: Conflict handling, TTLs and page sizes.
    ///   - database: Where the database is.
    ///   - connections: The most connections the server opens to it at once, besides the one
    ///     that listens for other servers' writes.
    ///   - clock: The current instant; tests pass a fixed one.
    ///   - log: Where failures the responses do not detail are described.
    /// - Throws: ``ServerError`` when the database cannot be reached or refuses the statements,
    ///   when the schema changed in ways that would lose stored data (the database is left
    ///   untouched), when a `@default` value is not a value of its field's type, or when the API
    ///   is not valid.
    public convenience init(
        schema: AnnotatedSchema,
        configuration: ServerConfiguration = ServerConfiguration(),
        database: PostgresLocation,
        connections: Int = 16,
        clock: @escaping @Sendable () -> Date = { Date() },
        log: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
    ) async throws(ServerError) {
        try Self.checkDefaults(schema)
        // Before the store opens: a configuration that names unknown fields leaves nothing behind.
        _ = try CustomFieldPlan(schema: schema, configuration: configuration)
        let store: PostgresItemStore
        do {
            store = try await PostgresItemStore.open(
                database,
                schema: schema,
                connections: max(1, connections),
                log: log
            )
        } catch {
            throw ServerError.storage(error)
        }
        do {
            try self.init(
                schema: schema,
                configuration: configuration,
                store: store,
                dataDirectory: nil,
                clock: clock,
                log: log,
                sharing: nil
            )
        } catch {
            // Closed as far as it closes: the failure to start is the one to report.
            try? store.close()
            throw error
        }
    }

    private init(
        schema: AnnotatedSchema,
        configuration: ServerConfiguration,
        store: any ServerStore,
        dataDirectory: URL?,
        clock: @escaping @Sendable () -> Date,
        log unbounded: @escaping @Sendable (String) -> Void,
        sharing subscriptions: (events: MutationBroadcaster, handWritten: HandWrittenEvents)?
    ) throws(ServerError) {
        let log = LogLine.bounding(unbounded)
        self.log = log
        let locks = WriteLocks()
        writeLocks = locks
        let api = ServerAPI(schema: schema, configuration: configuration)
        self.api = api
        limits = DocumentLimits(configuration)
        self.dataDirectory = dataDirectory
        self.clock = clock
        self.store = store
        let events = subscriptions?.events ?? MutationBroadcaster()
        self.events = events
        let handWrittenEvents = subscriptions?.handWritten ?? HandWrittenEvents(store: store, clock: clock)
        self.handWrittenEvents = handWrittenEvents
        let resolver = ModelResolver(
            api: api,
            store: store,
            clock: clock,
            tokenSecret: store.tokenSecret(),
            locks: locks,
            events: events
        )
        let plan = try CustomFieldPlan(schema: schema, configuration: configuration)
        resolverNotices = plan.notices
        let functions = LocalFunctions(configuration, log: log)
        self.functions = functions
        do {
            executable = try ExecutableSchema(
                api: api,
                resolver: resolver,
                custom: CustomFieldResolvers(
                    schema: schema,
                    plan: plan,
                    functions: functions,
                    events: handWrittenEvents,
                    http: HTTPDataSource(timeout: configuration.httpTimeout)
                ),
                log: log
            )
        } catch {
            functions.close()
            throw error
        }
        directReads = DirectReads(api: api, resolver: resolver)
        directMutations = DirectMutations(api: api, schema: executable.schema, resolver: resolver, log: log)
        let models = Dictionary(uniqueKeysWithValues: schema.models.map { ($0.name, $0) })
        let lagMetrics = journalLagMetrics
        store.startAnnouncements(
            { model, announcement in
                if let committedAt = announcement.committedAt, let metrics = lagMetrics.metrics.withLock({ $0 }) {
                    metrics.journalDelivered(lag: .milliseconds(max(0, Timestamp.milliseconds(clock()) - committedAt)))
                }
                guard let model = models[model] else { return }
                events.publish(
                    model: model,
                    kind: announcement.kind,
                    item: announcement.item,
                    selectedFields: announcement.selectedFields
                )
            },
            published: { published in handWrittenEvents.publish(mutation: published.mutation, result: published.result)
            }
        )
    }

    /// Checks that `configuration`'s `resolvers` name hand-written queries and mutations of
    /// `schema` and configured functions, as opening a server does; for a command to check
    /// before it creates anything.
    ///
    /// - Throws: ``ServerError`` naming the entry and the fix.
    public static func checkResolvers(
        of schema: AnnotatedSchema,
        configuration: ServerConfiguration
    ) throws(ServerError) {
        _ = try CustomFieldPlan(schema: schema, configuration: configuration)
    }

    private static func checkDefaults(_ schema: AnnotatedSchema) throws(ServerError) {
        do throws(DefaultValue.Invalid) {
            try DefaultValue.check(schema)
        } catch {
            throw ServerError.invalidDefault(error.description)
        }
    }

    /// Where the data lives, for people: the data directory's path or the database's URL
    /// (without its password).
    public var storeDescription: String {
        if let dataDirectory { return dataDirectory.path }
        if let store = store as? PostgresItemStore { return store.location.description }
        return "the store"
    }

    /// The value the store keeps under `name`, storing `proposed` when it has none: servers
    /// sharing a database agree on the first value stored (a generated API key, for instance).
    ///
    /// - Throws: ``ServerError`` when the store cannot be read or written.
    package func sharedSetting(_ name: String, proposing proposed: String) async throws(ServerError) -> String {
        do {
            return try await store.sharedSetting(name, proposing: proposed)
        } catch {
            throw ServerError.storage(StorageError.database(error))
        }
    }

    /// The PostgreSQL client of the server's store, for state kept in the same database (the
    /// local Cognito's); `nil` when the data lives in a data directory.
    package var databaseClient: PostgresClient? { (store as? PostgresItemStore)?.client }

    /// Whether the store answers: `nil` when it does, else what failed.
    package func healthProblem() async -> String? {
        do {
            try await store.checkHealth()
            return nil
        } catch {
            return String(describing: error)
        }
    }

    /// Why the server is not ready for traffic: the store does not answer, or, on PostgreSQL, the
    /// connection that hears other instances' writes is not listening; `nil` when ready. The
    /// schema's migrations ran before the server was made.
    package func readinessProblem() async -> String? {
        if let problem = await healthProblem() { return problem }
        return store.announcementsProblem
    }

    /// Closes the database. The server answers no request afterwards.
    ///
    /// - Throws: ``ServerError`` when the database cannot be closed cleanly.
    public func close() throws(ServerError) {
        functions.close()
        do {
            try store.close()
        } catch {
            throw ServerError.storage(error)
        }
    }

    /// Runs a GraphQL request and returns the body AppSync would answer.
    ///
    /// Every outcome is a body: syntax and validation errors, invalid AWS scalar values,
    /// resolver errors (`ConditionalCheckFailedException`, `ConflictUnhandled`, …) are written in
    /// it as AppSync writes them.
    ///
    /// - Parameters:
    ///   - query: The GraphQL document.
    ///   - variables: The values of its variables.
    ///   - operationName: The operation to run, when the document has several.
    ///   - identity: Who sent the request.
    public func execute(
        query: String,
        variables: JSONObject = [:],
        operationName: String? = nil,
        identity: Identity
    ) async -> ServerResponse {
        await execute(
            query: query,
            variables: variables,
            operationName: operationName,
            identity: identity,
            direct: true
        ).response
    }

    /// Runs a request; `direct` lets single list, sync and index queries and single mutations
    /// skip the executor (``DirectReads``, ``DirectMutations``), which tests turn off to compare
    /// both paths. `answeredDirectly` tells which path answered. `idempotency` is recorded with
    /// every write of a mutation.
    func execute(
        query: String,
        variables: JSONObject,
        operationName: String?,
        identity: Identity,
        direct: Bool,
        idempotency: IdempotencyClaim? = nil
    ) async -> (response: ServerResponse, answeredDirectly: Bool) {
        let request = Request(
            query: query,
            variables: variables,
            operationName: operationName,
            identity: identity,
            idempotency: idempotency
        )
        let start = ContinuousClock.now
        let result: (response: ServerResponse, answeredDirectly: Bool)
        if query.utf8.count > HeavyRequestLane.documentBytes
            || JSON.object(variables).holdsMoreValues(than: HeavyRequestLane.variableValues)
        {
            result = await heavyLane.run {
                await self.run(request, direct: direct, isHeavy: true)
            }
        } else {
            result = await run(request, direct: direct, isHeavy: false)
        }
        ServerMetrics.current?.resolved(result.answeredDirectly ? "direct" : "generated", duration: .now - start)
        return result
    }

    /// A request as ``run(_:direct:isHeavy:)`` runs it.
    private struct Request: Sendable {
        var query: String
        var variables: JSONObject
        var operationName: String?
        var identity: Identity
        var idempotency: IdempotencyClaim?
    }

    /// Runs a request; with `isHeavy` (or many root fields), its execution runs on the
    /// ``HeavyRequestLane``.
    private func run(
        _ request: Request,
        direct: Bool,
        isHeavy: Bool
    ) async -> (response: ServerResponse, answeredDirectly: Bool) {
        guard Traces.tracer != nil, case .success(let document) = document(of: request.query) else {
            return await runUntraced(request, direct: direct, isHeavy: isHeavy)
        }
        // The operation's span, named as OpenTelemetry's GraphQL conventions name it.
        let operation = document.definitions.lazy.compactMap { $0 as? OperationDefinition }
            .first { request.operationName == nil || $0.name?.value == request.operationName }
        let type = operation.map { "\($0.operation)" }
        let name = operation?.name?.value
        return await Traces.span(
            [type ?? "GraphQL Operation", name].compactMap { $0 }.joined(separator: " "),
            attributes: { attributes in
                if let type { attributes["graphql.operation.type"] = type }
                if let name { attributes["graphql.operation.name"] = name }
            }
        ) {
            await runUntraced(request, direct: direct, isHeavy: isHeavy)
        }
    }

    /// Runs a request as ``run(_:direct:isHeavy:)`` does, without a span of its own.
    private func runUntraced(
        _ request: Request,
        direct: Bool,
        isHeavy: Bool
    ) async -> (response: ServerResponse, answeredDirectly: Bool) {
        let (query, variables, operationName, identity) = (
            request.query, request.variables, request.operationName, request.identity
        )
        let schema = executable.schema
        let document: Document
        switch self.document(of: query) {
        case .success(let valid): document = valid
        case .failure(let failure): return (ServerResponse(body: failure.body), false)
        }

        let operations = document.definitions.compactMap { $0 as? OperationDefinition }
        let operation = operations.first { operationName == nil || $0.name?.value == operationName }
        if let operation,
            let problem = RequestValidation.checkVariables(of: operation, values: variables, schema: schema)
        {
            return (
                ServerResponse(
                    body: ResponseFormatter.requestFailure([(problem.message, problem.location.map { [$0] } ?? [])])
                ), false
            )
        }

        if direct, let operation, operations.count == 1 || operationName != nil {
            var fragments: [String: FragmentDefinition] = [:]
            for case let fragment as FragmentDefinition in document.definitions {
                fragments[fragment.name.value] = fragment
            }
            let body =
                if operation.operation == .mutation {
                    await directMutations.answer(
                        operation: operation,
                        document: document,
                        fragments: fragments,
                        variables: variables,
                        identity: identity,
                        idempotency: request.idempotency
                    )
                } else {
                    await directReads.answer(
                        operation: operation,
                        fragments: fragments,
                        variables: variables,
                        identity: identity
                    )
                }
            if let body {
                // One resolver per root field: the direct paths answer stored fields only.
                if let entry = RequestLogEntry.current, entry.isRecorded {
                    entry.note(resolverCount: operation.selectionSet.selections.count)
                }
                return (ServerResponse(body: body), true)
            }
        }

        if !isHeavy, (operation?.selectionSet.selections.count ?? 0) > HeavyRequestLane.rootSelections {
            return await heavyLane.run {
                (await self.execute(document, operation, request, onLane: true), false)
            }
        }
        return (await execute(document, operation, request, onLane: isHeavy), false)
    }

    /// Executes `operation` of a valid document; `onLane` runs its execution on the
    /// ``HeavyRequestLane``.
    private func execute(
        _ document: Document,
        _ operation: OperationDefinition?,
        _ request: Request,
        onLane: Bool
    ) async -> ServerResponse {
        let (variables, operationName, identity) = (request.variables, request.operationName, request.identity)
        let schema = executable.schema
        var variableValues: [String: Map] = [:]
        for (name, value) in variables {
            variableValues[name] = value.map
        }
        let result: GraphQLResult
        let budget = ResolverBudget(limit: limits.resolverCount)
        let run: @Sendable () async throws -> GraphQLResult = { [schema, variableValues] in
            try await GraphQL.execute(
                schema: schema,
                documentAST: document,
                rootValue: (),
                context: RequestContext(
                    identity: identity,
                    budget: budget,
                    reads: AsyncGate(width: 4),
                    idempotency: request.idempotency
                ),
                variableValues: variableValues,
                operationName: operationName
            )
        }
        do {
            if !onLane, operation?.operation == .mutation {
                // A mutation's root fields run one after another, each a write: it runs in the
                // caller's task, and once out of resolvers the rest of it answers `null` without
                // running.
                result = try await run()
            } else {
                // A query out of resolvers gets one error whatever else happens: its execution is
                // cancelled at once rather than left to walk what it already read.
                let execution = Task(executorPreference: onLane ? heavyLane : nil) { try await run() }
                budget.whenExhausted { execution.cancel() }
                result = try await withTaskCancellationHandler {
                    try await execution.value
                } onCancel: {
                    execution.cancel()
                }
            }
        } catch let error as GraphQLError {
            result = GraphQLResult(errors: [error])
        } catch {
            result = GraphQLResult(errors: [GraphQLError(message: String(describing: error))])
        }
        if let entry = RequestLogEntry.current, entry.isRecorded { entry.note(resolverCount: budget.count) }
        if budget.isExhausted {
            return ServerResponse(body: AppSyncError.body([budget.exhaustedError], data: .null))
        }
        return ServerResponse(body: ResponseFormatter.body(result, document: document))
    }

    /// The kind of the operation a request runs: the one named `operationName`, or the first;
    /// `nil` when the document does not parse or validate, or has no such operation (running it
    /// then answers the error).
    func operationType(of query: String, operationName: String?) -> OperationType? {
        guard case .success(let document) = document(of: query) else { return nil }
        return document.definitions.lazy.compactMap { $0 as? OperationDefinition }
            .first { operationName == nil || $0.name?.value == operationName }?.operation
    }

    /// The kind and name of the operation a request runs, for its log line: the one named
    /// `operationName`, or the first; `nil` when the document does not parse.
    func operationSummary(of query: String, operationName: String?) -> (type: OperationType, name: String?)? {
        guard case .success(let document) = document(of: query) else { return nil }
        return document.definitions.lazy.compactMap { $0 as? OperationDefinition }
            .first { operationName == nil || $0.name?.value == operationName }
            .map { ($0.operation, $0.name?.value) }
    }

    /// Why a request's document cannot run: the response body of its errors.
    struct DocumentFailure: Error {
        /// `{"data": null, "errors": [...]}` as the HTTP endpoint answers it.
        let body: JSON
        /// Whether the document does not parse (else it does not validate).
        let isSyntaxError: Bool

        /// The first error's message.
        var message: String { body["errors"]?.arrayValue?.first?["message"]?.stringValue ?? "Invalid Syntax" }
    }

    /// The parsed and validated document of `query`, from ``DocumentCache`` when it was seen.
    func document(of query: String) -> Result<Document, DocumentFailure> {
        if let known = documents[query] { return .success(known) }
        if let violation = DocumentLimits.checkNesting(of: query) {
            return .failure(Self.limitFailure(violation))
        }
        let document: Document
        do {
            document = try Traces.span("graphql.parse") { _ in
                try parse(source: Source(body: query, name: "GraphQL request"))
            }
        } catch let error as GraphQLError {
            let body = ResponseFormatter.requestFailure([(Self.syntaxMessage(error), error.locations)])
            return .failure(DocumentFailure(body: body, isSyntaxError: true))
        } catch {
            return .failure(
                DocumentFailure(body: ResponseFormatter.requestFailure([("Invalid Syntax", [])]), isSyntaxError: true)
            )
        }
        if let violation = limits.check(document, schema: executable.schema, api: api) {
            return .failure(Self.limitFailure(violation))
        }
        let problems = Traces.span("graphql.validate") { _ in
            DocumentValidation.problems(
                of: document,
                text: query,
                schema: executable.schema,
                rules: specifiedRules + [RequestValidation.literalRule],
                onCancelled: { self.validationsCancelled.add(1, ordering: .relaxed) }
            )
        }
        // A cancelled validation is incomplete: the document is neither refused nor remembered.
        if Task.isCancelled {
            return .failure(
                DocumentFailure(
                    body: AppSyncError.body([AppSyncError(.executionTimeout, "Execution timed out.")], data: .null),
                    isSyntaxError: false
                )
            )
        }
        guard problems.isEmpty else {
            let body = ResponseFormatter.body(GraphQLResult(data: nil, errors: problems), document: document)
            return .failure(DocumentFailure(body: body, isSyntaxError: false))
        }
        documents.insert(document, for: query)
        return .success(document)
    }

    /// The failure of a document over one of ``DocumentLimits``, refused as validation errors are.
    private static func limitFailure(_ violation: DocumentLimits.Violation) -> DocumentFailure {
        DocumentFailure(
            body: ResponseFormatter.requestFailure([(violation.message, violation.location.map { [$0] } ?? [])]),
            isSyntaxError: false
        )
    }

    private static func syntaxMessage(_ error: GraphQLError) -> String {
        var message = String(error.message.prefix { $0 != "\n" })
        if let range = message.range(of: #"^Syntax Error .*?\(\d+:\d+\) "#, options: .regularExpression) {
            message.removeSubrange(range)
        }
        let location = error.locations.first.map { " at line \($0.line) column \($0.column)" } ?? ""
        return "Invalid Syntax : \(message)\(location)"
    }
}

/// The body of the server's answer to a GraphQL request, as the HTTP endpoint sends it.
public struct ServerResponse: Sendable, Hashable {
    /// The body as JSON: `data`, then `errors` when there are some.
    public var body: JSON

    /// The body as the HTTP response carries it.
    public var text: String { body.text }

    /// A response with `body`.
    public init(body: JSON) {
        self.body = body
    }
}
