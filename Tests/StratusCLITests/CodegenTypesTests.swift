import Foundation
import StratusCodegen
import StratusServer
import StratusTesting
import Testing

/// `stratus codegen types`: the committed API.swift files of the fixtures (compiled as the
/// TodoAPI and BlogAPI targets) are what the command writes, from an annotated schema, a plain
/// SDL and an introspection schema.json alike.
///
/// Set STRATUS_UPDATE_FIXTURES=1 to rewrite the committed files instead.
@Suite struct CodegenTypesTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appending(path: "Fixtures")

    /// Runs `stratus codegen types arguments` in `directory` and returns the file it wrote.
    private func generate(_ arguments: [String], in directory: TemporaryDirectory) async throws -> String {
        let process = try await StratusProcess(
            ["codegen", "types"] + arguments + ["--output", directory.path("API.swift")],
            in: directory.url
        )
        #expect(try await process.exitStatus() == 0, "stratus failed: \(process.standardError)")
        #expect(process.standardOutput == "Wrote \(directory.path("API.swift"))\n")
        return try String(contentsOf: directory.url.appending(path: "API.swift"), encoding: .utf8)
    }

    /// Compares `generated` with the committed file, or rewrites it when asked to.
    private func compare(_ generated: String, withCommitted name: String) throws {
        let committed = Self.fixtures.appending(path: name)
        if ProcessInfo.processInfo.environment["STRATUS_UPDATE_FIXTURES"] == "1" {
            try Data(generated.utf8).write(to: committed)
        }
        let onDisk = try String(contentsOf: committed, encoding: .utf8)
        #expect(onDisk == generated, "\(name) differs from what `stratus codegen types` writes")
    }

    @Test func committedTodoAPIMatchesThePlainSDLAndStatements() async throws {
        let directory = try TemporaryDirectory()
        let generated = try await generate(
            [
                "--schema", Self.fixtures.appending(path: "todo-api.graphql").path,
                "--statements", Self.fixtures.appending(path: "todo-statements").path,
            ],
            in: directory
        )
        try compare(generated, withCommitted: "TodoAPI/API.swift")
    }

    @Test func committedDeltaPostsAPIMatchesTheDeltaSyncSchemaAndStatements() async throws {
        let directory = try TemporaryDirectory()
        let generated = try await generate(
            [
                "--schema", Self.fixtures.appending(path: "delta-posts.graphql").path,
                "--statements", Self.fixtures.appending(path: "delta-posts-statements").path,
            ],
            in: directory
        )
        try compare(generated, withCommitted: "DeltaPostsAPI/API.swift")
    }

    @Test func committedBlogAPIMatchesTheAnnotatedSchemaAndItsStatements() async throws {
        let directory = try TemporaryDirectory()
        let generated = try await generate(
            ["--schema", Self.fixtures.appending(path: "blog.graphql").path, "--max-depth", "1"],
            in: directory
        )
        try compare(generated, withCommitted: "BlogAPI/API.swift")
    }

    @Test func committedExampleAPIMatchesTheExamplesSchema() async throws {
        let directory = try TemporaryDirectory()
        let examples = Self.fixtures.deletingLastPathComponent().deletingLastPathComponent().appending(path: "Examples")
        let generated = try await generate(
            ["--schema", examples.appending(path: "Todo/schema.graphql").path],
            in: directory
        )
        try compare(generated, withCommitted: "../../Examples/TodoAppSync/Sources/API.swift")
    }

    @Test func introspectionFromGraphQLCoreGivesTheSameAPI() async throws {
        let directory = try TemporaryDirectory()
        let source = try String(contentsOf: Self.fixtures.appending(path: "blog.graphql"), encoding: .utf8)
        let schema = try SchemaParser().parse(source, fileName: "blog.graphql")
        let script = """
            import json, sys
            from graphql import build_schema, introspection_from_schema
            schema = build_schema(sys.stdin.read())
            json.dump({"data": introspection_from_schema(schema)}, sys.stdout)
            """
        let python = try await ChildProcess.run(
            ["python3", "-c", script],
            input: Data(ServerAPI(schema: schema).sdl.utf8)
        )
        try #require(python.status == .exited(0), "graphql-core failed: \(python.errorText)")
        try python.output.write(to: directory.url.appending(path: "schema.json"))
        try FileManager.default.createDirectory(
            at: directory.url.appending(path: "graphql"),
            withIntermediateDirectories: true
        )
        for file in StatementsGenerator(maxDepth: 1).generate(schema) {
            try directory.write(file.contents, to: "graphql/\(file.path)")
        }
        let generated = try await generate(
            ["--schema", directory.path("schema.json"), "--statements", directory.path("graphql")],
            in: directory
        )
        let committed = try String(contentsOf: Self.fixtures.appending(path: "BlogAPI/API.swift"), encoding: .utf8)
        #expect(generated == committed)
    }

    @Test func aStatementThatDoesNotValidateIsReportedAtItsFileLineAndColumn() async throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(
            at: directory.url.appending(path: "graphql"),
            withIntermediateDirectories: true
        )
        try directory.write(
            "query ListTodos {\n  listTodos {\n    items {\n      id\n    }\n  }\n}\n",
            to: "graphql/a.graphql"
        )
        try directory.write(
            "query GetTodo($id: ID!) {\n  getTodo(id: $id) {\n    titel\n  }\n}\n",
            to: "graphql/b.graphql"
        )
        let process = try await StratusProcess(
            [
                "codegen", "types", "--schema", Self.fixtures.appending(path: "todo-api.graphql").path,
                "--statements", "graphql", "--output", "API.swift",
            ],
            in: directory.url
        )
        #expect(try await process.exitStatus() == 1)
        #expect(
            process.standardError
                == "Error: graphql/b.graphql:3:5: Cannot query field \"titel\" on type \"Todo\".\n"
        )
        #expect(!FileManager.default.fileExists(atPath: directory.path("API.swift")))
    }

    @Test func aPlainSDLWithoutStatementsIsRefusedWithTheFix() async throws {
        let directory = try TemporaryDirectory()
        let schema = Self.fixtures.appending(path: "todo-api.graphql").path
        let process = try await StratusProcess(["codegen", "types", "--schema", schema], in: directory.url)
        #expect(try await process.exitStatus() == 1)
        #expect(
            process.standardError
                == "Error: '\(schema)' is an API's schema, not an annotated one, so there are no generated statements. "
                + "Pass --statements with the .graphql files of your operations.\n"
        )
    }
}
