import ArgumentParser
import Foundation
import Logging
import StratusBackend
import StratusCodegen
import StratusCognito
import StratusServer
import Synchronization

/// `stratus serve`: the local AppSync-compatible backend.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve an AppSync-compatible GraphQL API for an annotated schema, on an embedded SQLite store.",
        discussion: """
            Prints the endpoint, the API key and where the data lives, and writes amplifyconfiguration.json and \
            awsconfiguration.json for clients into the working directory.

            The data directory follows additive schema changes in place, keeping its data: new models, new \
            optional fields or fields with @default, new indexes, new enum values. A change that would lose \
            data (a removed model or field, a changed field type or primary key, a new required field without \
            @default, a removed enum value) is refused with the list of changes; --reset deletes the data and \
            starts empty.

            A conflictHandler command in the --config file decides conflicts like an AppSync Lambda \
            conflict handler. It runs in the configuration file's directory, reads one JSON document on stdin \
            ({"typeName", "resolver", "newItem", "existingItem", "arguments", "identity"}) and writes one on \
            stdout: {"action":"RESOLVE","resolvedItem":{...}}, {"action":"REJECT"} or {"action":"REMOVE"}. \
            A command that times out (5 seconds unless timeoutSeconds says otherwise), exits with a non-zero \
            status or answers anything else fails the write with ConflictUnhandled, and nothing is written.

            A mutation sent with an Idempotency-Key header runs once: its response is kept in the data \
            directory (idempotencyKeyTTLSeconds in the --config file, 24 hours by default) and answered \
            again to a repeat with the same key and body; the same key with another body gets 422, and a \
            repeat while the first is still running gets 409.

            Deleted items stay as tombstones for tombstoneTTLSeconds (30 days by default), and sync \
            queries read the delta journal for deltaSyncTTLSeconds (30 minutes) before answering with \
            a full base scan.
            """
    )

    @Option(name: .long, help: "The annotated GraphQL schema.")
    var schema: String = "schema.graphql"

    @Option(name: .long, help: "The port to listen on (0 picks a free one).")
    var port: Int = 20002

    @Option(name: .long, help: "The address to listen on.")
    var host: String = "127.0.0.1"

    @Option(
        name: .customLong("allowed-host"),
        help: """
            A name clients reach the server by, besides IP addresses, localhost, --host and the machine's name \
            (the name a load balancer or a DNS record gives it); repeat it for several, or give * for any. \
            Requests whose Host header names another are refused (421), as a page of another site would send \
            them (also "allowedHosts" in the --config file).
            """
    )
    var allowedHosts: [String] = []

    @Option(name: .long, help: "Where the database lives; it survives restarts.")
    var dataDir: String = ".stratus"

    @Option(
        name: .long,
        help: """
            Keep the data in a PostgreSQL database instead of --data-dir: postgres://user[:password]@host[:port]/db \
            (also "database" in the --config file). Several servers may share it behind a load balancer: each \
            server's subscriptions hear every server's writes.
            """
    )
    var database: String?

    @Option(
        name: .long,
        help: """
            With --database, how many seconds the start waits for PostgreSQL to accept connections while it \
            starts or restarts (0 fails at once). A wrong password or a missing database fails at once.
            """
    )
    var databaseWait: Double = 30

    @Option(
        name: .long,
        help: """
            A JSON file with authorization modes, API keys, IAM credentials and conflict handling \
            (conflictResolution AUTOMERGE, OPTIMISTIC_CONCURRENCY or LAMBDA, for all models or under \
            "models": {"Post": {...}}; a LAMBDA handler is a command: "conflictHandler": {"command": \
            ["python3", "resolve.py"], "timeoutSeconds": 5}).
            """
    )
    var config: String?

    @Flag(
        name: .long,
        help: """
            Delete the data directory first, with every item, tombstone and the sync journal \
            (needed after a schema change that would lose stored data).
            """
    )
    var reset = false

    @Flag(
        name: .long,
        help: """
            With --reset, make a new API key too; without it, --reset keeps the data directory's key, so that \
            running clients keep working.
            """
    )
    var newAPIKey = false

    @Option(
        name: .long,
        help: "Where to write amplifyconfiguration.json, amplify_outputs.json and awsconfiguration.json."
    )
    var configOutput: String = "."

    @Flag(
        name: .long,
        help: """
            Serve a local Cognito user pool and identity pool on the same port (also on when the --config \
            file has an "auth" block), trusted by the API: AMAZON_COGNITO_USER_POOLS and AWS_IAM become \
            additional modes unless the --config file lists additionalModes. Confirmation codes are printed.
            """
    )
    var auth = false

    @Flag(
        name: .long,
        help: """
            Reload the schema when the --schema file (or the --config file) changes, without a restart: the \
            port and the real-time connections stay, open subscriptions keep hearing writes, and the client \
            configuration files are written again. A schema that does not parse or a change that would lose \
            data is reported and the previous schema keeps serving. Needs a data directory (not --database).
            """
    )
    var watch = false

    @Flag(
        inversion: .prefixedNo,
        help: """
            Print a line per request: method, path, operation type and name, authorization mode, status and \
            duration (on by default when standard output is a terminal).
            """
    )
    var logRequests: Bool?

    @Flag(
        inversion: .prefixedNo,
        help: """
            Serve /metrics in Prometheus's text format: requests by operation, status and authorization mode, \
            latency, real-time connections, subscriptions and deliveries, idempotent replays and conflicts.
            """
    )
    var metrics = true

    @Option(
        name: .long,
        help: """
            How log lines are written: text, or json (one object per line with time, level and subsystem; a \
            request's line has its id, which the response's x-amzn-RequestId header carries too).
            """
    )
    var logFormat: LogFormat = .text

    @Option(
        name: .long,
        help: """
            The least level of the lines written (trace, debug, info, notice, warning, error, critical), for every \
            subsystem or as SUBSYSTEM=LEVEL, comma-separated: warning,functions=debug. The subsystems: serve, \
            server, http, cognito, functions, postgres, journal (debug: each event a PostgreSQL server read \
            from the shared journal, in delivery order), requests.
            """,
        transform: { text in
            do {
                return try LogLevels(parsing: text)
            } catch {
                throw ValidationError("\(error)")
            }
        }
    )
    var logLevel: LogLevels = LogLevels()

    @Option(
        name: .long,
        help: """
            The bearer token a scrape of /metrics must send (also STRATUS_METRICS_TOKEN). Listening beyond the \
            loopback interface without one, the server makes one and prints it.
            """
    )
    var metricsToken: String?

    @Option(
        name: .long,
        help: """
            Export a trace span per request over OTLP/HTTP to the collector at this base URL, such as \
            http://127.0.0.1:4318 (spans go to its /v1/traces), with service name stratus. Also \
            OTEL_EXPORTER_OTLP_ENDPOINT, which wins when both are set. Off without either.
            """
    )
    var otlpEndpoint: String?

    @Flag(
        inversion: .prefixedNo,
        help: """
            Serve the Stratus Console at /console: run queries and mutations as the API key or a local Cognito \
            user, and read and edit each model's items through the API. It answers only with the admin secret, \
            which the printed Console URL carries once.
            """
    )
    var console = true

    @Option(
        name: .long,
        help: """
            The console's admin secret. Without it, the data directory keeps one (its console-secret file), \
            made on first use; with --database, the database does.
            """
    )
    var consoleSecret: String?

    func validate() throws {
        if consoleSecret != nil && !console {
            throw ValidationError(
                "--console-secret sets the secret of the console that --no-console turns off. Drop one."
            )
        }
        guard (0...65535).contains(port) else {
            throw ValidationError("--port \(port) is not a port. Give 1 to 65535, or 0 to pick a free one.")
        }
    }

    func run() async throws {
        outputFormat.withLock { $0 = logFormat }
        LogLevels.current = logLevel
        let format = logFormat
        LoggingSystem.bootstrap { label in ServerLogHandler(label: label, format: format) }
        // Read before the schema is, so that an edit made while the server starts is reloaded.
        let watchedFiles =
            watch ? WatchedFiles(([schema] + (config.map { [$0] } ?? [])).map { URL(fileURLWithPath: $0) }) : nil
        let annotated = try loadSchema(at: schema)
        let settings = try ServeSettings.load(path: config)
        let tracing = try tracing()
        try settings.checkUserPoolMode(hasLocalPool: settings.cognitoConfiguration(enabled: auth) != nil)
        try settings.checkModels(of: annotated)
        do {
            try StratusServer.checkResolvers(of: annotated, configuration: settings.server)
        } catch {
            throw CommandFailure(error.description)
        }
        if annotated.models.isEmpty && annotated.operations.isEmpty {
            throw CommandFailure(
                "The schema at '\(schema)' declares no @model type and no Query or Mutation field, so there is no "
                    + "API to serve. Add a model, such as: type Todo @model { id: ID! name: String! }"
            )
        }
        let outputDirectory = URL(fileURLWithPath: configOutput, isDirectory: true)
        if let problem = Self.problem(ofDirectory: outputDirectory, creating: false) {
            throw CommandFailure(
                "Cannot write amplifyconfiguration.json, amplify_outputs.json and awsconfiguration.json into '\(configOutput)': \(problem). "
                    + "Pass --config-output with an existing directory."
            )
        }
        let directory = URL(fileURLWithPath: dataDir, isDirectory: true)
        guard databaseWait >= 0, databaseWait.isFinite else {
            throw CommandFailure("--database-wait takes a number of seconds, 0 or more, not \(databaseWait).")
        }
        var location = try settings.databaseLocation(override: database)
        location?.startupWait = .milliseconds(Int(databaseWait * 1000))
        if location == nil, let problem = Self.problem(ofDirectory: directory, creating: true) {
            throw CommandFailure(
                "Cannot use the data directory '\(dataDir)': \(problem). Pass --data-dir with a directory you can "
                    + "write to (it is created when missing)."
            )
        }
        // Checked first, so that a server that cannot listen leaves nothing behind.
        if PortCheck.isInUse(host: host, port: port) { throw Self.portInUse(host: host, port: port) }
        if watch, let location {
            throw CommandFailure(
                "--watch reloads the schema on a data directory; the data is in the database \(location), which "
                    + "other servers may share with the schema they were started with. Drop --watch and restart "
                    + "the servers to serve a changed schema."
            )
        }
        if reset, let location {
            throw CommandFailure(
                "--reset deletes a data directory; the data is in the database \(location). Drop its tables "
                    + "yourself (or use another database) to start empty."
            )
        }
        if newAPIKey && !reset {
            throw CommandFailure(
                "--new-api-key makes a new key when --reset deletes the data. To change the key and keep the data, "
                    + "stop the server and delete '\(directory.appending(path: "api-key").path)'."
            )
        }
        if reset {
            let keptKey: Bool
            do {
                keptKey = try Backend.deleteData(in: directory, keepingAPIKey: !newAPIKey)
            } catch {
                throw CommandFailure("Cannot reset the data directory '\(directory.path)': \(error)")
            }
            print(
                "Deleted the data in '\(directory.path)'"
                    + (keptKey ? "; the API key is kept (--new-api-key makes a new one)." : ".")
            )
        }
        let store = location.map { Backend.Store.database($0, connections: settings.databaseConnections) }
        let backend = try await Self.open(
            backendConfiguration(
                settings,
                schema: annotated,
                store: store ?? .dataDirectory(directory),
                tracing: tracing
            ),
            place: location.map { "the database \($0)" } ?? "'\(directory.path)'",
            isDatabase: location != nil
        )
        if let cognito = backend.configuration.cognito {
            // Rules that trust what users write into their own attributes.
            for warning in AuthSettings.selfGrantedClaimWarnings(schema: annotated, configuration: cognito) {
                print(warning)
            }
        }
        let host = host
        let steps = NextSteps(
            schema: annotated,
            schemaPath: schema,
            usersOptions: (dataDir == ".stratus" ? [] : ["--data-dir", dataDir])
                + (database.map { ["--database", $0] } ?? []) + (config.map { ["--config", $0] } ?? []),
            outputDirectory: outputDirectory
        )
        // Stopped before the store closes, so that no reload runs after.
        let watching = Mutex<Task<Void, Never>?>(nil)
        let stopWatching = {
            let task = watching.withLock { $0 }
            task?.cancel()
            await task?.value
        }
        do {
            try await backend.run(host: host, port: port, stopsOnSignals: true) { [self] port in
                Self.announce(backend, host: host, port: port, writingTo: outputDirectory)
                // For a person at a terminal; a log collector has the lines above.
                if logFormat == .text {
                    steps.print(for: backend, endpoint: URL(string: "http://\(host):\(port)/graphql")!)
                }
                fflush(nil)
                if let watchedFiles {
                    let endpoint = URL(string: "http://\(host):\(port)/graphql")!
                    watching.withLock {
                        $0 = Task { await watch(watchedFiles, of: backend, endpoint: endpoint) }
                    }
                }
            }
        } catch {
            await stopWatching()
            let text = "\(error)"
            if text.contains("Address already in use") || text.contains("EADDRINUSE") || text.contains("errno: 98") {
                throw Self.portInUse(host: host, port: port)
            }
            throw error
        }
        await stopWatching()
        try backend.close()
        print("Stopped. The data stays in \(backend.server.storeDescription).")
    }

    /// The backend the command line and the `--config` file describe, on `store`.
    private func backendConfiguration(
        _ settings: ServeSettings,
        schema: AnnotatedSchema,
        store: Backend.Store,
        tracing: ServerTracing?
    ) -> Backend.Configuration {
        let cognito = settings.cognitoConfiguration(enabled: auth)
        let logsRequests = logRequests ?? (isatty(STDOUT_FILENO) == 1)
        var configuration = Backend.Configuration(
            schema: schema,
            store: store,
            server: settings.server,
            authorization: ServerAuthorization(
                defaultMode: settings.defaultMode,
                additionalModes: settings.additionalModes(withLocalPool: cognito != nil),
                apiKeys: settings.apiKeys,
                iamCredentials: settings.iamCredentials,
                region: settings.region ?? "us-east-1",
                userPool: settings.userPool,
                openIDConnect: settings.openIDConnect,
                lambdaAuthorizerFunction: settings.lambdaAuthorizerFunction
            ),
            usesStoredAPIKey: true,
            cognito: cognito,
            limits: settings.limits,
            restAPIs: settings.restAPIs,
            allowedHosts: allowedHosts + settings.allowedHosts,
            log: Self.standardError(subsystem: "server", format: logFormat),
            httpLog: Self.standardError(subsystem: "http", format: logFormat),
            requestLog: logsRequests && logLevel.writes(.info, from: "requests") ? Self.printLine : nil,
            metrics: metricsEndpoint(),
            requestLogFormat: logFormat,
            tracing: tracing,
            cognitoLog: { message in
                print(message, subsystem: "cognito")
                fflush(nil)
            },
            notice: { print($0) },
            console: console ? Backend.ConsoleSettings(secret: consoleSecret) : nil
        )
        configuration.localOpenIDConnect = settings.localOpenIDConnect
        return configuration
    }

    /// The OTLP exporter of `--otlp-endpoint`, or of `OTEL_EXPORTER_OTLP_ENDPOINT` (or
    /// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) without it; `nil` (no spans) without either.
    private func tracing() throws -> ServerTracing? {
        let environment = ProcessInfo.processInfo.environment
        guard
            otlpEndpoint != nil || environment["OTEL_EXPORTER_OTLP_ENDPOINT"] != nil
                || environment["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] != nil
        else { return nil }
        do {
            return try ServerTracing.otlp(endpoint: otlpEndpoint)
        } catch {
            throw CommandFailure(error.description)
        }
    }

    /// `/metrics` unless `--no-metrics`: with the token given, or, listening beyond the loopback
    /// interface without one, a new random token.
    private func metricsEndpoint() -> MetricsEndpoint? {
        guard metrics else { return nil }
        var token = metricsToken ?? ProcessInfo.processInfo.environment["STRATUS_METRICS_TOKEN"]
        if token == nil, !AllowedHosts.isLoopback(host: host) {
            var generator = SystemRandomNumberGenerator()
            token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        }
        return MetricsEndpoint(token: token)
    }

    /// Reloads the schema of `backend`, served at `endpoint`, whenever the `--schema` or `--config`
    /// file changes, until the task is cancelled: prints a line per outcome and writes the
    /// clients' configuration files again after each reload.
    private func watch(_ files: WatchedFiles, of backend: Backend, endpoint: URL) async {
        let (schemaPath, configPath) = (schema, config)
        let outputDirectory = URL(fileURLWithPath: configOutput, isDirectory: true)
        let schemaName = URL(fileURLWithPath: schemaPath).lastPathComponent
        await backend.watch(
            files,
            load: {
                let annotated = try loadSchema(at: schemaPath)
                let settings = try ServeSettings.load(path: configPath)
                try settings.checkModels(of: annotated)
                if annotated.models.isEmpty && annotated.operations.isEmpty {
                    throw CommandFailure(
                        "The schema declares no @model type and no Query or Mutation field, so there is no API to serve."
                    )
                }
                return (annotated, settings.server)
            },
            report: { outcome in
                switch outcome {
                case .success(let changes):
                    let summary =
                        changes.isEmpty ? "no stored shape changed" : changes.map(\.description).joined(separator: ", ")
                    print("Reloaded \(schemaName): \(summary)")
                    do {
                        try backend.clientConfiguration(endpoint: endpoint).write(to: outputDirectory)
                    } catch {
                        print(
                            "Could not write amplifyconfiguration.json, amplify_outputs.json and awsconfiguration.json into "
                                + "\(outputDirectory.path): \(Self.reason(error))."
                        )
                    }
                case .failure(let error):
                    print(Self.reloadFailure(error, schemaName: schemaName))
                }
                fflush(nil)
            }
        )
    }

    /// What people read when a changed schema is not served: why, and that the previous one is.
    static func reloadFailure(_ error: any Error, schemaName: String) -> String {
        if case .store(let serverError) = error as? BackendError, !serverError.refusedSchemaChanges.isEmpty {
            return "Not reloaded \(schemaName): the change would lose stored data:\n"
                + serverError.refusedSchemaChanges.map { "  - \($0)\n" }.joined()
                + "The previous schema keeps serving and the data is kept. Undo these changes, or restart with "
                + "--reset to delete the data and start empty."
        }
        return "Not reloaded \(schemaName): \(error). The previous schema keeps serving."
    }

    /// The backend of `configuration`, opened; `place` names its store for people.
    ///
    /// - Throws: ``CommandFailure`` saying what could not be opened and what to do.
    private static func open(
        _ configuration: Backend.Configuration,
        place: String,
        isDatabase: Bool
    ) async throws -> Backend {
        do {
            return try await Backend.open(configuration)
        } catch .store(let error) {
            let refused = error.refusedSchemaChanges
            guard refused.isEmpty else {
                let remedy =
                    isDatabase
                    ? "or pass --database with another database."
                    : "pass --data-dir with another directory, or run with --reset to delete the data directory "
                        + "(every item, tombstone and the sync journal) and start empty."
                throw CommandFailure(
                    "The schema changed in ways the data in \(place) cannot follow without losing data:\n"
                        + refused.map { "  - \($0)\n" }.joined()
                        + "Its data is kept. Undo these changes, " + remedy
                )
            }
            throw CommandFailure("Cannot open \(isDatabase ? "" : "the data directory ")\(place): \(error)")
        } catch {
            throw CommandFailure(error.description)
        }
    }

    /// Writes the clients' configuration files into `outputDirectory` and prints where the
    /// backend listens and how to reach it, once it listens on `port`.
    private static func announce(_ backend: Backend, host: String, port: Int, writingTo outputDirectory: URL) {
        let endpoint = URL(string: "http://\(host):\(port)/graphql")!
        var written = true
        do {
            try backend.clientConfiguration(endpoint: endpoint).write(to: outputDirectory)
        } catch {
            written = false
            print(
                "Could not write amplifyconfiguration.json, amplify_outputs.json and awsconfiguration.json into \(outputDirectory.path): "
                    + "\(Self.reason(error)). Clients need them: pass --config-output with a directory you can "
                    + "write to. The server runs meanwhile."
            )
        }
        print("GraphQL endpoint: \(endpoint.absoluteString)")
        print("Real-time endpoint: ws://\(host):\(port)/graphql/realtime")
        for api in backend.configuration.restAPIs {
            print("REST API \(api.name): \(api.endpoint(besides: endpoint).absoluteString)")
        }
        if let key = backend.authorization.apiKeys.first { print("API key: \(key.value)") }
        if let metrics = backend.configuration.metrics {
            print("Metrics (Prometheus): http://\(host):\(port)/metrics")
            if let token = metrics.token { print("Metrics token (Authorization: Bearer): \(token)") }
        }
        let reachable = host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host
        if let console = backend.consoleURL(origin: "http://\(reachable):\(port)") { print("Console: \(console)") }
        if let collector = backend.configuration.tracing?.collector {
            print("Traces (OTLP/HTTP): \(collector)")
        }
        if let cognito = backend.cognito {
            announce(cognito, signingWithOwnCredentials: backend.authorization.iamCredentials.isEmpty)
        }
        print("Data: \(backend.server.storeDescription)")
        if written {
            print(
                "Wrote amplifyconfiguration.json, amplify_outputs.json and awsconfiguration.json to "
                    + outputDirectory.path
            )
        }
        fflush(nil)
    }

    /// Prints where the local Cognito answers, its clients, and how administrators sign.
    private static func announce(_ cognito: CognitoUserPool, signingWithOwnCredentials: Bool) {
        let pool = cognito.configuration
        print("Cognito user pool: \(pool.userPoolId) at \(cognito.servedOrigin)/ (issuer \(cognito.issuer))")
        print("Cognito app clients: \(pool.clients.map(\.clientId).joined(separator: ", "))")
        if let identityPool = pool.identityPoolId { print("Cognito identity pool: \(identityPool)") }
        guard signingWithOwnCredentials else {
            print("Cognito administrator calls: signed with the configured IAM credentials")
            return
        }
        // Without IAM credentials of its own, the pool's administrator signs with these.
        let admin = cognito.administratorCredentials
        print("Cognito administrator credentials: \(admin.accessKeyId) \(admin.secretAccessKey)")
        print(
            "  Sign AdminCreateUser, ListUsers and the other administrator calls with them: "
                + "boto3.client(\"cognito-idp\", endpoint_url=\"\(cognito.servedOrigin)\", "
                + "region_name=\"\(pool.region)\", aws_access_key_id=\"\(admin.accessKeyId)\", "
                + "aws_secret_access_key=\"\(admin.secretAccessKey)\")"
        )
    }

    /// Why `directory` cannot be written into, or `nil` when it can; with `creating`, a missing
    /// directory is fine when its nearest existing ancestor is a writable directory.
    static func problem(ofDirectory directory: URL, creating: Bool) -> String? {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        var existing = directory.standardizedFileURL
        while !files.fileExists(atPath: existing.path, isDirectory: &isDirectory) {
            guard creating else { return "it does not exist" }
            let parent = existing.deletingLastPathComponent()
            if parent.path == existing.path { return "no part of its path exists" }
            existing = parent
        }
        let which = existing.path == directory.standardizedFileURL.path ? "it" : "'\(existing.path)'"
        guard isDirectory.boolValue else {
            return which == "it" ? "it is a file, not a directory" : "\(which) is a file, not a directory"
        }
        guard files.isWritableFile(atPath: existing.path) else {
            return which == "it" ? "it is not writable" : "\(which) is not writable"
        }
        return nil
    }

    /// Prints `line` at once, as a request's log line is printed.
    private static let printLine: @Sendable (String) -> Void = { line in
        Swift.print(line)
        fflush(nil)
    }

    /// Writes failures to standard error, in `format`, from `subsystem`.
    private static func standardError(subsystem: String, format: LogFormat) -> @Sendable (String) -> Void {
        { message in
            guard LogLevels.current.writes(.error, from: subsystem) else { return }
            FileHandle.standardError.write(
                Data((format.line(message, level: "error", subsystem: subsystem) + "\n").utf8)
            )
        }
    }

    /// A file system failure in a sentence, without Foundation's dump of its user info.
    static func reason(_ error: any Error) -> String {
        let error = error as NSError
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return error.localizedDescription
    }

    private static func portInUse(host: String, port: Int) -> CommandFailure {
        CommandFailure(
            "Port \(port) on \(host) is in use. Stop the other server or pass --port with a free port (0 picks one)."
        )
    }
}

extension LogFormat: ExpressibleByArgument {}

/// How `serve` writes its own lines (`--log-format`), set once before it starts.
private let outputFormat = Mutex(LogFormat.text)

/// Prints `message` on standard output in `--log-format`'s form, from `subsystem`.
private func print(_ message: String, subsystem: String = "serve") {
    guard LogLevels.current.writes(.info, from: subsystem) else { return }
    Swift.print(outputFormat.withLock { $0 }.line(message, level: "info", subsystem: subsystem))
}
