import Amplify
import Foundation
import GRDB
import Synchronization

/// The DataStore plugin: an on-device store of the app's models in SQLite, with predicates,
/// relations and observation.
///
/// ```swift
/// try Amplify.add(plugin: AWSDataStorePlugin(modelRegistration: AmplifyModels()))
/// try Amplify.configure()
/// let post = try await Amplify.DataStore.save(Post(title: "My First Post", rating: 10, status: "active"))
/// ```
///
/// The store opens when Amplify is configured (or on first use when the plugin is used on its
/// own), in the file ``DataStoreConfiguration/databaseURL`` names. ``stop()`` closes it; the
/// next call opens it again.
public final class AWSDataStorePlugin: DataStoreCategoryPlugin, SyncAdvising {
    /// The plugin's key in `amplifyconfiguration.json`.
    public let key = "awsDataStorePlugin"

    /// The models the plugin stores.
    public let modelRegistration: any AmplifyModelRegistration

    /// Where and how it stores them: the configuration given in code, with the settings of the
    /// configuration file's section applied once configured (see ``configure(using:)``).
    public var configuration: DataStoreConfiguration { effectiveConfiguration.withLock { $0 } }

    /// The configuration given in code.
    private let codeConfiguration: DataStoreConfiguration
    private let effectiveConfiguration: Mutex<DataStoreConfiguration>

    /// The hub the plugin sends its sync events to.
    public let hub: HubCategory

    /// The open store and its sync: see ``Lifecycle``.
    let lifecycle = Mutex(Lifecycle())
    let api: (any APICategory)?
    let catalog: Result<ModelCatalog, DataStoreError>
    /// The Auth plugin sync follows, and what it knows of its user.
    let auth = Mutex(AuthFollowing())

    /// A plugin storing the models of `modelRegistration`, the `AmplifyModels()` that
    /// `stratus codegen models` generates.
    ///
    /// When this plugin and an API plugin are both added to Amplify, the store syncs with its
    /// GraphQL API from the first DataStore call (or ``start()``) on, and reports on
    /// `Amplify.Hub`'s `.dataStore` channel.
    public convenience init(
        modelRegistration: some AmplifyModelRegistration,
        configuration: DataStoreConfiguration = .default
    ) {
        self.init(modelRegistration: modelRegistration, configuration: configuration, api: nil)
    }

    /// A plugin that syncs through `api` and reports on `hub`; with `api` `nil`, once added to
    /// Amplify, through the API plugin added there, if any (a plugin not added stays local). Several plugins with their own API plugins and
    /// databases act as several devices.
    ///
    /// ```swift
    /// let api = AWSAPIPlugin(configuration: apiConfiguration)
    /// let dataStore = AWSDataStorePlugin(
    ///     modelRegistration: AmplifyModels(),
    ///     configuration: DataStoreConfiguration(databaseURL: url),
    ///     api: api,
    ///     hub: HubCategory()
    /// )
    /// ```
    public init(
        modelRegistration: some AmplifyModelRegistration,
        configuration: DataStoreConfiguration,
        api: (any APICategory)?,
        hub: HubCategory = Amplify.Hub
    ) {
        self.modelRegistration = modelRegistration
        self.codeConfiguration = configuration
        self.effectiveConfiguration = Mutex(configuration)
        self.api = api
        self.hub = hub
        let types = ModelRegistry.modelTypes(registeredBy: modelRegistration)
        self.catalog = Result { () throws(DataStoreError) in try ModelCatalog(modelTypes: types) }
    }

    /// Applies the plugin's section of the configuration file, then opens the store. Sync
    /// starts with the first DataStore call, or ``start()``.
    ///
    /// The section (`dataStore.plugins.awsDataStorePlugin` in `amplifyconfiguration.json`) may
    /// set the sync settings under the names Amplify's configuration files use:
    ///
    /// ```json
    /// "awsDataStorePlugin": { "syncIntervalInMinutes": 60, "syncMaxRecords": 50000, "syncPageSize": 500 }
    /// ```
    ///
    /// A setting applies where the code's ``DataStoreConfiguration`` keeps its default; a value
    /// set in code wins, and the log says which one applies when both set it. The other settings
    /// are made in code only.
    ///
    /// - Throws: `DataStoreError`: `DataStoreError.Code.configuration` when the section is not
    ///   an object, names a setting it does not know, or gives one a value that is not a positive
    ///   integer, or when the registration's models cannot be stored (two names that differ only
    ///   in case, a relation to a model it does not register);
    ///   `DataStoreError.Code.invalidDatabase` when the file at
    ///   ``DataStoreConfiguration/databaseURL`` is not DataStore's, is corrupted or was written by
    ///   a newer DataStore (the file is left untouched); `DataStoreError.Code.storage` when the
    ///   file cannot be created or SQLite fails.
    public func configure(using configuration: JSONValue?) throws {
        let applied = try codeConfiguration.applying(section: configuration)
        effectiveConfiguration.withLock { $0 = applied }
        _ = try openStore()
    }

