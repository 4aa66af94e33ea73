import ArgumentParser
import Foundation
import StratusCodegen

/// `stratus codegen …`: Swift models and GraphQL statements from an annotated schema.
struct Codegen: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Generate Swift models or GraphQL statements from an annotated schema.",
        subcommands: [Models.self, Statements.self]
    )

    struct SchemaOptions: ParsableArguments {
        @Option(name: .long, help: "The annotated GraphQL schema.")
        var schema: String = "schema.graphql"

        @Option(name: .long, help: "The directory to write into (created if needed).")
        var output: String

        /// Reads and parses the schema.
        func load() throws -> AnnotatedSchema {
            try loadSchema(at: schema)
        }

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
            try options.write(SwiftModelGenerator().generate(schema))
        }
    }

    struct Statements: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Generate queries.graphql, mutations.graphql and subscriptions.graphql for the generated API."
        )

        @OptionGroup var options: SchemaOptions

        @Option(name: .long, help: "How deep nested selections go: 1 selects no associations.")
        var maxDepth: Int = 2

        @Flag(inversion: .prefixedNo, help: "Include sync queries and _version, _deleted, _lastChangedAt.")
        var conflictDetection = true

        func validate() throws {
            guard maxDepth >= 1 else {
                throw ValidationError("--max-depth must be 1 or more (got \(maxDepth)).")
            }
        }

        func run() throws {
            let schema = try options.load()
            try options.write(
                StatementsGenerator(maxDepth: maxDepth, conflictDetection: conflictDetection).generate(schema)
            )
        }
    }
}
