import Foundation
import StratusCodegen
import Testing

/// The models generated from Tests/Fixtures/blog.graphql are committed and compiled as the
/// BlogModels target; this test regenerates them and fails on any difference.
///
/// Set STRATUS_UPDATE_FIXTURES=1 to rewrite the committed files instead.
@Suite struct FixtureModelsTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    @Test func committedModelsMatchTheGenerator() throws {
        let source = try String(contentsOf: Self.fixtures.appendingPathComponent("blog.graphql"), encoding: .utf8)
        let schema = try SchemaParser().parse(source, fileName: "blog.graphql")
        let files = try SwiftModelGenerator().generate(schema)
        let directory = Self.fixtures.appendingPathComponent("BlogModels")
        if ProcessInfo.processInfo.environment["STRATUS_UPDATE_FIXTURES"] == "1" {
            let existing = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            for name in existing where name.hasSuffix(".swift") {
                try FileManager.default.removeItem(at: directory.appendingPathComponent(name))
            }
            for file in files {
                try Data(file.contents.utf8).write(to: directory.appendingPathComponent(file.path))
            }
        }
        let committed = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".swift") }.sorted()
        #expect(committed == files.map(\.path).sorted())
        for file in files {
            let onDisk = try String(contentsOf: directory.appendingPathComponent(file.path), encoding: .utf8)
            #expect(onDisk == file.contents, "\(file.path) differs from the generator's output")
        }
    }
}