    /// Logs, at configuration, that the plugin stays local although the configuration describes
    /// the GraphQL API `configuredAPI`, and how to make it sync.
    package func adviseSync(configuredAPI: String) {
        guard api == nil else { return }
        configuration.log(
            DataStoreConfiguration.LogEntry(
                level: .warning,
                message: "The configuration describes the GraphQL API '\(configuredAPI)', but no API plugin was "
                    + "added, so DataStore stays local and does not sync. To sync, add the API plugin before "
                    + "Amplify.configure(): try Amplify.add(plugin: AWSAPIPlugin(modelRegistration: AmplifyModels()))."
            )
        )
    }

    /// Stops syncing, closes the store, ends every observation and stops following the Auth
    /// plugin.
    public func reset() async {
        useAuthPlugin(nil)
        await close()
    }

    /// The pending outbox events, oldest first: the changes waiting to be sent to the backend.
    ///
    /// - Throws: `DataStoreError`: `DataStoreError.Code.invalidDatabase` naming the event when
    ///   a stored event cannot be read (a `createdAt` that is not an `AWSDateTime`, a mutation type
    ///   that is not create, update or delete); `DataStoreError.Code.storage` when SQLite fails;
    ///   or those of ``configure(using:)`` when the store opens now.
    public func pendingMutations() async throws -> [MutationEvent] {
        try await withEngine { try await $0.outboxEvents() }
    }

    // MARK: - DataStoreCategory

    /// Saves `model`: creates it, or replaces the stored record with its identifier; with a
    /// `condition`, replaces it only when the stored record matches. The record, its sync
    /// metadata and its outbox event are written in one transaction.
    ///
    /// - Throws: `DataStoreError`: `DataStoreError.Code.unregisteredModel` when the
    ///   registration does not contain `M`; `DataStoreError.Code.invalidModel` when the model
    ///   does not fit its schema (a required field without a value, a value of another type, a
    ///   number JSON cannot hold) or belongs to a parent that is not saved;
    ///   `DataStoreError.Code.invalidCondition` when `condition` does not fit the model (an
    ///   unknown field, an operator its type does not support, a value of another type), is given
    ///   for a record not saved yet, or compares with a number a GraphQL filter cannot hold;
    ///   `DataStoreError.Code.conditionalSaveFailed` when the stored record does not match
    ///   `condition`; `DataStoreError.Code.invalidDatabase` when the record's pending outbox
    ///   event cannot be read; `DataStoreError.Code.storage` when SQLite fails; or those of
    ///   ``configure(using:)`` when the store opens now. Nothing is written when it throws.
    @discardableResult
    public func save<M: Model>(_ model: M, where condition: (any QueryPredicate)?) async throws -> M {
        try await withEngine { engine in
            try await engine.traced("DataStore.save \(M.modelName)") { try await engine.save(model, where: condition) }
        }
    }

    /// The stored model of type `modelType` whose identifier is `id`, or `nil`.
    ///
    /// - Throws: `DataStoreError`: `DataStoreError.Code.unregisteredModel` when the
    ///   registration does not contain `M`; `DataStoreError.Code.invalidDatabase` naming the
    ///   record when its stored embedded value or list is not JSON;
    ///   `DataStoreError.Code.storage` when the record does not decode as `M` or SQLite fails;
    ///   or those of ``configure(using:)`` when the store opens now.
    public func query<M: Model>(_ modelType: M.Type, byId id: String) async throws -> M? {
        try await withEngine { try await $0.query(modelType, byId: id) }
    }

