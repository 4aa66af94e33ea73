import Foundation

/// Where the libraries keep the user's files: the platform's directories on Apple platforms,
/// the XDG base directories elsewhere (a relative `XDG_*` value is ignored, as the
/// specification asks).
package enum UserDirectories {
    /// Data kept across runs: Application Support, else `$XDG_DATA_HOME` or `~/.local/share`.
    package static func data(environment: [String: String]) -> URL {
        #if canImport(Darwin)
            if let url = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first {
                return url
            }
        #endif
        return xdg("XDG_DATA_HOME", default: ".local/share", environment: environment)
    }

    /// Data that may be rebuilt: Caches, else `$XDG_CACHE_HOME` or `~/.cache`.
    package static func cache(environment: [String: String]) -> URL {
        #if canImport(Darwin)
            if let url = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first {
                return url
            }
        #endif
        return xdg("XDG_CACHE_HOME", default: ".cache", environment: environment)
    }

    private static func xdg(_ variable: String, default path: String, environment: [String: String]) -> URL {
        if let value = environment[variable], value.hasPrefix("/") {
            return URL(filePath: value, directoryHint: .isDirectory)
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return URL(filePath: home, directoryHint: .isDirectory).appending(path: path, directoryHint: .isDirectory)
    }
}
