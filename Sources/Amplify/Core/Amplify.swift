import Foundation
import Synchronization

/// The entry point: add plugins, configure once, then use the categories.
///
/// ```swift
/// try Amplify.add(plugin: AWSDataStorePlugin(modelRegistration: AmplifyModels()))
/// try Amplify.configure()
/// let posts = try await Amplify.DataStore.query(Post.self)
/// ```
public enum Amplify {
    private struct State: Sendable {
        var plugins: [any Plugin] = []
        var isConfigured = false
    }

    private static let state = Mutex(State())

    /// The DataStore category: the DataStore plugin that was added, or a stand-in whose every
    /// call fails with a message saying how to add one.
    public static var DataStore: any DataStoreCategory {
        state.withLock { state in
            state.plugins.lazy.compactMap { $0 as? any DataStoreCategoryPlugin }.first
        } ?? UnconfiguredDataStore()
    }

    /// The API category: the API plugin that was added, or a stand-in whose every call fails
    /// with a message saying how to add one.
    public static var API: any APICategory {
        state.withLock { state in
            state.plugins.lazy.compactMap { $0 as? any APICategoryPlugin }.first
        } ?? UnconfiguredAPI()
    }

    /// The Auth category: the Auth plugin that was added, or a stand-in whose every call fails
    /// with a message saying how to add one.
    public static var Auth: any AuthCategory {
        state.withLock { state in
            state.plugins.lazy.compactMap { $0 as? any AuthCategoryPlugin }.first
        } ?? UnconfiguredAuth()
    }

    /// The hub the categories send their events on (`.auth`, `.dataStore`, `.api`).
    public static let Hub = HubCategory()

    /// The API plugin that was added, if any, when `plugin` was added too: what a DataStore
    /// plugin added to Amplify syncs through. A plugin made on its own, and not added, does not
    /// take up an API plugin someone else added.
    package static func apiPlugin(besides plugin: any Plugin) -> (any APICategoryPlugin)? {
        state.withLock { state in
            guard state.plugins.contains(where: { $0 === plugin }) else { return nil }
            return state.plugins.lazy.compactMap { $0 as? any APICategoryPlugin }.first
        }
    }

    /// Adds a plugin. Add every plugin before calling ``configure(_:)``.
    ///
    /// - Throws: ``ConfigurationError`` after ``configure(_:)``, or when a plugin with the same
    ///   key was already added.
    public static func add(plugin: some Plugin) throws {
        try state.withLock { state in
            guard !state.isConfigured else {
                throw ConfigurationError(
                    "Amplify.add(plugin:) was called after Amplify.configure(): add '\(plugin.key)' before configuring."
                )
            }
            guard !state.plugins.contains(where: { $0.key == plugin.key }) else {
                throw ConfigurationError(
                    "A plugin with the key '\(plugin.key)' was already added. Add each plugin once."
                )
            }
            state.plugins.append(plugin)
        }
    }

    /// Adds a plugin: ``add(plugin:)`` under the name Amplify iOS v1's guides use.
    ///
    /// - Throws: as ``add(plugin:)``.
    public static func addPlugin(_ plugin: some Plugin) throws {
        try add(plugin: plugin)
    }

