/// A plugin that implements a category, added with `Amplify.add(plugin:)`.
public protocol Plugin: AnyObject, Sendable {
    /// The plugin's key in `amplifyconfiguration.json` (`awsDataStorePlugin`, `awsAPIPlugin`).
    var key: String { get }

    /// Configures the plugin from its section of the configuration (`nil` when there is none).
    ///
    /// - Throws: ``ConfigurationError`` naming the bad key and the fix.
    func configure(using configuration: JSONValue?) throws

    /// Releases everything the plugin holds, so that Amplify can be configured again.
    func reset() async
}

/// A plugin of the DataStore category.
public protocol DataStoreCategoryPlugin: Plugin, DataStoreCategory {}

/// A plugin that takes tokens and credentials from the Auth plugin added next to it:
/// `Amplify.configure()` hands it the Auth plugin (or `nil`) before configuring it.
package protocol AuthCategoryPluginUser: Plugin {
    /// Uses `plugin` for the tokens and credentials it was not given otherwise.
    func useAuthPlugin(_ plugin: (any AuthCategoryPlugin)?)
}
