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
            """
    )

    @Option(name: .long, help: "The annotated GraphQL schema.")
    var schema: String = "schema.graphql"

    @Option(name: .long, help: "The port to listen on (0 picks a free one).")
    var port: Int = 20002

    @Option(name: .long, help: "The address to listen on.")
    var host: String = "127.0.0.1"

    @Option(name: .long, help: "Where the database lives; it survives restarts.")
    var dataDir: String = ".stratus"

    @Option(name: .long, help: "A JSON file with authorization modes, API keys, IAM credentials and conflict handling.")
    var config: String?

    @Flag(name: .long, help: "Delete the data directory first (needed after a change to the stored shape).")
    var reset = false

    @Option(name: .long, help: "Where to write amplifyconfiguration.json and awsconfiguration.json.")
    var configOutput: String = "."

    func run() async throws {
        let annotated = try loadSchema(at: schema)
        let settings = try ServeSettings.load(path: config)
        let directory = URL(fileURLWithPath: dataDir, isDirectory: true)
        if reset { try? FileManager.default.removeItem(at: directory) }
        try checkSchemaVersion(annotated, in: directory)

        let apiKeys = try settings.apiKeys(defaultIn: directory)
        let configDirectory = config.map { URL(filePath: $0).deletingLastPathComponent() } ?? URL(filePath: ".")
        let (userPool, openIDConnect) = try settings.tokenAuthorization(relativeTo: configDirectory)
        let authorization = ServerAuthorization(
            defaultMode: settings.defaultMode,
            additionalModes: settings.additionalModes,
            apiKeys: apiKeys,
            iamCredentials: settings.iamCredentials,
            region: settings.region ?? "us-east-1",
            userPool: userPool,
            openIDConnect: openIDConnect
        )
        let server: StratusServer
        do {
            server = try StratusServer(
                schema: annotated,
                configuration: settings.serverConfiguration,
                dataDirectory: directory
            )
        } catch {
            throw CommandFailure(message: "Cannot open the data directory '\(directory.path)': \(error)")
        }
        let limits = ServerLimits(maxRequestBytes: settings.maxRequestBytes ?? 1_048_576)
        let restAPIs = try settings.restAPIs()
        let http = StratusHTTPServer(server: server, authorization: authorization, limits: limits, restAPIs: restAPIs)
        let host = host
        let outputDirectory = URL(fileURLWithPath: configOutput, isDirectory: true)
        let defaultMode = settings.defaultMode
        let region = settings.region ?? "us-east-1"
        do {
            try await http.run(host: host, port: port) { port in
                let endpoint = URL(string: "http://\(host):\(port)/graphql")!
                var files = ClientConfigurationFiles(
                    endpoint: endpoint,
                    region: region,
                    authorizationMode: defaultMode,
                    apiKey: defaultMode == .apiKey ? apiKeys.first?.value : nil
                )
                files.restAPIs = restAPIs.map { api in
                    ClientConfigurationFiles.RESTAPIEntry(
                        name: api.name,
                        endpoint: URL(string: "http://\(host):\(port)/rest/\(api.name)")!,
                        authorizationMode: api.routes.first?.authorization ?? .none
                    )
                }
                do {
                    try files.write(to: outputDirectory)
                } catch {
                    print("Could not write the client configuration files into \(outputDirectory.path): \(error)")
                }
                print("GraphQL endpoint: \(endpoint.absoluteString)")
                for api in restAPIs { print("REST API \(api.name): http://\(host):\(port)/rest/\(api.name)") }
                if let key = apiKeys.first { print("API key: \(key.value)") }
                print("Data: \(directory.path)")
                print("Wrote amplifyconfiguration.json and awsconfiguration.json to \(outputDirectory.path)")
                fflush(nil)
            }
        } catch {
            let text = "\(error)"
            if text.contains("Address already in use") || text.contains("EADDRINUSE") || text.contains("errno: 98") {
                throw CommandFailure(
                    message:
                        "Port \(port) on \(host) is in use. Stop the other server or pass --port with a free port (0 picks one)."
                )
            }
            throw error
        }
    }

    /// Refuses a data directory written for another stored shape, unless --reset.
    private func checkSchemaVersion(_ schema: AnnotatedSchema, in directory: URL) throws {
        let version = SchemaVersion.version(of: schema)
        let file = directory.appendingPathComponent("schema-version")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if let stored = try? String(contentsOf: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
            stored != version
        {
            throw CommandFailure(
                message:
                    "The data directory '\(directory.path)' holds data for another version of the schema (\(stored), now \(version)). "
                    + "Its data is kept: pass --data-dir with another directory, or --reset to delete it and start empty."
            )
        }
        try Data(version.utf8).write(to: file, options: .atomic)
    }
}
