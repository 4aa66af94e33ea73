import Foundation
import StratusTesting
import Testing

/// The Stratus Console of `stratus serve`, used in headless Chromium (Debian's `chromium` and
/// `chromium-driver`) by a Selenium script that knows only the page (Browser/console_browser.py).
@Suite struct ConsoleBrowserTests {
    static let config = """
        {
          "auth": {
            "users": [{ "username": "alice", "password": "Alice-pass1!" }, { "username": "bob", "password": "Bob-pass1!" }]
          }
        }
        """

    /// `stratus serve` on a schema of notes with an owner rule, `config` and a data directory of
    /// its own, for a browser test; `nil`, with the issue recorded, when Chromium or its driver
    /// is not installed.
    static func serveNotes(
        schema text: String =
            "type Note @model @auth(rules: [{ allow: owner }, { allow: public }]) { id: ID! text: String }",
        config: String = config
    ) async throws -> (directory: TemporaryDirectory, serving: ServeCommandTests.Serving)? {
        for program in ["/usr/bin/chromium", "/usr/bin/chromedriver"]
        where !FileManager.default.fileExists(atPath: program) {
            Issue.record(
                "\(program) is missing: apt-get install chromium chromium-driver (scripts/test installs them)."
            )
            return nil
        }
        let directory = try TemporaryDirectory()
        try directory.write(config, to: "stratus.json")
        let schema = try directory.write(text, to: "schema.graphql")
        let serving = try await ServeCommandTests.Serving(
            [
                "--schema", schema.path, "--config", directory.path("stratus.json"), "--data-dir",
                directory.path("data"),
            ],
            in: directory
        )
        return (directory: directory, serving: serving)
    }

    @Test func theConsoleRunsRequestsAsEachIdentityAndEditsData() async throws {
        guard let served = try await Self.serveNotes() else { return }
        // The data directory lives as long as the test: the server writes there.
        defer { withExtendedLifetime(served.directory) {} }
        let serving = served.serving
        let key = try await serving.process.line(startingWith: "API key: ").dropFirst("API key: ".count)
        let line = try await serving.process.line(startingWith: "Console: ")
        let url = String(line.dropFirst("Console: ".count))
        #expect(url.hasPrefix("http://127.0.0.1:\(serving.port)/console?secret="))
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appending(path: "Browser/console_browser.py")
        let result = try await ChildProcess.run(["python3", script.path(percentEncoded: false), url, String(key)])
        await serving.process.stop()
        let output = result.outputText + result.errorText
        #expect(result.status == .exited(0), "\(output)")
        #expect(output.contains("console browser test passed"), "\(output)")
    }
}
