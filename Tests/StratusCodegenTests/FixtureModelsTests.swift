import Foundation
import StratusCodegen
import Testing

/// Generated models are committed and compiled: those of Tests/Fixtures/blog.graphql as the
/// BlogModels target, those of Examples/Todo/schema.graphql in the `todo-sync` example. This
/// test regenerates them and fails on any difference.
///
/// Set STRATUS_UPDATE_FIXTURES=1 to rewrite the committed files instead.
@Suite struct FixtureModelsTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// A schema and the directory its committed models are in, from the package's root.
    struct Committed: Sendable, CustomTestStringConvertible {
        let schema: String
        let models: String

        var testDescription: String { models }
    }

    static let committed = [
        Committed(schema: "Tests/Fixtures/blog.graphql", models: "Tests/Fixtures/BlogModels"),
        Committed(schema: "Examples/Todo/schema.graphql", models: "Examples/TodoSync/Sources/Models"),
    ]

    @Test(arguments: committed) func committedModelsMatchTheGenerator(_ committed: Committed) throws {
        let root = Self.fixtures.deletingLastPathComponent().deletingLastPathComponent()
        let schemaFile = root.appendingPathComponent(committed.schema)
        let source = try String(contentsOf: schemaFile, encoding: .utf8)
        let schema = try SchemaParser().parse(source, fileName: schemaFile.lastPathComponent)
        let files = try SwiftModelGenerator().generate(schema)
        let directory = root.appendingPathComponent(committed.models)
        if ProcessInfo.processInfo.environment["STRATUS_UPDATE_FIXTURES"] == "1" {
            let existing = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            for name in existing where name.hasSuffix(".swift") {
                try FileManager.default.removeItem(at: directory.appendingPathComponent(name))
            }
            for file in files {
                try Data(file.contents.utf8).write(to: directory.appendingPathComponent(file.path))
            }
        }
        let onDiskNames = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".swift") }.sorted()
        #expect(onDiskNames == files.map(\.path).sorted())
        for file in files {
            let onDisk = try String(contentsOf: directory.appendingPathComponent(file.path), encoding: .utf8)
            #expect(
                onDisk == file.contents,
                "\(committed.models)/\(file.path) differs from the generator's output (STRATUS_UPDATE_FIXTURES=1)"
            )
        }
    }
}
