import Foundation
import StratusTesting
import Testing

/// The Stratus Console's Users page of `stratus serve --auth`, used in headless Chromium by a
/// Selenium script that knows only the page and the local Cognito's endpoint
/// (Browser/console_users_browser.py).
@Suite struct ConsoleUsersBrowserTests {
    @Test func theInboxShowsASignUpsCodeAndThePageConfirmsAUser() async throws {
        guard let served = try await ConsoleBrowserTests.serveNotes() else { return }
        // The data directory lives as long as the test: the server writes there.
        defer { withExtendedLifetime(served.directory) {} }
        let serving = served.serving
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
