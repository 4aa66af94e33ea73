import Foundation
import Testing

/// `stratus codegen` on schemas with hand-written operations, and the problems it reports.
@Suite struct CodegenSchemaFormsTests {
    @Test func typesCoversHandWrittenOperationsOfASchemaWithoutModels() async throws {
        let directory = try TemporaryDirectory()
        try directory.write(
            """
            input RangeInput { from: Int! to: Int }
            type Query { total(range: RangeInput!): Int @function(name: "total-${env}") }
            extend type Query { ping: String @http(url: "https://example.com/ping") }
            """,
            to: "schema.graphql"
        )
        let process = try await StratusProcess(["codegen", "types", "--output", "API.swift"], in: directory.url)
        #expect(try await process.exitStatus() == 0, "stratus failed: \(process.standardError)")
        let swift = try String(contentsOf: directory.url.appending(path: "API.swift"), encoding: .utf8)
        #expect(swift.contains("public struct TotalQuery: GraphQLQuery {"))
        #expect(swift.contains("public struct PingQuery: GraphQLQuery {"))
        #expect(swift.contains("public struct RangeInput: GraphQLMapConvertible {"))
    }

    @Test func statementsPrintTheSchemasWarnings() async throws {
        let directory = try TemporaryDirectory()
        try directory.write(
            "type Trip @model { id: ID! driver: Driver }\ntype Driver @model { id: ID! }\n",
            to: "schema.graphql"
        )
        let process = try await StratusProcess(["codegen", "statements", "--output", "graphql"], in: directory.url)
        #expect(try await process.exitStatus() == 0)
        #expect(
            process.standardError
                == "Warning: schema.graphql:1:28: Trip.driver: the field holds the @model type 'Driver' without a "
                + "relation directive, so nothing stores or resolves it: it reads as null, it is not in the mutation "
                + "inputs, and the generated Swift models leave it out. Add the appropriate @hasOne/@belongsTo "
                + "directive if you want to connect them.\n"
        )
    }

    @Test func modelsRefuseAModelNamedList() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("type List @model { id: ID! title: String }\n", to: "schema.graphql")
        let process = try await StratusProcess(["codegen", "models", "--output", "Models"], in: directory.url)
        #expect(try await process.exitStatus() == 1)
        #expect(
            process.standardError
                == "Error: schema.graphql:1:6: List: 'List' is a reserved name in the generated Swift models: they use "
                + "Amplify's List, which this type would shadow. Rename the type to 'AppList', with every field that "
                + "uses it.\n"
        )
    }
}
