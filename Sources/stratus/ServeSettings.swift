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
///     "iamCredentials": [{ "accessKeyId": "AKIDLOCAL", "secretAccessKey": "secret" }],
///     "userPool": { "userPoolId": "us-east-1_Abc", "appIdClientRegex": "7abc.*",
///                   "jwksUrl": "http://127.0.0.1:5001/us-east-1_Abc/.well-known/jwks.json" },
///     "openIDConnect": { "issuer": "https://idp.example.com", "clientId": "web", "jwksFile": "jwks.json" }
///   },
///   "conflictResolution": "AUTOMERGE",
///   "models": {
///     "Post": { "conflictResolution": "OPTIMISTIC_CONCURRENCY" },
///     "Comment": { "conflictHandler": { "command": ["python3", "resolve.py"], "timeoutSeconds": 5 } }
///   },
///   "maxRequestBytes": 1048576,
///   "queryDepthLimit": 10,
///   "resolverCountLimit": 10000,
///   "idempotencyKeyTTLSeconds": 86400,
///   "executionTimeoutSeconds": 30,
///   "requestHeadTimeoutSeconds": 10,
///   "idleTimeoutSeconds": 60,
///   "maxConnectionsPerAddress": 1024,
///   "maxConnections": 10000,
///   "requestTimeoutSeconds": 30,
///   "allowedHosts": ["api.example.com"],
///   "shutdownTimeoutSeconds": 30,
///   "rest": [{ "name": "items", "cors": true, "routes": [
///     { "path": "/items/{proxy+}", "methods": ["ANY"], "authorization": "AWS_IAM", "handler": "echo" },
///     { "path": "/orders/{id}", "methods": ["POST"], "authorization": "API_KEY",
///       "handler": { "command": ["python3", "orders.py"], "timeoutSeconds": 29 } }
///   ] }]
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
        var userPool: UserPool?
        var openIDConnect: OpenIDConnect?
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

    /// `AMAZON_COGNITO_USER_POOLS`: the pool, and where its keys are when not at the pool's
    /// issuer (a pool emulator's JWKS URL, or a file).
    struct UserPool: Decodable {
        var userPoolId: String
        var region: String?
        var appIdClientRegex: String?
        var issuer: String?
        var jwksUrl: String?
        var jwksFile: String?
    }

    /// `OPENID_CONNECT`: the provider's issuer, client and TTLs (milliseconds, as AppSync).
    struct OpenIDConnect: Decodable {
        var issuer: String
        var clientId: String?
        var iatTTL: Double?
        var authTTL: Double?
        var jwksUrl: String?
        var jwksFile: String?
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
    /// A PostgreSQL database URL to keep the data in, as `--database` gives it.
    var database: String?
    /// The most connections each server opens to the database (16 by default).
    var databaseConnections: Int?
    var authorization: Authorization?
    /// The local Cognito (``AuthSettings``).
    var auth: AuthSettings?
    var conflictResolution: String?
    var conflictHandler: Handler?
    var models: [String: Model]?
    var maxRequestBytes: Int?
    /// AppSync's `queryDepthLimit` (0, the default, or 1–75) and `resolverCountLimit` (1–10,000).
    var queryDepthLimit: Int?
    var resolverCountLimit: Int?
    /// How long a mutation's response is kept for repeats with its `Idempotency-Key`.
    var idempotencyKeyTTLSeconds: Double?
    var executionTimeoutSeconds: Double?
    var requestHeadTimeoutSeconds: Double?
    var idleTimeoutSeconds: Double?
    var maxConnectionsPerAddress: Int?
    var maxConnections: Int?
    var requestTimeoutSeconds: Double?
    /// Names clients reach the server by besides its own, as `--allowed-host` gives them.
    var allowedHosts: [String]?
    var shutdownTimeoutSeconds: Double?
    var rest: [REST]?

    /// A REST API: routes to the echo handler or to a command.
    struct REST: Decodable {
        struct Route: Decodable {
            var path: String
            var methods: [String]?
            var authorization: String?
            var handler: Handler?
        }

        /// `"echo"`, or `{"command": [...], "timeoutSeconds": 29}`.
        enum Handler: Decodable {
            case echo
            case command([String], timeoutSeconds: Double?)

            private enum Keys: String, CodingKey { case command, timeoutSeconds }

            init(from decoder: any Decoder) throws {
                if let name = try? decoder.singleValueContainer().decode(String.self) {
                    guard name == "echo" else {
                        throw CommandFailure(
                            "Unknown REST handler '\(name)'. Use \"echo\" or {\"command\": [\"program\", \"argument\"]}."
                        )
                    }
                    self = .echo
                    return
                }
                let container = try decoder.container(keyedBy: Keys.self)
                let command = try container.decode([String].self, forKey: .command)
                guard !command.isEmpty else {
                    throw CommandFailure("A REST handler's command is empty. Give the program and its arguments.")
                }
                self = .command(
                    command,
                    timeoutSeconds: try container.decodeIfPresent(Double.self, forKey: .timeoutSeconds)
                )
            }
        }

        var name: String
        var cors: Bool?
        var routes: [Route]
    }

    static func load(path: String?) throws -> ServeSettings {
        guard let path else { return ServeSettings() }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure(
                "Cannot read the configuration file '\(path)'. Pass --config with the path of a JSON file."
            )
        }
        // Foundation's decoder lets some non-JSON through (a trailing comma, on Linux): the
        // strict reader says where the text stops being JSON.
        do {
            _ = try JSON(parsing: data)
        } catch {
            let before = data.prefix(error.offset)
            let line = before.count { $0 == UInt8(ascii: "\n") } + 1
            let column = before.count - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
            throw CommandFailure(
                "The configuration file '\(path)' is not valid JSON at line \(line), column \(column): "
                    + "\(error.reason). See `stratus serve --help`."
            )
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            let settings = try decoder.decode(ServeSettings.self, from: data)
            _ = try settings.modes()
            if let connections = settings.databaseConnections, connections < 1 {
                throw CommandFailure(
                    "databaseConnections in '\(path)' is \(connections); give at least 1 (16 is the default)."
                )
            }
            _ = try settings.strategies()
            _ = try settings.restAPIs()
            _ = try settings.limits()
            _ = try settings.tokenAuthorization(relativeTo: URL(filePath: path).deletingLastPathComponent())
            return settings
        } catch let error as CommandFailure {
            throw error
        } catch let error as DecodingError {
            throw CommandFailure(
                "The configuration file '\(path)' \(problem(decoding: data, error)). See `stratus serve --help`."
            )
        } catch {
            throw CommandFailure(
                "The configuration file '\(path)' is not valid: \(error). See `stratus serve --help`."
            )
        }
    }

    /// What is wrong with a configuration file that does not decode, in the file's terms:
    /// `lacks "value" at authorization.apiKeys[0]`.
    private static func problem(decoding data: Data, _ error: DecodingError) -> String {
        func location(_ context: DecodingError.Context) -> String {
            guard !context.codingPath.isEmpty else { return "" }
            let path = context.codingPath.enumerated().map { index, key in
                if let position = key.intValue { return "[\(position)]" }
                return index == 0 ? key.stringValue : "." + key.stringValue
            }
            return " at " + path.joined()
        }
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            // JSONSerialization says where the text stops being JSON.
            var detail = ""
            do {
                _ = try JSONSerialization.jsonObject(with: data)
            } catch {
                if let text = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String {
                    detail = ": " + text.trimmingCharacters(in: CharacterSet(charactersIn: "."))
                }
            }
            return "is not valid JSON" + detail
        case .keyNotFound(let key, let context):
            return "lacks \"\(key.stringValue)\"\(location(context))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "has an invalid value\(location(context)): "
                + context.debugDescription.trimmingCharacters(in: CharacterSet(charactersIn: "."))
        @unknown default:
            return "is not valid: \(error)"
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
                throw CommandFailure(
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
                    throw CommandFailure(
                        "The configuration file sets both conflictResolution '\(name!)' and a conflictHandler\(scope). "
                            + "Remove one, or set conflictResolution to LAMBDA."
                    )
                }
                guard !handler.command.isEmpty else {
                    throw CommandFailure(
                        "The conflictHandler\(scope) in the configuration file has an empty command. "
                            + #"Give the program and its arguments, like "command": ["python3", "resolve.py"]."#
                    )
                }
                let seconds = handler.timeoutSeconds ?? 5
                guard seconds > 0, seconds.isFinite else {
                    throw CommandFailure(
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
                throw CommandFailure(
                    "conflictResolution LAMBDA\(scope) in the configuration file needs a conflictHandler "
                        + #"with a command, like "conflictHandler": {"command": ["python3", "resolve.py"]}."#
                )
            case let other?:
                throw CommandFailure(
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
        return ServerConfiguration(
            conflictResolution: strategy,
            modelConflictResolution: perModel,
            queryDepthLimit: queryDepthLimit ?? 0,
            resolverCountLimit: resolverCountLimit ?? 10_000,
            idempotencyKeyTTL: idempotencyKeyTTLSeconds.map { .milliseconds(Int(($0 * 1000).rounded())) }
                ?? .seconds(24 * 3600)
        )
    }

    /// The HTTP endpoint's limits, checked against the ranges they take.
    func limits() throws -> ServerLimits {
        if let depth = queryDepthLimit, !(0...75).contains(depth) {
            throw CommandFailure(
                "queryDepthLimit \(depth) in the configuration file is out of range. Give 1 to 75, or 0 for no limit "
                    + "of your own (requests nesting fields deeper than 75 levels are refused anyway)."
            )
        }
        if let count = resolverCountLimit, !(1...10_000).contains(count) {
            throw CommandFailure(
                "resolverCountLimit \(count) in the configuration file is out of range. Give 1 to 10000."
            )
        }
        if let seconds = idempotencyKeyTTLSeconds, !(seconds > 0 && seconds.isFinite) {
            throw CommandFailure(
                "idempotencyKeyTTLSeconds \(seconds) in the configuration file is out of range. "
                    + "Give a number of seconds above 0 (86400, the default, keeps keys for 24 hours)."
            )
        }
        if let count = maxConnectionsPerAddress, count < 1 {
            throw CommandFailure(
                "maxConnectionsPerAddress \(count) in the configuration file is out of range. Give 1 or more."
            )
        }
        if let count = maxConnections, count < 1 {
            throw CommandFailure("maxConnections \(count) in the configuration file is out of range. Give 1 or more.")
        }
        func duration(_ seconds: Double?, key: String, default fallback: Duration) throws -> Duration {
            guard let seconds else { return fallback }
            guard seconds > 0, seconds.isFinite else {
                throw CommandFailure(
                    "\(key) \(seconds) in the configuration file is out of range. Give a number of seconds above 0."
                )
            }
            return .milliseconds(Int((seconds * 1000).rounded()))
        }
        let defaults = ServerLimits()
        return ServerLimits(
            maxRequestBytes: maxRequestBytes ?? defaults.maxRequestBytes,
            executionTimeout: try duration(
                executionTimeoutSeconds,
                key: "executionTimeoutSeconds",
                default: defaults.executionTimeout
            ),
            requestHeadTimeout: try duration(
                requestHeadTimeoutSeconds,
                key: "requestHeadTimeoutSeconds",
                default: defaults.requestHeadTimeout
            ),
            requestTimeout: try duration(
                requestTimeoutSeconds,
                key: "requestTimeoutSeconds",
                default: defaults.requestTimeout
            ),
            idleTimeout: try duration(idleTimeoutSeconds, key: "idleTimeoutSeconds", default: defaults.idleTimeout),
            maxConnectionsPerAddress: maxConnectionsPerAddress ?? defaults.maxConnectionsPerAddress,
            maxConnections: maxConnections ?? defaults.maxConnections,
            shutdownTimeout: try duration(
                shutdownTimeoutSeconds,
                key: "shutdownTimeoutSeconds",
                default: defaults.shutdownTimeout
            )
        )
    }

    /// The user pool and OIDC provider, checked against the modes that need them.
    /// With `hasLocalPool`, `AMAZON_COGNITO_USER_POOLS` may go without `authorization.userPool`:
    /// the local Cognito's tokens are trusted.
    func tokenAuthorization(
        relativeTo directory: URL,
        hasLocalPool: Bool = false
    ) throws -> (UserPoolAuthorization?, OIDCAuthorization?) {
        let modes = try modes()
        func source(url: String?, file: String?, key: String) throws -> JWKSSource? {
            if let url {
                guard let parsed = URL(string: url), parsed.scheme == "http" || parsed.scheme == "https" else {
                    throw CommandFailure("\(key).jwksUrl '\(url)' is not an http(s) URL.")
                }
                return .url(parsed)
            }
            if let file {
                let resolved = file.hasPrefix("/") ? URL(filePath: file) : directory.appending(path: file)
                guard FileManager.default.isReadableFile(atPath: resolved.path) else {
                    throw CommandFailure("\(key).jwksFile '\(resolved.path)' cannot be read.")
                }
                return .file(resolved)
            }
            return nil
        }
        /// The keys of `issuer` are looked up under it unless given: it must then be an http(s) URL.
        func checkIssuer(_ issuer: String, hasKeys: Bool, key: String) throws {
            guard !hasKeys, !UserPoolAuthorization.canLookUpKeys(of: issuer) else { return }
            throw CommandFailure(
                "\(key) '\(issuer)' is not an http(s) URL, so its keys cannot be fetched from "
                    + "<issuer>/.well-known/jwks.json. Give an https:// issuer, or jwksUrl or jwksFile."
            )
        }
        var userPool: UserPoolAuthorization?
        if let pool = authorization?.userPool {
            let region = pool.region ?? region ?? "us-east-1"
            let hasKeys = pool.jwksUrl != nil || pool.jwksFile != nil
            if let issuer = pool.issuer {
                try checkIssuer(issuer, hasKeys: hasKeys, key: "authorization.userPool.issuer")
            } else {
                try checkIssuer(
                    "https://cognito-idp.\(region).amazonaws.com/\(pool.userPoolId)",
                    hasKeys: hasKeys,
                    key: "authorization.userPool.userPoolId gives the issuer"
                )
            }
            userPool = UserPoolAuthorization(
                userPoolId: pool.userPoolId,
                region: region,
                appIdClientRegex: pool.appIdClientRegex,
                issuer: pool.issuer,
                jwks: try source(url: pool.jwksUrl, file: pool.jwksFile, key: "authorization.userPool")
            )
        } else if modes.contains(.amazonCognitoUserPools), !hasLocalPool {
            throw CommandFailure(
                "AMAZON_COGNITO_USER_POOLS needs authorization.userPool with userPoolId (and jwksUrl or jwksFile "
                    + "when the keys are not at the pool's issuer) in the configuration file."
            )
        }
        var provider: OIDCAuthorization?
        if let oidc = authorization?.openIDConnect {
            try checkIssuer(
                oidc.issuer.hasSuffix("/") ? String(oidc.issuer.dropLast()) : oidc.issuer,
                hasKeys: oidc.jwksUrl != nil || oidc.jwksFile != nil,
                key: "authorization.openIDConnect.issuer"
            )
            provider = OIDCAuthorization(
                issuer: oidc.issuer,
                clientId: oidc.clientId,
                issuedAtTTL: oidc.iatTTL.map { $0 / 1000 },
                authTTL: oidc.authTTL.map { $0 / 1000 },
                jwks: try source(url: oidc.jwksUrl, file: oidc.jwksFile, key: "authorization.openIDConnect")
            )
        } else if modes.contains(.openIDConnect) {
            throw CommandFailure(
                "OPENID_CONNECT needs authorization.openIDConnect with issuer (and clientId, jwksUrl or jwksFile) "
                    + "in the configuration file."
            )
        }
        return (userPool, provider)
    }

    /// The REST APIs, with handler commands resolved against the configuration's directory.
    func restAPIs() throws -> [RESTAPI] {
        try (rest ?? []).map { api in
            guard !api.name.isEmpty, api.name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
            else {
                throw CommandFailure(
                    "The REST API name '\(api.name)' must be letters, digits, '-' or '_': it becomes the path /rest/<name>."
                )
            }
            let routes = try api.routes.map { route in
                guard route.path.hasPrefix("/") else {
                    throw CommandFailure("The REST route '\(route.path)' of '\(api.name)' must start with '/'.")
                }
                let mode =
                    try route.authorization.map { name in
                        guard let mode = Identity.AuthorizationMode(rawValue: name), mode != .function else {
                            throw CommandFailure(
                                "Unknown REST authorization '\(name)' on \(route.path). "
                                    + "Use NONE, API_KEY, AWS_IAM, AMAZON_COGNITO_USER_POOLS or OPENID_CONNECT."
                            )
                        }
                        return mode
                    } ?? .none
                let handler: RESTHandler
                switch route.handler ?? .echo {
                case .echo: handler = .echo
                case .command(let command, let seconds):
                    handler = .command(command, timeout: .milliseconds(Int((seconds ?? 29) * 1000)))
                }
                let methods = try (route.methods ?? ["ANY"]).map { name in
                    guard let method = RESTMethod(named: name) else {
                        throw CommandFailure(
                            "Unknown method '\(name)' on the REST route \(route.path) of '\(api.name)'. Use "
                                + RESTMethod.allCases.map(\.rawValue).joined(separator: ", ") + "."
                        )
                    }
                    return method
                }
                return RESTRoute(
                    path: route.path,
                    methods: methods,
                    authorization: mode,
                    handler: handler
                )
            }
            return RESTAPI(name: api.name, routes: routes, cors: api.cors ?? true)
        }
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
    /// The API keys the file configures; empty when it configures none.
    var configuredAPIKeys: [APIKey] {
        (authorization?.apiKeys ?? []).map { APIKey(value: $0.value, expires: $0.expires) }
    }

    /// A new API key, in AppSync's form.
    static func newAPIKey() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return "da2-" + String((0..<26).map { _ in alphabet.randomElement()! })
    }

    func apiKeys(defaultIn directory: URL) throws -> [APIKey] {
        if !configuredAPIKeys.isEmpty { return configuredAPIKeys }
        let file = directory.appendingPathComponent("api-key")
        if let stored = try? String(contentsOf: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
            !stored.isEmpty
        {
            return [APIKey(value: stored)]
        }
        let key = Self.newAPIKey()
        // Private to its owner, as the data directory's other files are.
        try PrivateDataDirectory.create(directory)
        try PrivateDataDirectory.replaceFile(at: file, with: Data(key.utf8))
        return [APIKey(value: key)]
    }
}
