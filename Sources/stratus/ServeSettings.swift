import Foundation
import StratusCodegen
import StratusCognito
import StratusServer

/// The `--config` file of `stratus serve`, decoded once into the backend's typed configuration.
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
///     "openIDConnect": { "issuer": "https://idp.example.com", "clientId": "web", "jwksFile": "jwks.json" },
///     "lambdaAuthorizer": { "function": "authorizer-dev" }
///   },
///   "conflictDetection": true,
///   "conflictResolution": "AUTOMERGE",
///   "models": {
///     "Post": { "conflictResolution": "OPTIMISTIC_CONCURRENCY" },
///     "Comment": { "conflictHandler": { "command": ["python3", "resolve.py"], "timeoutSeconds": 5 } }
///   },
///   "maxRequestBytes": 1048576,
///   "queryDepthLimit": 10,
///   "resolverCountLimit": 10000,
///   "idempotencyKeyTTLSeconds": 86400,
///   "deltaSyncTTLSeconds": 1800,
///   "tombstoneTTLSeconds": 2592000,
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
///   ] }],
///   "auth": { "userPoolId": "us-east-1_Local", "clients": [{ "clientId": "localclient" }] },
///   "environment": "dev",
///   "functions": { "weather-dev": { "runtime": ["python3", "-m", "awslambdaric", "app.handler"], "concurrency": 2 } },
///   "resolvers": { "Query.forecast": { "function": "weather-dev" }, "Mutation.publish": { "dataSource": "NONE" },
///                  "Query.page": { "http": "http://127.0.0.1:8080/page" } },
///   "httpOrigins": { "https://api.example.com": "http://127.0.0.1:8080" },
///   "httpTimeoutSeconds": 10
/// }
/// ```
///
/// `functions` and `resolvers` answer the schema's hand-written fields; see
/// `ServeSettings+Functions.swift`.
///
/// A `conflictHandler` (at the top level for every model, or per model) is a custom conflict
/// handler run as a command in the configuration file's directory; see `ConflictHandlerCommand`.
/// The `auth` block configures the local Cognito (see `AuthSettings.swift`).
struct ServeSettings {
    /// The region of the API's signatures and of the clients' files; `nil` for `us-east-1`.
    var region: String?
    /// A PostgreSQL database URL to keep the data in, as `--database` gives it.
    var database: String?
    /// The most connections each server opens to the database.
    var databaseConnections = 16
    var defaultMode = Identity.AuthorizationMode.apiKey
    var additionalModes: [Identity.AuthorizationMode] = []
    /// Whether the file lists `authorization.additionalModes`: without the list, the local
    /// Cognito adds its own modes.
    var listsAdditionalModes = false
    /// The API keys the file configures; empty when it configures none.
    var apiKeys: [APIKey] = []
    var iamCredentials: [IAMCredential] = []
    var userPool: UserPoolAuthorization?
    var openIDConnect: OIDCAuthorization?
    /// Whether ``openIDConnect`` is the backend's own provider (`"local": true`), whose tokens
    /// of any claims the console signs.
    var localOpenIDConnect = false
    /// The function of `functions` that decides on `AWS_LAMBDA` tokens
    /// (`"lambdaAuthorizer": {"function": "authorizer-dev"}` under `authorization`).
    var lambdaAuthorizerFunction: String?
    /// Conflict handling (commands run in the file's directory), depth and resolver limits, and
    /// how long `Idempotency-Key`s are kept.
    var server = ServerConfiguration()
    var limits = ServerLimits()
    var restAPIs: [RESTAPI] = []
    /// Names clients reach the server by besides its own, as `--allowed-host` gives them.
    var allowedHosts: [String] = []
    /// The local Cognito of the `auth` block; `nil` without one.
    var cognito: CognitoConfiguration?
    /// The models the file's `models` object names, in its order.
    var configuredModels: [String] = []

