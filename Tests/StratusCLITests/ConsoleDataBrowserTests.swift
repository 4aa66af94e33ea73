import Foundation
import StratusTesting
import Testing

/// The Stratus Console's Data page of `stratus serve`, used in headless Chromium by a Selenium
/// script that knows only the page (Browser/console_data_browser.py).
@Suite struct ConsoleDataBrowserTests {
    @Test func theDataPageCreatesEditsGeneratesAndShowsAnItemsHistory() async throws {
        guard let served = try await ConsoleBrowserTests.serveNotes() else { return }
        // The data directory lives as long as the test: the server writes there.
        defer { withExtendedLifetime(served.directory) {} }
        let serving = served.serving
        let line = try await serving.process.line(startingWith: "Console: ")
        let url = String(line.dropFirst("Console: ".count))
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appending(path: "Browser/console_data_browser.py")
        let result = try await ChildProcess.run(["python3", script.path(percentEncoded: false), url])
        await serving.process.stop()
        let output = result.outputText + result.errorText
        #expect(result.status == .exited(0), "\(output)")
        #expect(output.contains("console data browser test passed"), "\(output)")
    }
}
