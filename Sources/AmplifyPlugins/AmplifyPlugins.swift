// The plugins of the API, DataStore and Auth categories, and what they share, under one import:
// `import AmplifyPlugins` brings `AWSAPIPlugin`, `AWSDataStorePlugin`, `AWSCognitoAuthPlugin` and
// the credentials providers and transports of `AWSPluginsCore`.
@_exported import AWSAPIPlugin
@_exported import AWSCognitoAuthPlugin
@_exported import AWSDataStorePlugin
@_exported import AWSPluginsCore
