// The transport a plugin is created with (`AWSCognitoAuthPlugin(transport:)`) is
// AWSPluginsCore's, shared with the API plugin, and visible to every importer of the plugin.
@_exported import struct AWSPluginsCore.AsyncHTTPClientTransport
@_exported import protocol AWSPluginsCore.HTTPTransport
@_exported import struct AWSPluginsCore.URLSessionTransport
@_exported import func AWSPluginsCore.defaultHTTPTransport
