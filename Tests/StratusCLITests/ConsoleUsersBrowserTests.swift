import Foundation
import StratusTesting
import Testing

/// The Stratus Console's Users page of `stratus serve --auth`, used in headless Chromium by a
/// Selenium script that knows only the page and the local Cognito's endpoint
/// (Browser/console_users_browser.py).
@Suite struct ConsoleUsersBrowserTests {
    @Test func theInboxShowsASignUpsCodeAndThePageConfirmsAUser() async throws {
        for program in ["/usr/bin/chromium", "/usr/bin/chromedriver"]
        where !FileManager.default.fileExists(atPath: program) {
            Issue.record(
                "\(program) is missing: apt-get install chromium chromium-driver (scripts/test installs them)."
            )
            return
        }
        let directory = try TemporaryDirectory()
        try directory.write(ConsoleBrowserTests.config, to: "stratus.json")
        let schema = try directory.write(
            "type Note @model @auth(rules: [{ allow: owner }, { allow: public }]) { id: ID! text: String }",
            to: "schema.graphql"
        )
        let serving = try await ServeCommandTests.Serving(
            [
                "--schema", schema.path, "--config", directory.path("stratus.json"), "--data-dir",
                directory.path("data"),
            ],
            in: directory
        )
        let clients = try await serving.process.line(startingWith: "Cognito app clients: ")
        let client = String(clients.dropFirst("Cognito app clients: ".count).split(separator: ",")[0])
        let line = try await serving.process.line(startingWith: "Console: ")
        let url = String(line.dropFirst("Console: ".count))
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appending(path: "Browser/console_users_browser.py")
        let result = try await ChildProcess.run(["python3", script.path(percentEncoded: false), url, client])
        await serving.process.stop()
        let output = result.outputText + result.errorText
        #expect(result.status == .exited(0), "\(output)")
        #expect(output.contains("console users browser test passed"), "\(output)")
    }
}