    /// The settings of the file at `path`; the defaults without one.
    ///
    /// - Throws: ``CommandFailure`` naming the file's first problem and how to fix it.
    static func load(path: String?) throws -> ServeSettings {
        guard let path else { return ServeSettings() }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure(
                "Cannot read the configuration file '\(path)'. Pass --config with the path of a JSON file."
            )
        }
        // Foundation's decoder lets some non-JSON through (a trailing comma, on Linux): the
        // strict reader says where the text stops being JSON.
        let json: JSON
        do {
            json = try JSON(parsing: data)
        } catch {
            let before = data.prefix(error.offset)
            let line = before.count { $0 == UInt8(ascii: "\n") } + 1
            let column = before.count - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
            throw CommandFailure(
                "The configuration file '\(path)' is not valid JSON at line \(line), column \(column): "
                    + "\(error.reason). See `stratus serve --help`."
            )
        }
        try checkKeys(of: json)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        decoder.userInfo[.configurationFile] = path
        do {
            return try decoder.decode(ServeSettings.self, from: data)
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

    /// Checks that `AMAZON_COGNITO_USER_POOLS`, when listed, has a pool to check tokens
    /// against: the configured `userPool`, or the local Cognito (`--auth` or an `auth` block).
    ///
    /// - Throws: ``CommandFailure`` naming both ways to give it one.
    func checkUserPoolMode(hasLocalPool: Bool) throws {
        guard defaultMode == .amazonCognitoUserPools || additionalModes.contains(.amazonCognitoUserPools),
            userPool == nil, !hasLocalPool
        else { return }
        throw CommandFailure(
            "AMAZON_COGNITO_USER_POOLS needs authorization.userPool with userPoolId (and jwksUrl or jwksFile when the "
                + #"keys are not at the pool's issuer) in the configuration file, or the local Cognito (--auth, or an "#
                + #""auth" block in the file)."#
        )
    }

    /// Checks that the file's `models` are the schema's: the settings of a misspelt model
    /// would otherwise never apply.
    ///
    /// - Throws: ``CommandFailure`` naming the first model the schema lacks and the closest it has.
    func checkModels(of schema: AnnotatedSchema) throws {
        let names = schema.models.map(\.name)
        for model in configuredModels where !names.contains(model) {
            let hint =
                closestMatch(to: model, in: names).map { " Did you mean '\($0)'?" }
                ?? (names.isEmpty
                    ? " The schema has no @model type." : " Its models are \(names.joined(separator: ", ")).")
            throw CommandFailure("models.\(model) in the configuration file is not a model of the schema.\(hint)")
        }
    }

    /// The database the data lives in: `override` (`--database`), else the file's; `nil` for a
    /// data directory.
    ///
    /// - Throws: ``CommandFailure`` for a URL that is not a usable `postgres://` URL.
    func databaseLocation(override: String?) throws -> PostgresLocation? {
        do {
            return try (override ?? database).map { try PostgresLocation($0) }
        } catch {
            throw CommandFailure("\(error) Pass --database postgres://user@host:port/database.")
        }
    }

    /// The local Cognito's configuration when `--auth` is given or the file has an `auth`
    /// block; `nil` otherwise.
    func cognitoConfiguration(enabled: Bool) -> CognitoConfiguration? {
        cognito ?? (enabled ? AuthSettings.defaultConfiguration(region: region) : nil)
    }

    /// The API's additional modes: with a local Cognito and no `additionalModes` in the file,
    /// `AMAZON_COGNITO_USER_POOLS` and `AWS_IAM` join the configured ones.
    func additionalModes(withLocalPool hasLocalPool: Bool) -> [Identity.AuthorizationMode] {
        var modes = additionalModes
        guard hasLocalPool, !listsAdditionalModes else { return modes }
        for mode in [Identity.AuthorizationMode.amazonCognitoUserPools, .awsIAM]
        where mode != defaultMode && !modes.contains(mode) {
            modes.append(mode)
        }
        return modes
    }
}

extension CodingUserInfoKey {
    /// The path of the configuration file being decoded, as `--config` gives it.
    static let configurationFile = CodingUserInfoKey(rawValue: "stratus.configurationFile")!
}

/// A member of the configuration file, by its name.
struct SettingsField: CodingKey, ExpressibleByStringLiteral {
    var stringValue: String
    var intValue: Int? { nil }

    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
    init(stringLiteral value: String) { stringValue = value }
}

/// An object of the configuration file.
typealias SettingsObject = KeyedDecodingContainer<SettingsField>

extension SettingsObject {
    /// The object under `key`; `nil` when it is absent or `null`.
    ///
    /// Read through a decoder of its own, as a member of a `Decodable` type is: Foundation's
    /// nested containers drop the path from some errors (a date that does not parse).
    func object(_ key: SettingsField) throws -> SettingsObject? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try superDecoder(forKey: key).container(keyedBy: SettingsField.self)
    }

