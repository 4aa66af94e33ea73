import ArgumentParser
import Foundation
import StratusCodegen
import StratusServer

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

    @Option(name: .long, help: "Where to write amplifyconfiguration.json and awsconfiguration.json.")
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

    func run() async throws {
        let annotated = try loadSchema(at: schema)
        let settings = try ServeSettings.load(path: config)
        let directory = URL(fileURLWithPath: dataDir, isDirectory: true)
        let location: PostgresLocation?
        do {
            location = try (database ?? settings.database).map { try PostgresLocation($0) }
        } catch {
            throw CommandFailure("\(error) Pass --database postgres://user@host:port/database.")
        }
        // Checked first, so that a server that cannot listen leaves nothing behind.
        if PortCheck.isInUse(host: host, port: port) { throw Self.portInUse(host: host, port: port) }
        if reset, let location {
            throw CommandFailure(
                "--reset deletes a data directory; the data is in the database \(location). Drop its tables "
                    + "yourself (or use another database) to start empty."
            )
        }
        if reset {
            do {
                try StratusServer.deleteData(in: directory)
            } catch {
                throw CommandFailure("Cannot reset the data directory '\(directory.path)': \(error)")
            }
        }

        // Checked before the data directory is written.
        let cognitoConfiguration = try settings.cognitoConfiguration(enabled: auth)
        var keys = location == nil ? try settings.apiKeys(defaultIn: directory) : settings.configuredAPIKeys
        let configDirectory = config.map { URL(filePath: $0).deletingLastPathComponent() } ?? URL(filePath: ".")
        let (userPool, openIDConnect) = try settings.tokenAuthorization(
            relativeTo: configDirectory,
            hasLocalPool: cognitoConfiguration != nil
        )
        let additionalModes: [Identity.AuthorizationMode] = {
            var modes = settings.additionalModes
            guard cognitoConfiguration != nil, settings.authorization?.additionalModes == nil else { return modes }
            for mode in [Identity.AuthorizationMode.amazonCognitoUserPools, .awsIAM]
            where mode != settings.defaultMode && !modes.contains(mode) {
                modes.append(mode)
            }
            return modes
        }()
        let server: StratusServer
        let serverConfiguration = settings.serverConfiguration(
            directory: config.map { URL(fileURLWithPath: $0).deletingLastPathComponent() }
        )
        do {
            if let location {
                server = try await StratusServer(
                    schema: annotated,
                    configuration: serverConfiguration,
                    database: location,
                    connections: settings.databaseConnections ?? 16
                )
            } else {
                server = try StratusServer(
                    schema: annotated,
                    configuration: serverConfiguration,
                    dataDirectory: directory
                )
            }
        } catch {
            let place = location.map { "the database \($0)" } ?? "'\(directory.path)'"
            let refused = error.refusedSchemaChanges
            guard refused.isEmpty else {
                let remedy =
                    location == nil
                    ? "pass --data-dir with another directory, or run with --reset to delete the data directory "
                        + "(every item, tombstone and the sync journal) and start empty."
                    : "or pass --database with another database."
                throw CommandFailure(
                    "The schema changed in ways the data in \(place) cannot follow without losing data:\n"
                        + refused.map { "  - \($0)\n" }.joined()
                        + "Its data is kept. Undo these changes, " + remedy
                )
            }
            throw CommandFailure("Cannot open \(location == nil ? "the data directory " : "")\(place): \(error)")
        }
        for change in server.appliedSchemaChanges {
            print("Migrated \(server.storeDescription): \(change)")
        }
        for warning in server.api.warnings {
            print(warning)
        }
        if keys.isEmpty {
            // Servers sharing a database share the key the first of them generated.
            do {
                keys = [APIKey(value: try await server.sharedSetting("apiKey", proposing: ServeSettings.newAPIKey()))]
            } catch {
                try? server.close()
                throw CommandFailure("Cannot read or store the API key in \(server.storeDescription): \(error)")
            }
        }
        let apiKeys = keys
        let authorization = ServerAuthorization(
            defaultMode: settings.defaultMode,
            additionalModes: additionalModes,
            apiKeys: apiKeys,
            iamCredentials: settings.iamCredentials,
            region: settings.region ?? "us-east-1",
            userPool: userPool,
            openIDConnect: openIDConnect
        )
        var pool: CognitoUserPool?
        do {
            if let cognitoConfiguration {
                pool = try await CognitoUserPool(
                    configuration: cognitoConfiguration,
                    store: server.cognitoStore(),
                    log: { message in
                        print(message)
                        fflush(nil)
                    }
                )
            }
        } catch {
            try? server.close()
            throw CommandFailure("Cannot start the local Cognito: \(error)")
        }
        let cognito = pool
        let limits = try settings.limits()
        let restAPIs = try settings.restAPIs()
        let http = StratusHTTPServer(
            server: server,
            authorization: authorization,
            limits: limits,
            restAPIs: restAPIs,
            cognito: cognito,
            allowedHosts: allowedHosts + (settings.allowedHosts ?? [])
        )
        let host = host
        let outputDirectory = URL(fileURLWithPath: configOutput, isDirectory: true)
        let defaultMode = settings.defaultMode
        let region = settings.region ?? "us-east-1"
        do {
            try await http.run(host: host, port: port, stopsOnSignals: true) { port in
                let endpoint = URL(string: "http://\(host):\(port)/graphql")!
                var files = ClientConfigurationFiles(
                    endpoint: endpoint,
                    region: region,
                    authorizationMode: defaultMode,
                    apiKey: defaultMode == .apiKey ? apiKeys.first?.value : nil
                )
                files.restAPIs = restAPIs.map { ClientConfigurationFiles.RESTAPIEntry($0, graphQLEndpoint: endpoint) }
                files.additionalModes = additionalModes
                files.additionalAPIKey = additionalModes.contains(.apiKey) ? apiKeys.first?.value : nil
                if let cognito {
                    files.cognito = ClientConfigurationFiles.CognitoEntry(
                        cognito,
                        endpoint: URL(string: cognito.servedOrigin)!
                    )
                }
                do {
                    try files.write(to: outputDirectory)
                } catch {
                    print("Could not write the client configuration files into \(outputDirectory.path): \(error)")
                }
                print("GraphQL endpoint: \(endpoint.absoluteString)")
                print("Real-time endpoint: ws://\(host):\(port)/graphql/realtime")
                for api in restAPIs { print("REST API \(api.name): \(api.endpoint(besides: endpoint).absoluteString)") }
                if let key = apiKeys.first { print("API key: \(key.value)") }
                if let cognito {
                    let pool = cognito.configuration
                    print(
                        "Cognito user pool: \(pool.userPoolId) at \(cognito.servedOrigin)/ (issuer \(cognito.issuer))"
                    )
                    print("Cognito app clients: \(pool.clients.map(\.clientId).joined(separator: ", "))")
                    if let identityPool = pool.identityPoolId { print("Cognito identity pool: \(identityPool)") }
                    if authorization.iamCredentials.isEmpty {
                        // Without IAM credentials of its own, the pool's administrator signs with these.
                        let admin = cognito.administratorCredentials
                        print("Cognito administrator credentials: \(admin.accessKeyId) \(admin.secretAccessKey)")
                        print(
                            "  Sign AdminCreateUser, ListUsers and the other administrator calls with them: "
                                + "boto3.client(\"cognito-idp\", endpoint_url=\"\(cognito.servedOrigin)\", "
                                + "region_name=\"\(pool.region)\", aws_access_key_id=\"\(admin.accessKeyId)\", "
                                + "aws_secret_access_key=\"\(admin.secretAccessKey)\")"
                        )
                    } else {
                        print("Cognito administrator calls: signed with the configured IAM credentials")
                    }
                }
                print("Data: \(server.storeDescription)")
                print("Wrote amplifyconfiguration.json and awsconfiguration.json to \(outputDirectory.path)")
                fflush(nil)
            }
        } catch {
            let text = "\(error)"
            if text.contains("Address already in use") || text.contains("EADDRINUSE") || text.contains("errno: 98") {
                throw Self.portInUse(host: host, port: port)
            }
            throw error
        }
        try server.close()
        print("Stopped. The data stays in \(server.storeDescription).")
    }

    private static func portInUse(host: String, port: Int) -> CommandFailure {
        CommandFailure(
            "Port \(port) on \(host) is in use. Stop the other server or pass --port with a free port (0 picks one)."
        )
    }
}
