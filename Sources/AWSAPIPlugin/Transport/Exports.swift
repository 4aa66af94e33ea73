// The transport a plugin is created with (`AWSAPIPlugin(transport:)`) is AWSPluginsCore's,
// shared with the Auth plugin, and visible to every importer of AWSAPIPlugin.
@_exported import protocol AWSPluginsCore.HTTPTransport
@_exported import struct AWSPluginsCore.URLSessionTransport