    /// The objects of the list under `key`; `nil` when it is absent or `null`.
    func objects(_ key: SettingsField) throws -> [SettingsObject]? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try requiredObjects(key)
    }

    /// The objects of the list under `key`, which must be there.
    func requiredObjects(_ key: SettingsField) throws -> [SettingsObject] {
        var list = try nestedUnkeyedContainer(forKey: key)
        var objects: [SettingsObject] = []
        while !list.isAtEnd {
            objects.append(try list.superDecoder().container(keyedBy: SettingsField.self))
        }
        return objects
    }

    /// The value under `key`; `nil` when it is absent or `null`.
    func value<T: Decodable>(_ key: SettingsField, as type: T.Type = T.self) throws -> T? {
        try decodeIfPresent(type, forKey: key)
    }
}

extension ServeSettings: Decodable {
    /// Decodes the file's members and checks them, in the order a reader meets the problems:
    /// authorization modes, database connections, conflict handling, REST APIs, limits, token
    /// issuers, then the local Cognito.
    init(from decoder: any Decoder) throws {
        let path = decoder.userInfo[.configurationFile] as? String ?? "."
        // Commands and key files are found relative to the file.
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        let file = try decoder.container(keyedBy: SettingsField.self)
        region = try file.value("region")
        database = try file.value("database")
        let authorization = try file.object("authorization")
        let modes = try Self.modes(authorization)
        defaultMode = modes[0]
        additionalModes = Array(modes.dropFirst())
        listsAdditionalModes = try authorization?.value("additionalModes", as: [String].self) != nil
        apiKeys = try (authorization?.objects("apiKeys") ?? []).map {
            APIKey(value: try $0.decode(String.self, forKey: "value"), expires: try $0.value("expires"))
        }
        iamCredentials = try (authorization?.objects("iamCredentials") ?? []).map {
            IAMCredential(
                accessKeyId: try $0.decode(String.self, forKey: "accessKeyId"),
                secretAccessKey: try $0.decode(String.self, forKey: "secretAccessKey"),
                sessionToken: try $0.value("sessionToken")
            )
        }
        if let connections: Int = try file.value("databaseConnections") {
            guard connections >= 1 else {
                throw CommandFailure(
                    "databaseConnections in '\(path)' is \(connections); give at least 1 (16 is the default)."
                )
            }
            databaseConnections = connections
        }
        configuredModels = try file.object("models")?.allKeys.map(\.stringValue) ?? []
        let (strategy, perModel) = try Self.strategies(file, directory: directory)
        restAPIs = try Self.restAPIs(file.objects("rest") ?? [])
        limits = try Self.limits(file)
        let queryDepthLimit: Int? = try file.value("queryDepthLimit")
        let resolverCountLimit: Int? = try file.value("resolverCountLimit")
        let idempotencyKeyTTL = try Self.seconds(
            file,
            "idempotencyKeyTTLSeconds",
            hint: "86400, the default, keeps keys for 24 hours"
        )
        let functions = try Self.functions(
            file.object("functions"),
            directory: directory,
            region: try file.value("region") ?? "us-east-1"
        )
        lambdaAuthorizerFunction = try Self.lambdaAuthorizer(authorization, modes: modes, functions: functions)
        let conflictDetection: Bool = try file.value("conflictDetection") ?? true
        server = ServerConfiguration(
            conflictDetection: conflictDetection,
            conflictResolution: strategy,
            modelConflictResolution: perModel,
            queryDepthLimit: queryDepthLimit ?? 0,
            resolverCountLimit: resolverCountLimit ?? 10_000,
            idempotencyKeyTTL: idempotencyKeyTTL ?? .seconds(24 * 3600),
            environmentName: try file.value("environment"),
            functions: functions,
            resolvers: try Self.resolvers(file.object("resolvers"), functions: functions)
        )
        server.region = try file.value("region") ?? "us-east-1"
        server.httpOrigins = try Self.httpOrigins(file.value("httpOrigins"))
        let httpTimeoutHint = "10, the default, is how long an HTTP data source may take"
        if let timeout = try Self.seconds(file, "httpTimeoutSeconds", hint: httpTimeoutHint) {
            server.httpTimeout = timeout
        }
        if let ttl = try Self.seconds(file, "deltaSyncTTLSeconds", hint: "1800, the default, keeps 30 minutes") {
            server.deltaSyncTTL = ttl
        }
        if let ttl = try Self.seconds(file, "tombstoneTTLSeconds", hint: "2592000, the default, keeps 30 days") {
            server.tombstoneTTL = ttl
        }
        server.modelsWithoutConflictDetection = try Self.modelsWithoutConflictDetection(
            file,
            apiWide: conflictDetection
        )
        allowedHosts = try file.value("allowedHosts") ?? []
        (userPool, openIDConnect, localOpenIDConnect) = try Self.tokenAuthorization(
            authorization,
            modes: modes,
            region: region,
            relativeTo: directory
        )
        cognito = try file.object("auth").map { try AuthSettings.configuration($0, region: region) }
    }

