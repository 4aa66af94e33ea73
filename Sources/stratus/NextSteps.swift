import Foundation
import StratusBackend
import StratusCodegen
import StratusServer

/// What `stratus serve` tells a newcomer once it listens: a first request to paste, where the
/// operations are, what conflict detection asks of writes, and how to add a user.
struct NextSteps: Sendable {
    let schema: AnnotatedSchema
    /// The `--schema` as given.
    let schemaPath: String
    /// The options `stratus users` needs to find the same pool.
    let usersOptions: [String]
    /// Where the client configuration files are written.
    let outputDirectory: URL

    /// The lines for `backend`, listening at `endpoint`.
    func lines(for backend: Backend, endpoint: URL) -> [String] {
        var lines = ["", "Next steps:"]
        let authorization = backend.authorization
        let usesKey = authorization.defaultMode == .apiKey || authorization.additionalModes.contains(.apiKey)
        if let key = authorization.apiKeys.first?.value, usesKey, let query = firstQuery {
            let body = #"{"query":"\#(query)"}"#
            lines.append(
                "  Query it:  curl -s \(endpoint.absoluteString) -H 'x-api-key: \(key)' "
                    + "-H 'content-type: application/json' -d '\(body)'"
            )
        }
        let roots = schema.models.flatMap { [$0.operations.list, $0.operations.create].compactMap { $0 } }
        lines.append(
            "  Operations: stratus codegen statements --schema \(schemaPath) --output graphql writes every query, "
                + "mutation and subscription"
                + (roots.isEmpty ? "." : " (\(roots.prefix(4).joined(separator: ", ")), …).")
        )
        let server = backend.configuration.server
        if let model = schema.models.first(where: { server.detectsConflicts(on: $0.name) }) {
            lines.append(
                "  Conflict detection is on: updates and deletes send the item's current _version (select _version "
                    + #"when you read it). "conflictDetection": false in the --config file turns it off, "#
                    + #""models": {"\#(model.name)": {"conflictDetection": false}} for one model."#
            )
        }
        if backend.cognito != nil {
            let options = usersOptions.isEmpty ? "" : " " + usersOptions.joined(separator: " ")
            lines.append(
                "  Add a user: stratus users add alice --password 'Alice-pass1!' --attribute "
                    + "email=alice@example.com\(options) (--group Admins creates the group if needed)"
            )
        }
        if let hint = Self.gitignoreHint(for: outputDirectory) { lines.append(hint) }
        return lines
    }

    /// The client configuration files, which hold the API key.
    static let clientFiles = ["amplifyconfiguration.json", "amplify_outputs.json", "awsconfiguration.json"]

    /// A line offering the command that keeps the client files out of git, when `directory` is
    /// in a git work tree whose `.gitignore` (at the work tree's top) does not name them all;
    /// `nil` otherwise.
    static func gitignoreHint(for directory: URL) -> String? {
        var top = directory.standardizedFileURL
        while !FileManager.default.fileExists(atPath: top.appending(path: ".git").path) {
            let parent = top.deletingLastPathComponent()
            guard parent.path != top.path else { return nil }
            top = parent
        }
        let gitignore = top.appending(path: ".gitignore")
        // A missing or unreadable file names nothing: the hint is what to do either way.
        let text = (try? String(contentsOf: gitignore, encoding: .utf8)) ?? ""
        let named = Set(text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) })
        let missing = clientFiles.filter { !named.contains($0) && !named.contains("/" + $0) }
        guard !missing.isEmpty else { return nil }
        return "  Keep the API key out of git (the client files hold it): printf '%s\\n' "
            + missing.joined(separator: " ") + " >> \(gitignore.path)"
    }

    func print(for backend: Backend, endpoint: URL) {
        for line in lines(for: backend, endpoint: endpoint) { Swift.print(line) }
    }

    /// `{ listTodos { items { id } } }` for the first model with a list query, selecting its key.
    private var firstQuery: String? {
        guard let model = schema.models.first(where: { $0.operations.list != nil }), let list = model.operations.list
        else { return nil }
        return "{ \(list) { items { \(model.primaryKey.joined(separator: " ")) } } }"
    }
}