    /// The stored models of type `modelType` that match `predicate`, sorted and paginated.
    ///
    /// - Throws: `DataStoreError`: `DataStoreError.Code.unregisteredModel` when the
    ///   registration does not contain `M`; `DataStoreError.Code.invalidCondition` when the
    ///   predicate or the sort does not fit the model (an unknown field, an operator its type
    ///   does not support, a value of another type, a hasMany relation to sort by);
    ///   `DataStoreError.Code.invalidDatabase` naming the record when its stored embedded value
    ///   or list is not JSON; `DataStoreError.Code.storage` when a record does not decode as
    ///   `M` or SQLite fails; or those of ``configure(using:)`` when the store opens now.
    public func query<M: Model>(
        _ modelType: M.Type,
        where predicate: (any QueryPredicate)?,
        sort sortInput: QuerySortInput?,
        paginate paginationInput: QueryPaginationInput?
    ) async throws -> [M] {
        try await withEngine {
            try await $0.query(modelType, where: predicate, sort: sortInput, paginate: paginationInput)
        }
    }

    /// Deletes the stored record of `model`, with its hasMany and hasOne children, when it
    /// matches `predicate`; each deletion is an outbox event. A record that is not stored is
    /// no error: nothing is deleted.
    ///
    /// - Throws: `DataStoreError`: `DataStoreError.Code.unregisteredModel` when the
    ///   registration does not contain `M`; `DataStoreError.Code.invalidModel` when `model`
    ///   cannot be encoded or has no value for a key field; `DataStoreError.Code.invalidCondition`
    ///   when `predicate` does not fit the model (an unknown field, an operator its type does not
    ///   support, a value of another type) or compares with a number a GraphQL filter cannot hold;
    ///   `DataStoreError.Code.conditionalSaveFailed` when the stored record does not match it;
    ///   `DataStoreError.Code.invalidDatabase` when a pending outbox event of a deleted record
    ///   cannot be read; `DataStoreError.Code.storage` when SQLite fails; or those of
    ///   ``configure(using:)`` when the store opens now. Nothing is deleted when it throws.
    public func delete<M: Model>(_ model: M, where predicate: (any QueryPredicate)?) async throws {
        try await withEngine { engine in
            let table = try engine.catalog.table(for: M.self)
            let (json, _) = try StorageEngine.encode(model)
            try await engine.traced("DataStore.delete \(M.modelName)") {
                try await engine.delete(from: table, identifier: try table.identifier(of: json), where: predicate)
            }
        }
    }

    /// Deletes the stored model of type `modelType` whose identifier is `id`, with its hasMany
    /// and hasOne children, when it matches `predicate`; as `delete(_:where:)` deletes a model.
    ///
    /// - Throws: `DataStoreError`: `DataStoreError.Code.unregisteredModel`,
    ///   `DataStoreError.Code.invalidCondition`, `DataStoreError.Code.conditionalSaveFailed`,
    ///   `DataStoreError.Code.invalidDatabase` or `DataStoreError.Code.storage`, as
    ///   `delete(_:where:)` throws them, or those of ``configure(using:)`` when the store opens
    ///   now. Nothing is deleted when it throws.
    public func delete<M: Model>(
        _ modelType: M.Type,
        withId id: String,
        where predicate: (any QueryPredicate)?
    ) async throws {
        try await withEngine { engine in
            try await engine.traced("DataStore.delete \(M.modelName)") {
                try await engine.delete(from: try engine.catalog.table(for: M.self), identifier: id, where: predicate)
            }
        }
    }

    /// Deletes every stored model of type `modelType` that matches `predicate`, with their
    /// hasMany and hasOne children, in one transaction.
    ///
    /// - Throws: `DataStoreError`: `DataStoreError.Code.unregisteredModel` when the
    ///   registration does not contain `M`; `DataStoreError.Code.invalidCondition` when
    ///   `predicate` does not fit the model; `DataStoreError.Code.invalidDatabase` when a
    ///   pending outbox event of a deleted record cannot be read; `DataStoreError.Code.storage`
    ///   when SQLite fails; or those of ``configure(using:)`` when the store opens now. Nothing
    ///   is deleted when it throws.
    public func delete<M: Model>(_ modelType: M.Type, where predicate: any QueryPredicate) async throws {
        try await withEngine { engine in
            try await engine.traced("DataStore.delete \(M.modelName)") {
                try await engine.delete(from: try engine.catalog.table(for: M.self), where: predicate)
            }
        }
    }

