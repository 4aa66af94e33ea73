import Foundation

/// Runs one test of this test binary in a child process, for what a test cannot do in the
/// shared test process: configure the process-wide `Amplify` facade, or be killed mid-write.
///
/// The child runs the binary again with a filter selecting one test, and the environment
/// variable ``roleVariable`` naming its role; tests that serve as children are enabled only
/// when their role is set.
enum ChildProcess {
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
    /// to `output`.
    static func start(
        filter: String,
        role: String,
        environment: [String: String] = [:],
        directory: URL,
        output: URL
    ) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["--testing-library", "swift-testing", "--filter", filter]
        var childEnvironment = ProcessInfo.processInfo.environment
        childEnvironment[roleVariable] = role
        for (key, value) in environment { childEnvironment[key] = value }
        process.environment = childEnvironment
        process.currentDirectoryURL = directory
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        return process
    }

    /// Runs the test matching `filter` in a child with `role` to its end.
    static func run(
        filter: String,
        role: String,
        environment: [String: String] = [:],
        directory: URL
    ) async throws -> (status: Int32, output: String) {
        let output = directory.appendingPathComponent("child-\(role).log")
        let process = try start(
            filter: filter,
            role: role,
            environment: environment,
            directory: directory,
            output: output
        )
        while process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        return (process.terminationStatus, (try? String(contentsOf: output, encoding: .utf8)) ?? "")
    }
}