    /// The number of seconds under `key` as a duration, when the file gives one: above 0 and
    /// finite, or the error names the key and the value, with `hint` (the default and what it
    /// means).
    private static func seconds(_ file: SettingsObject, _ key: SettingsField, hint: String? = nil) throws -> Duration? {
        guard let seconds: Double = try file.value(key) else { return nil }
        guard seconds > 0, seconds.isFinite else {
            throw CommandFailure(
                "\(key.stringValue) \(seconds) in the configuration file is out of range. Give a number of seconds "
                    + "above 0\(hint.map { " (\($0))" } ?? "")."
            )
        }
        return .milliseconds(Int((seconds * 1000).rounded()))
    }

    /// The function `authorization.lambdaAuthorizer` names, checked against `functions` and the
    /// modes: `AWS_LAMBDA` and the authorizer go together.
    private static func lambdaAuthorizer(
        _ authorization: SettingsObject?,
        modes: [Identity.AuthorizationMode],
        functions: [String: LocalFunction]
    ) throws -> String? {
        let example = #""lambdaAuthorizer": {"function": "authorizer-dev"}"#
        guard let object = try authorization?.object("lambdaAuthorizer") else {
            guard !modes.contains(.function) else {
                throw CommandFailure(
                    "AWS_LAMBDA is among the authorization modes of the configuration file, but nothing decides on "
                        + "its tokens. Add \(example) under authorization, with that function under functions."
                )
            }
            return nil
        }
        let name: String? = try object.value("function")
        guard let name else {
            throw CommandFailure(
                "authorization.lambdaAuthorizer in the configuration file needs a function: \(example)."
            )
        }
        guard functions[name] != nil else {
            let known = functions.keys.sorted()
            throw CommandFailure(
                "authorization.lambdaAuthorizer names the function '\(name)', which functions does not configure. "
                    + (known.isEmpty
                        ? "Add it under functions."
                        : "Add it under functions, or name one of: \(known.joined(separator: ", ")).")
            )
        }
        guard modes.contains(.function) else {
            throw CommandFailure(
                "authorization.lambdaAuthorizer is set, but AWS_LAMBDA is not among the authorization modes of the "
                    + #"configuration file. Add "AWS_LAMBDA" to additionalModes (or make it the defaultMode)."#
            )
        }
        return name
    }

    private static func modes(_ authorization: SettingsObject?) throws -> [Identity.AuthorizationMode] {
        let names =
            [try authorization?.value("defaultMode") ?? "API_KEY"]
            + (try authorization?.value("additionalModes", as: [String].self) ?? [])
        return try names.map { name in
            guard let mode = Identity.AuthorizationMode(rawValue: name) else {
                // NONE last, as the server has always listed them.
                let known = (Identity.AuthorizationMode.allCases.filter { $0 != .none } + [.none])
                    .map(\.rawValue).joined(separator: ", ")
                throw CommandFailure(
                    "Unknown authorization mode '\(name)' in the configuration file. Use one of: \(known)."
                )
            }
            return mode
        }
    }