    /// Runs `body` as one transaction: its saves and deletes, with their sync metadata and
    /// outbox events, are committed together when it returns, or not at all.
    ///
    /// ```swift
    /// try await Amplify.DataStore.transaction { tx in
    ///     let post = try tx.save(Post(title: "Release notes", rating: 5, status: "draft"))
    ///     try tx.save(Comment(content: "Reviewed", post: post))
    ///     try tx.delete(Post.self, withId: "draft-1", where: Post.keys.status == "draft")
    /// }
    /// ```
    ///
    /// Reads inside (`query`) see the transaction's own writes. `body` runs on the store's
    /// writer, which no other write reaches until it returns: keep it short. Observers
    /// (``observe(_:)``, ``observeQuery(for:where:sort:)``) hear of the changes after the
    /// commit, all at once: a snapshot never shows part of a transaction.
    ///
    /// The outbox events are sent to the backend one after another in the transaction's order,
    /// each its own mutation; none merges with another event. A backend that refuses one of
    /// them does not undo the others: see <doc:Transactions>.
    ///
    /// - Throws: `DataStoreError` when a write fails, with the failed write's code and a message
    ///   that names its index in the transaction (from 0) and its record, for example "Write 1 of
    ///   the transaction (the save of Post 'p2') failed, so the transaction rolled back and wrote
    ///   nothing: …"; what `body` throws; or those of ``configure(using:)`` when the store opens
    ///   now. Nothing is written when it throws, even when `body` caught a write's error.
    public func transaction<T: Sendable>(
        _ body: @Sendable (any DataStoreTransaction) throws -> T
    ) async throws -> T {
        try await withEngine { engine in
            try await engine.traced("DataStore.transaction") { try await engine.transaction(body) }
        }
    }

    public func observe<M: Model>(_ modelType: M.Type) -> AsyncThrowingStream<MutationEvent, any Error> {
        do {
            let engine = try openEngine()
            _ = try engine.catalog.table(for: M.self)
            return engine.observe(modelName: M.modelName)
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
    }

    public func observeQuery<M: Model>(
        for modelType: M.Type,
        where predicate: (any QueryPredicate)?,
        sort sortInput: QuerySortInput?
    ) -> AsyncThrowingStream<DataStoreQuerySnapshot<M>, any Error> {
        do {
            return try openEngine().observeQuery(modelType, where: predicate, sort: sortInput)
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
    }

    /// Stops syncing, removes every record, the outbox and the sync metadata; the next call
    /// starts again.
    ///
    /// The local changes the backend had not confirmed are discarded: the hub's `.dataStore`
    /// channel then hears `DataStore.cleared`, whose `DataStoreClearedEvent` says how many
    /// changes were discarded and how many records removed, and the log warns when changes were
    /// discarded. A change saved while `clear()` runs is kept or discarded whole, and counted
    /// when discarded.
    ///
    /// - Throws: `DataStoreError`: `DataStoreError.Code.storage` when SQLite fails (nothing
    ///   is removed then), or those of ``configure(using:)`` when the store opens now.
    public func clear() async throws {
        try await clearStore()
    }

    /// Opens the store and starts syncing, when there is a backend.
    ///
    /// - Throws: `DataStoreError`: those of ``configure(using:)`` when the store opens now.
    ///   Sync's own failures come later, to ``DataStoreConfiguration/errorHandler``.
    public func start() async throws {
        try await withEngine { _ in }
    }

    /// Stops syncing and closes the store; the next call opens it and starts again.
    ///
    /// The calls under way finish first: a save that ran when `stop()` was called is committed,
    /// and sent when sync starts again.
    ///
    /// - Throws: Nothing: a failure to close the database is logged
    ///   (``DataStoreConfiguration/log``). The signature is the DataStore category's.
    public func stop() async throws {
        await close()
    }
}

extension ModelTable {
    /// The identifier of the model encoded as `json`, from its primary-key fields.
    ///
    /// - Throws: ``DataStoreError`` when a key field has no value.
    func identifier(of json: JSONValue) throws(DataStoreError) -> String {
        do {
            return ModelTable.identifier(of: try keyValues(of: json))
        } catch {
            throw DataStoreError(
                .invalidModel,
                "\(error.message) Pass a \(name) read from DataStore, or delete by identifier."
            )
        }
    }
}
