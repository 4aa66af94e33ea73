import Foundation
import StratusCodegen

/// Generated statements, read back by file and by operation.
struct GeneratedStatements {
    /// The contents of each generated file, by path.
    var files: [String: String]

    /// Parses `source` and generates its statements.
    init(_ source: String, maxDepth: Int = 2, conflictDetection: Bool = true) throws {
        let schema = try SchemaParser().parse(source, fileName: "schema.graphql")
        let generated = StatementsGenerator(maxDepth: maxDepth, conflictDetection: conflictDetection).generate(schema)
        files = Dictionary(uniqueKeysWithValues: generated.map { ($0.path, $0.contents) })
    }

    /// Generates the statements of the fixture `Schemas/<name>.graphql`.
    init(fixture name: String, maxDepth: Int = 2, conflictDetection: Bool = true) throws {
        try self.init(Self.fixture(name), maxDepth: maxDepth, conflictDetection: conflictDetection)
    }

    /// The text of the fixture `Schemas/<name>.graphql`.
    static func fixture(_ name: String) throws -> String {
        let url = Bundle.module.resourceURL!.appendingPathComponent("Schemas/\(name).graphql")
        return try String(contentsOf: url, encoding: .utf8)
    }

    var queries: String { files["queries.graphql"] ?? "" }
    var mutations: String { files["mutations.graphql"] ?? "" }
    var subscriptions: String { files["subscriptions.graphql"] ?? "" }

    /// The operations of `file` in order, each without the blank lines around it.
    func operations(in file: String) -> [String] {
        (files[file] ?? "").components(separatedBy: "\n\n").filter { !$0.hasPrefix("#") }
            .map { $0.trimmingCharacters(in: .newlines) }
    }

    /// The names of the operations of `file`, in order.
    func operationNames(in file: String) -> [String] {
        operations(in: file).map(Self.name)
    }

    /// The operation named `name` in any file, such as `GetPost`.
    func operation(_ name: String) -> String? {
        files.keys.sorted().flatMap(operations(in:)).first { Self.name(of: $0) == name }
    }

    /// `query GetPost($id: ID!) {` → `GetPost`.
    private static func name(of operation: String) -> String {
        let words = operation.split(separator: " ", maxSplits: 2)
        guard words.count > 1 else { return "" }
        return String(words[1].prefix { $0 != "(" })
    }
}
