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
public final class AWSDataStorePlugin: DataStoreCategoryPlugin {
    /// The plugin's key in `amplifyconfiguration.json`.
    public let key = "awsDataStorePlugin"

    /// The models the plugin stores.
    public let modelRegistration: any AmplifyModelRegistration

    /// Where and how it stores them.
    public let configuration: DataStoreConfiguration

    /// The hub the plugin sends its sync events to.
    public let hub: HubCategory

    private let engine = Mutex<StorageEngine?>(nil)
    private let sync = Mutex<SyncEngine?>(nil)
    private let api: (any APICategory)?
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
        self.configuration = configuration
        self.api = api
        self.hub = hub
        let types = ModelRegistry.modelTypes(registeredBy: modelRegistration)
        self.catalog = Result { () throws(DataStoreError) in try ModelCatalog(modelTypes: types) }
    }

    /// Opens the store. Sync starts with the first DataStore call, or ``start()``.
    ///
    /// - Throws: ``DataStoreError`` when the models cannot be stored or the database file is not
    ///   DataStore's or is corrupted.
    public func configure(using configuration: JSONValue?) throws {
        _ = try openStore()
    }

    /// Stops syncing, closes the store, ends every observation and stops following the Auth
    /// plugin.
    public func reset() async {
        useAuthPlugin(nil)
        await close()
    }

    /// Stops syncing, closes the store and ends every observation.
    private func close() async {
        await stopSync()
        engine.withLock { engine in
            defer { engine = nil }
            return engine
        }?.close()
    }

    /// Whether the plugin syncs with a backend now.
    public var isSyncing: Bool { sync.withLock { $0 != nil } }

    /// The open store, opening it first if needed, with sync started when there is a backend.
    func openEngine() throws(DataStoreError) -> StorageEngine {
        let store = try openStore()
        guard let api = api ?? Amplify.apiPlugin(besides: self) else { return store }
        // Signed out or expired: sync starts again with the next sign-in.
        guard !auth.withLock({ $0.waitsForSignIn }) else { return store }
        let userCheck = signedInUserCheck(store.catalog)
        let started = sync.withLock { sync -> SyncEngine? in
            // Checked again under the lock `stopSync()` takes: a sign-out between the check
            // above and here has stopped sync already, and must not see it started again.
            guard sync == nil, !auth.withLock({ $0.waitsForSignIn }) else { return nil }
            let engine = SyncEngine(
                storage: store,
                api: api,
                hub: hub,
                configuration: configuration,
                hasSignedInUser: userCheck
            )
            sync = engine
            return engine
        }
        started?.start()
        return store
    }

    /// Whether a store was opened, so that a sign-in starts its sync again.
    var isOpen: Bool { engine.withLock { $0 != nil } }

    func stopSync() async {
        let running = sync.withLock { sync in
            defer { sync = nil }
            return sync
        }
        await running?.stop()
    }

    /// The open store, opening it first if needed.
    func openStore() throws(DataStoreError) -> StorageEngine {
        let catalog = try catalog.get()
        return try engine.withLock { engine throws(DataStoreError) -> StorageEngine in
            if let engine { return engine }
            let opened = try StorageEngine.open(
                catalog: catalog,
                registryVersion: modelRegistration.version,
                configuration: configuration
            )
            engine = opened
            return opened
        }
    }

    /// The pending outbox events, oldest first: the changes waiting to be sent to the backend.
    ///
    /// - Throws: ``DataStoreError`` when storage fails.
    public func pendingMutations() async throws -> [MutationEvent] {
        try await openEngine().outboxEvents()
    }

    // MARK: - DataStoreCategory

    @discardableResult
    public func save<M: Model>(_ model: M, where condition: (any QueryPredicate)?) async throws -> M {
        try await openEngine().save(model, where: condition)
    }

    public func query<M: Model>(_ modelType: M.Type, byId id: String) async throws -> M? {
        try await openEngine().query(modelType, byId: id)
    }

    public func query<M: Model>(
        _ modelType: M.Type,
        where predicate: (any QueryPredicate)?,
        sort sortInput: QuerySortInput?,
        paginate paginationInput: QueryPaginationInput?
    ) async throws -> [M] {
        try await openEngine().query(modelType, where: predicate, sort: sortInput, paginate: paginationInput)
    }

    public func delete<M: Model>(_ model: M, where predicate: (any QueryPredicate)?) async throws {
        let engine = try openEngine()
        let table = try engine.catalog.table(for: M.self)
        let (json, _) = try StorageEngine.encode(model)
        try await engine.delete(from: table, identifier: try table.identifier(of: json), where: predicate)
    }

    public func delete<M: Model>(
        _ modelType: M.Type,
        withId id: String,
        where predicate: (any QueryPredicate)?
    ) async throws {
        let engine = try openEngine()
        try await engine.delete(from: try engine.catalog.table(for: M.self), identifier: id, where: predicate)
    }

    public func delete<M: Model>(_ modelType: M.Type, where predicate: any QueryPredicate) async throws {
        let engine = try openEngine()
        try await engine.delete(from: try engine.catalog.table(for: M.self), where: predicate)
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

    /// Stops syncing, removes every record and the outbox; the next call starts again.
    public func clear() async throws {
        await stopSync()
        try await openStore().clear()
    }

    /// Opens the store and starts syncing, when there is a backend.
    public func start() async throws {
        _ = try openEngine()
    }

    /// Stops syncing and closes the store; the next call opens it and starts again.
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
