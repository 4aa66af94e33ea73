import ArgumentParser
import Foundation
import StratusServer

/// The `--config` file of `stratus serve`.
///
/// ```json
/// {
///   "region": "us-east-1",
///   "authorization": {
///     "defaultMode": "API_KEY",
///     "additionalModes": ["AWS_IAM"],
///     "apiKeys": [{ "value": "da2-local", "expires": "2030-01-01T00:00:00Z" }],
///     "iamCredentials": [{ "accessKeyId": "AKIDLOCAL", "secretAccessKey": "secret" }]
///   },
///   "conflictResolution": "AUTOMERGE",
///   "models": {
///     "Post": { "conflictResolution": "OPTIMISTIC_CONCURRENCY" },
///     "Comment": { "conflictHandler": { "command": ["python3", "resolve.py"], "timeoutSeconds": 5 } }
///   },
///   "maxRequestBytes": 1048576
/// }
/// ```
///
/// A `conflictHandler` (at the top level for every model, or per model) is a custom conflict
/// handler run as a command in the configuration file's directory; see `ConflictHandlerCommand`.
struct ServeSettings: Decodable {
    struct Authorization: Decodable {
        var defaultMode: String?
        var additionalModes: [String]?
        var apiKeys: [Key]?
        var iamCredentials: [Credential]?
    }

    struct Key: Decodable {
        var value: String
        var expires: Date?
    }

    struct Credential: Decodable {
        var accessKeyId: String
        var secretAccessKey: String
        var sessionToken: String?
    }

    struct Model: Decodable {
        var conflictResolution: String?
        var conflictHandler: Handler?
    }

    struct Handler: Decodable {
        var command: [String]
        var timeoutSeconds: Double?
    }

    var region: String?
    var authorization: Authorization?
    var conflictResolution: String?
    var conflictHandler: Handler?
    var models: [String: Model]?
    var maxRequestBytes: Int?

    static func load(path: String?) throws -> ServeSettings {
        guard let path else { return ServeSettings() }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError(
                "Cannot read the configuration file '\(path)'. Pass --config with the path of a JSON file."
            )
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            let settings = try decoder.decode(ServeSettings.self, from: data)
            _ = try settings.modes()
            _ = try settings.strategies()
            return settings
        } catch let error as ValidationError {
            throw error
        } catch {
            throw ValidationError(
                "The configuration file '\(path)' is not valid: \(error). See `stratus serve --help`."
            )
        }
    }

    init() {}

    var defaultMode: Identity.AuthorizationMode { (try? modes())?.first ?? .apiKey }
    var additionalModes: [Identity.AuthorizationMode] { Array(((try? modes()) ?? []).dropFirst()) }

    private func modes() throws -> [Identity.AuthorizationMode] {
        let names = [authorization?.defaultMode ?? "API_KEY"] + (authorization?.additionalModes ?? [])
        return try names.map { name in
            guard let mode = Identity.AuthorizationMode(rawValue: name) else {
                let known = Identity.AuthorizationMode.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError(
                    "Unknown authorization mode '\(name)' in the configuration file. Use one of: \(known)."
                )
            }
            return mode
        }
    }

    private func strategies(
        directory: URL? = nil
    ) throws -> (ConflictResolutionStrategy, [String: ConflictResolutionStrategy]) {
        func strategy(_ name: String?, _ handler: Handler?, scope: String) throws -> ConflictResolutionStrategy {
            if let handler {
                guard name == nil || name == "LAMBDA" else {
                    throw ValidationError(
                        "The configuration file sets both conflictResolution '\(name!)' and a conflictHandler\(scope). "
                            + "Remove one, or set conflictResolution to LAMBDA."
                    )
                }
                guard !handler.command.isEmpty else {
                    throw ValidationError(
                        "The conflictHandler\(scope) in the configuration file has an empty command. "
                            + #"Give the program and its arguments, like "command": ["python3", "resolve.py"]."#
                    )
                }
                let seconds = handler.timeoutSeconds ?? 5
                guard seconds > 0, seconds.isFinite else {
                    throw ValidationError(
                        "The conflictHandler\(scope) in the configuration file has timeoutSeconds \(seconds). "
                            + "Give a number of seconds above 0."
                    )
                }
                let command = ConflictHandlerCommand(
                    arguments: handler.command,
                    workingDirectory: directory,
                    timeout: .milliseconds(Int((seconds * 1000).rounded()))
                )
                return .custom(command.handler)
            }
            switch name {
            case nil, "AUTOMERGE": return .automerge
            case "OPTIMISTIC_CONCURRENCY": return .optimisticConcurrency
            case "LAMBDA":
                throw ValidationError(
                    "conflictResolution LAMBDA\(scope) in the configuration file needs a conflictHandler "
                        + #"with a command, like "conflictHandler": {"command": ["python3", "resolve.py"]}."#
                )
            case let other?:
                throw ValidationError(
                    "Unknown conflictResolution '\(other)' in the configuration file. "
                        + "Use AUTOMERGE, OPTIMISTIC_CONCURRENCY or LAMBDA (with a conflictHandler)."
                )
            }
        }
        var perModel: [String: ConflictResolutionStrategy] = [:]
        for (name, model) in models ?? [:] where model.conflictResolution != nil || model.conflictHandler != nil {
            perModel[name] = try strategy(model.conflictResolution, model.conflictHandler, scope: " of model '\(name)'")
        }
        return (try strategy(conflictResolution, conflictHandler, scope: ""), perModel)
    }

    /// The server's configuration; conflict handler commands run in `directory`.
    func serverConfiguration(directory: URL?) -> ServerConfiguration {
        let (strategy, perModel) = (try? strategies(directory: directory)) ?? (.automerge, [:])
        return ServerConfiguration(conflictResolution: strategy, modelConflictResolution: perModel)
    }

    var iamCredentials: [IAMCredential] {
        (authorization?.iamCredentials ?? []).map {
            IAMCredential(
                accessKeyId: $0.accessKeyId,
                secretAccessKey: $0.secretAccessKey,
                sessionToken: $0.sessionToken
            )
        }
    }

    /// The configured API keys, or the data directory's own key (made on first use).
    func apiKeys(defaultIn directory: URL) throws -> [APIKey] {
        if let keys = authorization?.apiKeys, !keys.isEmpty {
            return keys.map { APIKey(value: $0.value, expires: $0.expires) }
        }
        let file = directory.appendingPathComponent("api-key")
        if let stored = try? String(contentsOf: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
            !stored.isEmpty
        {
            return [APIKey(value: stored)]
        }
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        let key = "da2-" + String((0..<26).map { _ in alphabet.randomElement()! })
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(key.utf8).write(to: file, options: .atomic)
        return [APIKey(value: key)]
    }
}
