import Foundation

/// The contents of `amplifyconfiguration.json` (or of a Gen2 `amplify_outputs.json`).
///
/// Each category reads its own section: `api`, `dataStore`, `auth`.
public struct AmplifyConfiguration: Sendable, Hashable {
    /// The whole document.
    public var json: JSONValue

    /// A configuration from an in-memory document.
    public init(json: JSONValue) {
        self.json = json
    }

    /// Reads a configuration file.
    ///
    /// - Throws: ``ConfigurationError`` when the file is missing or is not a JSON object.
    public init(configurationFile url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ConfigurationError(
                "Cannot read the configuration file at '\(url.path)'. Run `stratus serve` (which writes it) or pass the path of your amplifyconfiguration.json."
            )
        }
        let json: JSONValue
        do {
            json = try JSONValue(parsing: data)
        } catch {
            throw ConfigurationError(
                "The configuration file at '\(url.path)' is not JSON: \(error) Fix its syntax or write it again with "
                    + "`stratus serve`."
            )
        }
        guard case .object = json else {
            throw ConfigurationError(
                "The configuration file at '\(url.path)' is not a JSON object. Fix its syntax or write it again with `stratus serve`."
            )
        }
        self.init(json: json)
    }

    /// `amplifyconfiguration.json`, else `amplify_outputs.json`, in `directory`; `nil` when neither exists.
    ///
    /// - Throws: ``ConfigurationError`` when a file exists but cannot be read.
    public static func inDirectory(_ directory: URL) throws -> AmplifyConfiguration? {
        for name in ["amplifyconfiguration.json", "amplify_outputs.json"] {
            let url = directory.appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: url.path) {
                return try AmplifyConfiguration(configurationFile: url)
            }
        }
        return nil
    }

    /// The name of the first GraphQL API the configuration describes: an `awsAPIPlugin` endpoint
    /// of type `GraphQL`, or `data` for an `amplify_outputs.json` with a `data` URL.
    package var graphQLAPIName: String? {
        if case .object(let apis) = json.value(at: "api.plugins.awsAPIPlugin") {
            let graphQL = apis.filter { $0.value.value(at: "endpointType") == .string("GraphQL") }
            if let name = graphQL.keys.sorted().first { return name }
        }
        if json.value(at: "data.url") != nil { return "data" }
        return nil
    }

    /// The section of the plugin `key` in the category `category`: `<category>.plugins.<key>`.
    public func pluginConfiguration(category: String, key: String) -> JSONValue? {
        json.value(at: "\(category).plugins.\(key)")
    }
}

/// A configuration that Amplify cannot use, with the key at fault and the fix.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