    /// Configures every added plugin.
    ///
    /// With no argument, reads `amplifyconfiguration.json` (or `amplify_outputs.json`) from the
    /// working directory when there is one; plugins that need no configuration (DataStore in
    /// local-only mode) work without it.
    ///
    /// - Throws: ``ConfigurationError`` when Amplify is already configured or a plugin rejects
    ///   its section.
    public static func configure(_ configuration: AmplifyConfiguration? = nil) throws {
        let resolved =
            try configuration
            ?? AmplifyConfiguration.inDirectory(URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        let plugins = try state.withLock { state -> [any Plugin] in
            guard !state.isConfigured else {
                throw ConfigurationError(
                    "Amplify is already configured. Call Amplify.configure() once, after adding plugins."
                )
            }
            state.isConfigured = true
            return state.plugins
        }
        // Auth first: the other categories take their tokens and credentials from it.
        let auth = plugins.lazy.compactMap { $0 as? any AuthCategoryPlugin }.first
        let ordered =
            plugins.filter { $0 is any AuthCategoryPlugin } + plugins.filter { !($0 is any AuthCategoryPlugin) }
        for plugin in ordered {
            (plugin as? any AuthCategoryPluginUser)?.useAuthPlugin(auth)
            if let authPlugin = plugin as? any AuthCategoryPlugin {
                try authPlugin.configure(with: resolved)
                continue
            }
            if let api = plugin as? any APICategoryPlugin {
                // An API plugin reads `api` or, from amplify_outputs.json, `data`.
                try api.configure(with: resolved)
                continue
            }
            let category = plugin is any DataStoreCategoryPlugin ? "dataStore" : "api"
            try plugin.configure(using: resolved?.pluginConfiguration(category: category, key: plugin.key))
        }
        // A GraphQL API in the configuration and no API plugin to reach it: DataStore stays
        // local, and says so once, with what to add.
        if !plugins.contains(where: { $0 is any APICategoryPlugin }), let api = resolved?.graphQLAPIName {
            for case let plugin as any SyncAdvising in plugins { plugin.adviseSync(configuredAPI: api) }
        }
    }

    /// Configures from a configuration file.
    ///
    /// - Throws: ``ConfigurationError`` when the file cannot be read or a plugin rejects it.
    public static func configure(with url: URL) throws {
        try configure(AmplifyConfiguration(configurationFile: url))
    }

    /// Removes every plugin and the configuration, so that Amplify can be set up again. The hub's
    /// listeners stay: remove them with `Amplify.Hub.removeListener(_:)`.
    public static func reset() async {
        let plugins = state.withLock { state in
            defer { state = State() }
            return state.plugins
        }
        for plugin in plugins { await plugin.reset() }
    }
}

/// A plugin that syncs through an API plugin, told at configuration that the configuration
/// describes a GraphQL API but no API plugin was added.
package protocol SyncAdvising {
    /// Says how to make the plugin sync with the API `configuredAPI`.
    func adviseSync(configuredAPI: String)
}

/// The DataStore category before a DataStore plugin is added.
struct UnconfiguredDataStore: DataStoreCategory {
    static let error = DataStoreError(
        .configuration,
        "DataStore is not configured. Call Amplify.add(plugin: AWSDataStorePlugin(modelRegistration: AmplifyModels())) "
            + "and then Amplify.configure()."
    )

    func save<M: Model>(_ model: M, where condition: (any QueryPredicate)?) async throws -> M { throw Self.error }
    func query<M: Model>(_ modelType: M.Type, byId id: String) async throws -> M? { throw Self.error }
    func query<M: Model>(
        _ modelType: M.Type,
        where predicate: (any QueryPredicate)?,
        sort sortInput: QuerySortInput?,
        paginate paginationInput: QueryPaginationInput?
    ) async throws -> [M] { throw Self.error }
    func delete<M: Model>(_ model: M, where predicate: (any QueryPredicate)?) async throws { throw Self.error }
    func delete<M: Model>(_ modelType: M.Type, withId id: String, where predicate: (any QueryPredicate)?) async throws {
        throw Self.error
    }
    func delete<M: Model>(_ modelType: M.Type, where predicate: any QueryPredicate) async throws { throw Self.error }
    func transaction<T: Sendable>(_ body: @Sendable (any DataStoreTransaction) throws -> T) async throws -> T {
        throw Self.error
    }
    func observe<M: Model>(_ modelType: M.Type) -> AsyncThrowingStream<MutationEvent, any Error> {
        AsyncThrowingStream { $0.finish(throwing: Self.error) }
    }
    func observeQuery<M: Model>(
        for modelType: M.Type,
        where predicate: (any QueryPredicate)?,
        sort sortInput: QuerySortInput?
    ) -> AsyncThrowingStream<DataStoreQuerySnapshot<M>, any Error> {
        AsyncThrowingStream { $0.finish(throwing: Self.error) }
    }
    func clear() async throws { throw Self.error }
    func start() async throws { throw Self.error }
    func stop() async throws { throw Self.error }
}