    /// The conflict handling of every model and of each model that sets its own; handler
    /// commands run in `directory`.
    private static func strategies(
        _ file: SettingsObject,
        directory: URL
    ) throws -> (ConflictResolutionStrategy, [String: ConflictResolutionStrategy]) {
        func strategy(_ object: SettingsObject, scope: String) throws -> ConflictResolutionStrategy {
            let name: String? = try object.value("conflictResolution")
            if let handler = try object.object("conflictHandler") {
                let command = try handler.decode([String].self, forKey: "command")
                let timeoutSeconds: Double? = try handler.value("timeoutSeconds")
                guard name == nil || name == "LAMBDA" else {
                    throw CommandFailure(
                        "The configuration file sets both conflictResolution '\(name!)' and a conflictHandler\(scope). "
                            + "Remove one, or set conflictResolution to LAMBDA."
                    )
                }
                guard !command.isEmpty else {
                    throw CommandFailure(
                        "The conflictHandler\(scope) in the configuration file has an empty command. "
                            + #"Give the program and its arguments, like "command": ["python3", "resolve.py"]."#
                    )
                }
                let seconds = timeoutSeconds ?? 5
                guard seconds > 0, seconds.isFinite else {
                    throw CommandFailure(
                        "The conflictHandler\(scope) in the configuration file has timeoutSeconds \(seconds). "
                            + "Give a number of seconds above 0."
                    )
                }
                let handlerCommand = ConflictHandlerCommand(
                    arguments: command,
                    workingDirectory: directory,
                    timeout: .milliseconds(Int((seconds * 1000).rounded()))
                )
                return .custom(handlerCommand.handler)
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
        if let models = try file.object("models") {
            for key in models.allKeys {
                let model = try models.superDecoder(forKey: key).container(keyedBy: SettingsField.self)
                guard
                    try model.value("conflictResolution", as: String.self) != nil
                        || model.object("conflictHandler") != nil
                else { continue }
                perModel[key.stringValue] = try strategy(model, scope: " of model '\(key.stringValue)'")
            }
        }
        return (try strategy(file, scope: ""), perModel)
    }

    /// The models whose entry in `models` says `"conflictDetection": false`; one that says `true`
    /// in an API without conflict detection is refused, since the API-wide switch decides.
    private static func modelsWithoutConflictDetection(_ file: SettingsObject, apiWide: Bool) throws -> Set<String> {
        guard let models = try file.object("models") else { return [] }
        var without: Set<String> = []
        for key in models.allKeys {
            let model = try models.superDecoder(forKey: key).container(keyedBy: SettingsField.self)
            switch try model.value("conflictDetection", as: Bool.self) {
            case false?: without.insert(key.stringValue)
            case true? where !apiWide:
                throw CommandFailure(
                    "Model '\(key.stringValue)' turns conflictDetection on, but the configuration file turns it off "
                        + #"for the whole API. Remove "conflictDetection": false at the top, and set it false on "#
                        + "the models that should not have it."
                )
            default: break
            }
        }
        return without
    }

    /// The HTTP endpoint's limits, checked against the ranges they take.
    private static func limits(_ file: SettingsObject) throws -> ServerLimits {
        if let depth: Int = try file.value("queryDepthLimit"), !(0...75).contains(depth) {
            throw CommandFailure(
                "queryDepthLimit \(depth) in the configuration file is out of range. Give 1 to 75, or 0 for no limit "
                    + "of your own (requests nesting fields deeper than 75 levels are refused anyway)."
            )
        }
        if let count: Int = try file.value("resolverCountLimit"), !(1...10_000).contains(count) {
            throw CommandFailure(
                "resolverCountLimit \(count) in the configuration file is out of range. Give 1 to 10000."
            )
        }
        let maxConnectionsPerAddress: Int? = try file.value("maxConnectionsPerAddress")
        if let count = maxConnectionsPerAddress, count < 1 {
            throw CommandFailure(
                "maxConnectionsPerAddress \(count) in the configuration file is out of range. Give 1 or more."
            )
        }
        let maxConnections: Int? = try file.value("maxConnections")
        if let count = maxConnections, count < 1 {
            throw CommandFailure("maxConnections \(count) in the configuration file is out of range. Give 1 or more.")
        }
        func duration(_ key: SettingsField, default fallback: Duration) throws -> Duration {
            try seconds(file, key) ?? fallback
        }
        let defaults = ServerLimits()
        return ServerLimits(
            maxRequestBytes: try file.value("maxRequestBytes") ?? defaults.maxRequestBytes,
            executionTimeout: try duration("executionTimeoutSeconds", default: defaults.executionTimeout),
            requestHeadTimeout: try duration("requestHeadTimeoutSeconds", default: defaults.requestHeadTimeout),
            requestTimeout: try duration("requestTimeoutSeconds", default: defaults.requestTimeout),
            idleTimeout: try duration("idleTimeoutSeconds", default: defaults.idleTimeout),
            maxConnectionsPerAddress: maxConnectionsPerAddress ?? defaults.maxConnectionsPerAddress,
            maxConnections: maxConnections ?? defaults.maxConnections,
            shutdownTimeout: try duration("shutdownTimeoutSeconds", default: defaults.shutdownTimeout)
        )
    }

    /// The issuer of the local OpenID Connect provider's tokens when the file names none.
    static let localIssuer = "stratus-local"

    /// The user pool and OIDC provider of `authorization`, checked against the modes that need
    /// them; key files are found relative to `directory`.
    private static func tokenAuthorization(
        _ authorization: SettingsObject?,
        modes: [Identity.AuthorizationMode],
        region fileRegion: String?,
        relativeTo directory: URL
    ) throws -> (UserPoolAuthorization?, OIDCAuthorization?, local: Bool) {
        func source(_ object: SettingsObject, key: String) throws -> JWKSSource? {
            if let url: String = try object.value("jwksUrl") {
                guard let parsed = URL(string: url), parsed.scheme == "http" || parsed.scheme == "https" else {
                    throw CommandFailure("\(key).jwksUrl '\(url)' is not an http(s) URL.")
                }
                return .url(parsed)
            }
            if let file: String = try object.value("jwksFile") {
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
        func hasKeys(_ object: SettingsObject) -> Bool { object.contains("jwksUrl") || object.contains("jwksFile") }
        /// A client pattern is matched against whole client ids: one that does not compile would
        /// refuse every token.
        func pattern(_ object: SettingsObject, _ name: SettingsField, key: String) throws -> String? {
            guard let pattern: String = try object.value(name) else { return nil }
            do {
                _ = try NSRegularExpression(pattern: "^(?:\(pattern))$")
            } catch {
                throw CommandFailure(
                    "\(key) '\(pattern)' is not a regular expression: no token's client would match it. "
                        + "Fix the pattern, or remove it to accept every client."
                )
            }
            return pattern
        }
        var userPool: UserPoolAuthorization?
        if let pool = try authorization?.object("userPool") {
            let userPoolId = try pool.decode(String.self, forKey: "userPoolId")
            let region = try pool.value("region") ?? fileRegion ?? "us-east-1"
            let issuer: String? = try pool.value("issuer")
            if let issuer {
                try checkIssuer(issuer, hasKeys: hasKeys(pool), key: "authorization.userPool.issuer")
            } else {
                try checkIssuer(
                    "https://cognito-idp.\(region).amazonaws.com/\(userPoolId)",
                    hasKeys: hasKeys(pool),
                    key: "authorization.userPool.userPoolId gives the issuer"
                )
            }
            userPool = UserPoolAuthorization(
                userPoolId: userPoolId,
                region: region,
                appIdClientRegex: try pattern(pool, "appIdClientRegex", key: "authorization.userPool.appIdClientRegex"),
                issuer: issuer,
                jwks: try source(pool, key: "authorization.userPool")
            )
        }
        var provider: OIDCAuthorization?
        var local = false
        if let oidc = try authorization?.object("openIDConnect") {
            local = try oidc.value("local") ?? false
            if local, hasKeys(oidc) {
                throw CommandFailure(
                    "authorization.openIDConnect is local: its tokens are signed with the server's own key, so it "
                        + #"takes no jwksUrl or jwksFile. Remove them, or drop "local" to trust another provider."#
                )
            }
            let issuer: String
            if local {
                issuer = try oidc.value("issuer") ?? Self.localIssuer
            } else {
                issuer = try oidc.decode(String.self, forKey: "issuer")
                try checkIssuer(
                    issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer,
                    hasKeys: hasKeys(oidc),
                    key: "authorization.openIDConnect.issuer"
                )
            }
            let iatTTL: Double? = try oidc.value("iatTTL")
            let authTTL: Double? = try oidc.value("authTTL")
            provider = OIDCAuthorization(
                issuer: issuer,
                clientId: try pattern(oidc, "clientId", key: "authorization.openIDConnect.clientId"),
                issuedAtTTL: iatTTL.map { $0 / 1000 },
                authTTL: authTTL.map { $0 / 1000 },
                // The local provider's keys are the store's, which the backend puts here.
                jwks: local ? .json(#"{"keys":[]}"#) : try source(oidc, key: "authorization.openIDConnect")
            )
        } else if modes.contains(.openIDConnect) {
            throw CommandFailure(
                "OPENID_CONNECT needs authorization.openIDConnect with issuer (and clientId, jwksUrl or jwksFile) "
                    + #"in the configuration file, or {"local": true} for the server's own provider."#
            )
        }
        return (userPool, provider, local)
    }

    /// The REST APIs: routes to the echo handler (`"echo"`) or to a command
    /// (`{"command": [...], "timeoutSeconds": 29}`), run in the configuration's directory.
    private static func restAPIs(_ apis: [SettingsObject]) throws -> [RESTAPI] {
        try apis.map { api in
            let name = try api.decode(String.self, forKey: "name")
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                throw CommandFailure(
                    "The REST API name '\(name)' must be letters, digits, '-' or '_': it becomes the path /rest/<name>."
                )
            }
            return RESTAPI(
                name: name,
                routes: try api.requiredObjects("routes").map { try route($0, of: name) },
                cors: try api.value("cors") ?? true
            )
        }
    }

    private static func route(_ route: SettingsObject, of api: String) throws -> RESTRoute {
        let path = try route.decode(String.self, forKey: "path")
        guard path.hasPrefix("/") else {
            throw CommandFailure("The REST route '\(path)' of '\(api)' must start with '/'.")
        }
        let mode =
            try (route.value("authorization", as: String.self)).map { name in
                guard let mode = Identity.AuthorizationMode(rawValue: name), mode != .function else {
                    throw CommandFailure(
                        "Unknown REST authorization '\(name)' on \(path). "
                            + "Use NONE, API_KEY, AWS_IAM, AMAZON_COGNITO_USER_POOLS or OPENID_CONNECT."
                    )
                }
                return mode
            } ?? .none
        let methods = try (route.value("methods", as: [String].self) ?? ["ANY"]).map { name in
            guard let method = RESTMethod(named: name) else {
                throw CommandFailure(
                    "Unknown method '\(name)' on the REST route \(path) of '\(api)'. Use "
                        + RESTMethod.allCases.map(\.rawValue).joined(separator: ", ") + "."
                )
            }
            return method
        }
        return RESTRoute(path: path, methods: methods, authorization: mode, handler: try handler(route))
    }

    /// A route's handler: `"echo"` (the default), or `{"command": [...], "timeoutSeconds": 29}`.
    private static func handler(_ route: SettingsObject) throws -> RESTHandler {
        guard route.contains("handler"), try !route.decodeNil(forKey: "handler") else { return .echo }
        let name: String
        do {
            name = try route.decode(String.self, forKey: "handler")
        } catch DecodingError.typeMismatch {
            // Not a name: a command.
            let command = try route.superDecoder(forKey: "handler").container(keyedBy: SettingsField.self)
            let arguments = try command.decode([String].self, forKey: "command")
            guard !arguments.isEmpty else {
                throw CommandFailure("A REST handler's command is empty. Give the program and its arguments.")
            }
            let seconds: Double? = try command.value("timeoutSeconds")
            return .command(arguments, timeout: .milliseconds(Int((seconds ?? 29) * 1000)))
        }
        guard name == "echo" else {
            throw CommandFailure(
                "Unknown REST handler '\(name)'. Use \"echo\" or {\"command\": [\"program\", \"argument\"]}."
            )
        }
        return .echo
    }
}
