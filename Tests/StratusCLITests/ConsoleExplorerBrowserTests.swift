import Foundation
import StratusTesting
import Testing

/// The Stratus Console's Explorer of `stratus serve --auth`, used in headless Chromium by a
/// Selenium script that knows only the page (Browser/console_explorer_browser.py): IAM as an
/// identity-pool guest, claims signed by the local OIDC provider, completion, checks and docs
/// from the schema, the history, and a live subscription.
@Suite struct ConsoleExplorerBrowserTests {
    @Test func theExplorerRunsAsAGuestCompletesRemembersAndSubscribes() async throws {
        guard
            let served = try await ConsoleBrowserTests.serveNotes(
                schema: "type Note @model @auth(rules: [{ allow: owner }, { allow: public }, "
                    + "{ allow: public, provider: iam }, { allow: private, provider: oidc }]) { id: ID! text: String }",
                // The local OIDC provider besides the pools, whose tokens the console signs; the
                // user pool mode listed is the local Cognito's.
                config: """
                    {
                      "auth": { "users": [{ "username": "alice", "password": "Alice-pass1!" }] },
                      "authorization": {
                        "defaultMode": "API_KEY",
                        "additionalModes": ["AMAZON_COGNITO_USER_POOLS", "AWS_IAM", "OPENID_CONNECT"],
                        "openIDConnect": { "local": true, "clientId": "console" }
                      }
                    }
                    """
            )
        else { return }
        // The data directory lives as long as the test: the server writes there.
        defer { withExtendedLifetime(served.directory) {} }
        let serving = served.serving
        let key = try await serving.process.line(startingWith: "API key: ").dropFirst("API key: ".count)
        let line = try await serving.process.line(startingWith: "Console: ")
        let url = String(line.dropFirst("Console: ".count))
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appending(path: "Browser/console_explorer_browser.py")
        let result = try await ChildProcess.run(["python3", script.path(percentEncoded: false), url, String(key)])
        await serving.process.stop()
        let output = result.outputText + result.errorText
        #expect(result.status == .exited(0), "\(output)")
        #expect(output.contains("console explorer browser test passed"), "\(output)")
    }
}
