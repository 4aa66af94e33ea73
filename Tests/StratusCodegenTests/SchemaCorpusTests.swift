import Foundation
import StratusCodegen
import StratusServer
import StratusTesting
import Testing

/// A corpus of schemas in the forms of real public Amplify schemas (`Schemas/corpus`): each file
/// names in its first line the public schema whose form it reproduces, with its own names.
///
/// Valid ones parse, their API's SDL and generated statements satisfy graphql-core, the
/// reference implementation's Python port, and the local backend serves them and answers an
/// introspection query. The `invalid-` ones are refused with the exact problems their `# Error:`
/// lines give, positions included.
@Suite struct SchemaCorpusTests {
    static let directory = Bundle.module.resourceURL!.appendingPathComponent("Schemas/corpus")

    static let names: [String] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasSuffix(".graphql") }.sorted()
    }()

    static var validNames: [String] { names.filter { !$0.hasPrefix("invalid-") } }
    static var invalidNames: [String] { names.filter { $0.hasPrefix("invalid-") } }

    static func source(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    @Test func everyFileNamesThePublicSchemaItReproduces() throws {
        #expect(Self.validNames.count >= 40)
        for name in Self.names {
            let firstLine = try Self.source(name).prefix { $0 != "\n" }
            #expect(firstLine.hasPrefix("# Form of: "), "\(name) does not start with '# Form of: <source>'")
        }
    }

    @Test(arguments: validNames)
    func validSchemaParses(_ name: String) throws {
        do {
            _ = try SchemaParser().parse(try Self.source(name), fileName: name)
        } catch let error as SchemaError {
            Issue.record("\(name) is refused:\n\(error)")
        }
    }

    @Test(arguments: invalidNames)
    func invalidSchemaIsRefusedAtItsPosition(_ name: String) throws {
        let source = try Self.source(name)
        let expected = source.split(separator: "\n").filter { $0.hasPrefix("# Error: ") }.map { $0.dropFirst(9) }
        #expect(!expected.isEmpty, "\(name) has no '# Error: ' line")
        do {
            _ = try SchemaParser().parse(source, fileName: name)
            Issue.record("\(name) parsed")
        } catch {
            #expect(error.description.split(separator: "\n") == expected)
        }
    }

    /// `codegen types` writes `API.swift` for the statements `codegen statements` writes for the
    /// hand-written operations, and `codegen models` writes the models, or refuses with the
    /// problem a `# Codegen models:` line of the file gives.
    @Test(arguments: validNames)
    func codegenTypesAndModelsAcceptTheSchema(_ name: String) throws {
        let source = try Self.source(name)
        let schema = try SchemaParser().parse(source, fileName: name)
        if !schema.operations.isEmpty {
            let api = try APISchema(sdl: ServerAPI(schema: schema).sdl, fileName: name)
            let generator = StatementsGenerator()
            let text = schema.operations.compactMap { generator.document(ofField: $0.name, in: schema) }
                .joined(separator: "\n\n")
            let swift = try TypesGenerator().generate(
                schema: api,
                statements: [StatementsFile(path: "operations.graphql", text: text)]
            )
            for operation in schema.operations {
                #expect(swift.contains("\"\(operation.name)\""), "\(name): API.swift has no \(operation.name)")
            }
        }
        let expected = source.split(separator: "\n").first { $0.hasPrefix("# Codegen models: ") }?.dropFirst(18)
        do {
            _ = try SwiftModelGenerator().generate(schema, fileName: name)
            #expect(expected == nil, "\(name): codegen models did not refuse it")
        } catch {
            #expect(expected.map(String.init) == error.description)
        }
    }

    /// One Python run checks every schema: graphql-core builds each SDL and validates the
    /// statements `codegen statements` writes for it.
    @Test func graphQLCoreBuildsEveryAPIAndValidatesItsStatements() async throws {
        var cases: [JSON] = []
        for name in Self.validNames {
            let schema = try SchemaParser().parse(try Self.source(name), fileName: name)
            let files = StatementsGenerator().generate(schema)
            cases.append(
                .object([
                    "name": .string(name),
                    "sdl": .string(ServerAPI(schema: schema).sdl),
                    "documents": .array(files.map { .string($0.contents) }),
                ])
            )
        }
        let result = try await ChildProcess.run(
            [
                "python3", "-c",
                """
                import json, sys
                from graphql import build_schema, parse, validate
                problems = []
                for case in json.load(sys.stdin):
                    try:
                        schema = build_schema(case["sdl"])
                    except Exception as error:
                        problems.append(case["name"] + ": " + str(error))
                        continue
                    for document in case["documents"]:
                        if not "".join(line for line in document.splitlines() if not line.startswith("#")).strip():
                            continue
                        problems += [case["name"] + ": " + str(error) for error in validate(schema, parse(document))]
                print("\\n".join(problems))
                sys.exit(1 if problems else 0)
                """,
            ],
            input: Data(JSON.array(cases).text.utf8)
        )
        #expect(result.status == .exited(0), "graphql-core: \(result.outputText)\(result.errorText)")
    }

    /// The local backend serves each schema (its store, its executable API) and answers an
    /// introspection query with every declared type and hand-written query.
    @Test(arguments: validNames)
    func theBackendServesTheSchemaAndAnswersIntrospection(_ name: String) async throws {
        let schema = try SchemaParser().parse(try Self.source(name), fileName: name)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-corpus-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try StratusServer(schema: schema, dataDirectory: directory)
        let response = await server.execute(
            query: "{ __schema { queryType { name fields { name } } types { name } } }",
            identity: .apiKey
        )
        try server.close()
        let introspection = response.body["data"]?["__schema"]
        let types = try #require(introspection?["types"]?.arrayValue, "\(name): \(response.text)")
        let fields = try #require(introspection?["queryType"]?["fields"]?.arrayValue, "\(name): \(response.text)")
        let typeNames = Set(types.compactMap { $0["name"]?.stringValue })
        let queryNames = Set(fields.compactMap { $0["name"]?.stringValue })
        #expect(introspection?["queryType"]?["name"]?.stringValue == schema.rootTypes.query)
        let declared =
            schema.inputs.map(\.name) + schema.interfaces.map(\.name) + schema.unions.map(\.name)
            + schema.nonModels.map(\.name) + schema.models.map(\.name) + schema.scalars.map(\.name)
        for type in declared {
            #expect(typeNames.contains(type), "\(name): introspection has no type \(type)")
        }
        for query in schema.operations(.query) {
            #expect(queryNames.contains(query.name), "\(name): introspection has no query \(query.name)")
        }
    }
}
