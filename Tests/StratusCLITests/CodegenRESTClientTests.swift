import Foundation
import StratusCodegen
import StratusTesting
import Testing

/// `stratus codegen rest-client`: the committed client of Tests/Fixtures/RESTClient (compiled
/// as the RESTClient target, and called by the REST API guide's `doInvokeAPI()`) is what the
/// command writes from Tests/Fixtures/rest-amplifyconfiguration.json.
///
/// Set STRATUS_UPDATE_FIXTURES=1 to rewrite the committed file instead.
@Suite struct CodegenRESTClientTests {
    static let configuration = CodegenTypesTests.fixtures.appending(path: "rest-amplifyconfiguration.json")

    @Test func committedClientMatchesTheConfiguration() async throws {
        let directory = try TemporaryDirectory()
        let process = try await StratusProcess(
            [
                "codegen", "rest-client", "--config", Self.configuration.path, "--api", "xyz123useamplifyabcd",
                "--output", directory.path("generated-src"),
            ],
            in: directory.url
        )
        #expect(try await process.exitStatus() == 0, "stratus failed: \(process.standardError)")
        let written = directory.path("generated-src/xyz123useamplifyabcdClient.swift")
        #expect(process.standardOutput == "Wrote \(written)\n")
        let generated = try String(contentsOfFile: written, encoding: .utf8)
        let committed = CodegenTypesTests.fixtures.appending(path: "RESTClient/xyz123useamplifyabcdClient.swift")
        if ProcessInfo.processInfo.environment["STRATUS_UPDATE_FIXTURES"] == "1" {
            try Data(generated.utf8).write(to: committed)
        }
        #expect(try String(contentsOf: committed, encoding: .utf8) == generated)
    }

    @Test func aGraphQLOrUnknownAPIIsRefusedWithTheFix() async throws {
        let directory = try TemporaryDirectory()
        for (api, message) in [
            (
                "stratus",
                "The API 'stratus' is not a REST API (endpointType is GraphQL). Use `stratus codegen types` for a "
                    + "GraphQL API."
            ),
            (
                "itmes",
                "The configuration has no API named 'itmes' (it has 'xyz123useamplifyabcd'). Pass --api with one "
                    + "of them."
            ),
        ] {
            let process = try await StratusProcess(
                [
                    "codegen", "rest-client", "--config", Self.configuration.path, "--api", api, "--output",
                    directory.path("out"),
                ],
                in: directory.url
            )
            #expect(try await process.exitStatus() == 1)
            #expect(process.standardError == "Error: \(message)\n")
        }
    }

    @Test func theClassIsNamedAfterTheAPI() throws {
        let config = Data(
            #"{"api":{"plugins":{"awsAPIPlugin":{"my-api":{"endpointType":"REST","endpoint":"https://a.example/dev","region":"eu-west-1","apiKey":"k\"1"}}}}}"#
                .utf8
        )
        let file = try RESTClientGenerator().generate(amplifyConfiguration: config, api: "my-api")
        #expect(file.path == "myapiClient.swift")
        #expect(file.contents.contains(#"public static let endpoint = URL(string: "https://a.example/dev")!"#))
        #expect(file.contents.contains(#"public static let region = "eu-west-1".aws_regionTypeValue()"#))
        #expect(file.contents.contains(#"apiKey: "k\"1")"#))
        #expect(throws: RESTClientError.self) {
            try RESTClientGenerator().generate(amplifyConfiguration: Data("[]".utf8), api: "x")
        }
    }
}
