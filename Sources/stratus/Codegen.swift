import ArgumentParser
import Foundation
import StratusCodegen
import StratusServer

/// `stratus codegen …`: Swift models and GraphQL statements from an annotated schema.
struct Codegen: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Generate Swift models, GraphQL statements, the AppSync client's API.swift or a REST API's client.",
        subcommands: [Models.self, Statements.self, Types.self, RESTClient.self]
    )

    struct SchemaOptions: ParsableArguments {
        @Option(name: .long, help: "The annotated GraphQL schema.")
        var schema: String = "schema.graphql"

        @Option(name: .long, help: "The directory to write into (created if needed).")
        var output: String

        /// Reads and parses the schema, printing its warnings.
        func load() throws -> AnnotatedSchema {
            let annotated = try loadSchema(at: schema)
            printWarnings(of: annotated, fileName: fileName)
            return annotated
        }

        /// The schema file's name, as messages give it.
        var fileName: String { URL(fileURLWithPath: schema).lastPathComponent }

        /// Writes `files` under the output directory and reports them.
        func write(_ files: [GeneratedFile]) throws {
            let directory = URL(fileURLWithPath: output, isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for file in files {
                try Data(file.contents.utf8).write(to: directory.appendingPathComponent(file.path), options: .atomic)
            }
            print("Wrote \(files.count) files to \(directory.path)")
        }
    }

    struct Models: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Generate Swift models: per model Post.swift and Post+Schema.swift, enums, non-model types and AmplifyModels.swift."
        )

        @OptionGroup var options: SchemaOptions

        func run() throws {
            let schema = try options.load()
            let files: [GeneratedFile]
            do {
                files = try SwiftModelGenerator().generate(schema, fileName: options.fileName)
            } catch {
                throw CommandFailure(error.description)
            }
            try options.write(files)
        }
    }

    struct Statements: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Generate queries.graphql, mutations.graphql and subscriptions.graphql for the generated API."
        )

        @OptionGroup var options: SchemaOptions
        @OptionGroup var statements: StatementOptions

        func run() throws {
            let schema = try options.load()
            try options.write(statements.generator.generate(schema))
        }
    }

    /// How statements are generated, by `codegen statements` and by `codegen types` without
    /// `--statements`.
    struct StatementOptions: ParsableArguments {
        @Option(name: .long, help: "How deep nested selections go: 1 selects no associations.")
        var maxDepth: Int = 2

        @Flag(
            inversion: .prefixedNo,
            help: "Include sync queries and _version, _deleted, _lastChangedAt (in the derived API too)."
        )
        var conflictDetection = true

        func validate() throws {
            guard maxDepth >= 1 else {
                throw ValidationError("--max-depth must be 1 or more (got \(maxDepth)).")
            }
        }

        var generator: StatementsGenerator {
            StatementsGenerator(maxDepth: maxDepth, conflictDetection: conflictDetection)
        }
    }

    struct Types: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Generate API.swift for the AppSync client: typed operations, input objects and enums.",
            discussion: """
                --schema takes an annotated Amplify schema (its API is derived as `stratus serve` derives \
                it), the SDL of an API, or an introspection schema.json. Without --statements, the \
                statements `codegen statements` writes for an annotated schema are used.
                """
        )

        @Option(name: .long, help: "The annotated schema, the API's SDL, or its introspection schema.json.")
        var schema: String = "schema.graphql"

        @Option(name: .long, help: "A .graphql file, or a directory of them, with the operations to generate.")
        var statements: String?

        @Option(name: .long, help: "The Swift file to write.")
        var output: String = "API.swift"

        @OptionGroup var generation: StatementOptions

        func run() throws {
            let (api, generated) = try loadAPI()
            let files: [StatementsFile]
            if let statements {
                files = try readStatements(at: statements)
            } else if let generated {
                files = generated
            } else {
                throw CommandFailure(
                    "'\(schema)' is an API's schema, not an annotated one, so there are no generated statements. "
                        + "Pass --statements with the .graphql files of your operations."
                )
            }
            let text: String
            do {
                text = try TypesGenerator().generate(schema: api, statements: files)
            } catch {
                throw CommandFailure(error.description)
            }
            let url = URL(fileURLWithPath: output)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try Data(text.utf8).write(to: url, options: .atomic)
            print("Wrote \(url.path)")
        }

        /// The API, and for an annotated schema the statements `codegen statements` generates.
        private func loadAPI() throws -> (APISchema, [StatementsFile]?) {
            let url = URL(fileURLWithPath: schema)
            let fileName = url.lastPathComponent
            let data: Data
            do {
                data = try Data(contentsOf: url)
            } catch {
                throw CommandFailure(
                    "Cannot read the schema at '\(schema)'. Pass --schema with a .graphql or .json file."
                )
            }
            do {
                if url.pathExtension.lowercased() == "json" {
                    return (try APISchema(introspection: data, fileName: fileName), nil)
                }
                let source = String(decoding: data, as: UTF8.self)
                guard APISchema.isAnnotated(source) else {
                    return (try APISchema(sdl: source, fileName: fileName), nil)
                }
                let annotated = try parseSchema(source, fileName: fileName)
                printWarnings(of: annotated, fileName: fileName)
                let derived = ServerAPI(
                    schema: annotated,
                    configuration: ServerConfiguration(conflictDetection: generation.conflictDetection)
                )
                let statements = generation.generator.generate(annotated)
                    .map { StatementsFile(path: $0.path, text: $0.contents) }
                return (try APISchema(sdl: derived.sdl, fileName: fileName), statements)
            } catch let error as TypesError {
                throw CommandFailure(error.description)
            }
        }

        /// The `.graphql` files at `path`: the file itself, or every one under the directory,
        /// sorted by path.
        private func readStatements(at path: String) throws -> [StatementsFile] {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw CommandFailure(
                    "There are no statements at '\(path)'. Pass --statements with a .graphql file or directory."
                )
            }
            var paths = [path]
            if isDirectory.boolValue {
                let names = FileManager.default.enumerator(atPath: path)?.compactMap { $0 as? String } ?? []
                let directory = path.hasSuffix("/") ? path : path + "/"
                paths = names.filter { $0.hasSuffix(".graphql") }.sorted().map { directory + $0 }
                guard !paths.isEmpty else {
                    throw CommandFailure("'\(path)' holds no .graphql files. Pass --statements with your operations.")
                }
            }
            return try paths.map { file in
                do {
                    return StatementsFile(path: file, text: try String(contentsOfFile: file, encoding: .utf8))
                } catch {
                    throw CommandFailure("Cannot read the statements at '\(file)'.")
                }
            }
        }
    }

    struct RESTClient: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rest-client",
            abstract: "Generate the AWSAPIGateway client class of a REST API: <Name>Client.swift.",
            discussion: """
                Reads the API's endpoint and region from the api.plugins.awsAPIPlugin.<name> entry of \
                amplifyconfiguration.json (as `stratus serve` and `amplify pull` write it) and writes the \
                class the AWS Mobile SDK's generated-src holds, for `import AWSAPIGateway`.
                """
        )

        @Option(name: .long, help: "The amplifyconfiguration.json with the API.")
        var config: String = "amplifyconfiguration.json"

        @Option(name: .long, help: "The name of the REST API in the configuration.")
        var api: String

        @Option(name: .long, help: "The directory to write into (created if needed).")
        var output: String

        func run() throws {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: config))
            } catch {
                throw CommandFailure(
                    "Cannot read the configuration at '\(config)'. Pass --config with an amplifyconfiguration.json file."
                )
            }
            let file: GeneratedFile
            do {
                file = try RESTClientGenerator().generate(amplifyConfiguration: data, api: api)
            } catch {
                throw CommandFailure(error.description)
            }
            let directory = URL(fileURLWithPath: output, isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let url = directory.appendingPathComponent(file.path)
            try Data(file.contents.utf8).write(to: url, options: .atomic)
            print("Wrote \(url.path)")
        }
    }
}

/// Prints the schema's warnings on standard error, one a line: `schema.graphql:3:5: Type.field: …`.
private func printWarnings(of schema: AnnotatedSchema, fileName: String) {
    for warning in schema.warnings {
        FileHandle.standardError.write(Data("Warning: \(fileName):\(warning)\n".utf8))
    }
}
