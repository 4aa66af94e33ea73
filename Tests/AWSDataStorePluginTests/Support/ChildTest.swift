import AWSAPIPlugin
import BlogModels
import Foundation
import StratusTesting
import Testing

/// Runs one test of this test binary in a child process, for what a test cannot do in the
/// shared test process: configure the process-wide `Amplify` facade, or be killed mid-write.
///
/// The child runs the binary again with a filter selecting one test, and the environment
/// variable ``roleVariable`` naming its role; tests that serve as children are enabled only
/// when their role is set.
enum ChildTest {
    /// The environment variable that names the child's role.
    static let roleVariable = "STRATUS_DATASTORE_TEST_ROLE"

    /// The role of this process, when it is a child.
    static var role: String? { ProcessInfo.processInfo.environment[roleVariable] }

    /// Whether child processes can be started: the test binary runs tests itself on Linux.
    static var isSupported: Bool {
        #if os(Linux)
            return true
        #else
            return false
        #endif
    }

    /// Starts the test matching `filter` in a child with `role`; its standard output and error go
    /// to `output`. The child is not supervised, so that a test that kills it sees it die at once;
    /// it ends by itself when its test ends.
    static func start(
        filter: String,
        role: String,
        environment: [String: String] = [:],
        directory: URL,
        output: URL
    ) async throws -> ChildProcess {
        var childEnvironment = environment
        childEnvironment[roleVariable] = role
        return try await ChildProcess.start(
            [
                // Absolute: the child starts in `directory`.
                URL(fileURLWithPath: CommandLine.arguments[0]).path, "--testing-library", "swift-testing", "--filter",
                filter,
            ],
            environment: childEnvironment,
            in: directory,
            output: output,
            tie: .none
        )
    }

    /// Runs the test matching `filter` in a child with `role` to its end.
    static func run(
        filter: String,
        role: String,
        environment: [String: String] = [:],
        directory: URL
    ) async throws -> (status: ChildProcess.Status, output: String) {
        let output = directory.appendingPathComponent("child-\(role).log")
        let process = try await start(
            filter: filter,
            role: role,
            environment: environment,
            directory: directory,
            output: output
        )
        let status = try await process.wait()
        return (status, (try? String(contentsOf: output, encoding: .utf8)) ?? "")
    }
}

extension ChildTest {
    /// An API plugin for the blog models, configured from the child's `STRATUS_ENDPOINT` and
    /// `STRATUS_API_KEY`.
    static func apiPlugin() throws -> AWSAPIPlugin {
        let environment = ProcessInfo.processInfo.environment
        let endpoint = try #require(environment["STRATUS_ENDPOINT"].flatMap(URL.init(string:)))
        let apiKey = try #require(environment["STRATUS_API_KEY"])
        let api = AWSAPIPlugin(modelRegistration: BlogRegistration())
        try api.configure(
            AWSAPIPluginConfiguration(endpoints: [
                .init(
                    name: "stratus",
                    endpointType: .graphQL,
                    endpoint: endpoint,
                    region: "us-east-1",
                    authorizationType: .apiKey,
                    apiKey: apiKey
                )
            ])
        )
        return api
    }
}
