import Foundation
import GraphQL
import StratusCodegen
import Testing

/// Every generated document is valid GraphQL, and each operation passes every variable it
/// declares to its one root field.
struct StatementsParsingTests {
    static let kinds: [String: OperationType] = [
        "queries.graphql": .query, "mutations.graphql": .mutation, "subscriptions.graphql": .subscription,
    ]

    /// The schemas checked: the statements fixtures and the project-wide Tests/Fixtures/blog.graphql.
    static func schema(_ name: String) throws -> String {
        guard name == "blog" else { return try GeneratedStatements.fixture(name) }
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/blog.graphql")
        return try String(contentsOf: url, encoding: .utf8)
    }

    @Test(
        arguments: ["statements-blog", "statements-features", "blog"],
        [(1, true), (2, true), (3, true), (1, false), (2, false), (3, false)]
    )
    func everyDocumentParses(fixture: String, setting: (maxDepth: Int, conflictDetection: Bool)) throws {
        let (maxDepth, conflictDetection) = setting
        let schema = try SchemaParser().parse(Self.schema(fixture))
        let files = StatementsGenerator(maxDepth: maxDepth, conflictDetection: conflictDetection).generate(schema)
        var names: Set<String> = []
        for file in files {
            let document = try GraphQL.parse(source: Source(body: file.contents, name: file.path))
            let operations = document.definitions.compactMap { $0 as? OperationDefinition }
            #expect(operations.count == document.definitions.count, "\(file.path) holds only operations")
            #expect(!operations.isEmpty, "\(file.path) has operations")
            for operation in operations {
                let name = try #require(operation.name?.value)
                #expect(names.insert(name).inserted, "\(name) is declared once")
                #expect(operation.operation == Self.kinds[file.path], "\(name) is in \(file.path)")
                #expect(operation.selectionSet.selections.count == 1, "\(name) has one root field")
                let root = try #require(operation.selectionSet.selections.first as? GraphQL.Field)
                #expect(Naming.upperFirst(root.name.value) == name, "\(name) is named after \(root.name.value)")
                let declared = operation.variableDefinitions.map(\.variable.name.value)
                let passed = root.arguments.map { argument -> String in
                    (argument.value as? Variable).map(\.name.value) == argument.name.value ? argument.name.value : "?"
                }
                #expect(declared == passed, "\(name) passes each variable to the argument of the same name")
            }
        }
    }
}
