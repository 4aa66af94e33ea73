import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The page's files: HTML, CSS and JavaScript modules shipped as the target's resources, and
/// the browser libraries Debian installs under `/usr/share/javascript` (CodeMirror, from
/// `libjs-codemirror`), served under `/console/lib/`.
struct ConsolePage: Sendable {
    /// The directory of the page's files; `nil` when the resources are not beside the executable.
    let directory: URL?
    /// Where Debian's packages put browser libraries.
    let libraries: URL

    init(
        directory: URL? = ConsolePage.resourceDirectory(),
        libraries: URL = URL(fileURLWithPath: "/usr/share/javascript", isDirectory: true)
    ) {
        self.directory = directory
        self.libraries = libraries
    }

    /// The name SwiftPM gives the target's resources beside the executable.
    static let bundleName = "Stratus_StratusConsole"

    /// The `Page` folder of the resources beside the executable (or the test bundle), found
    /// without `Bundle.module`, which stops the process when they are missing.
    static func resourceDirectory() -> URL? {
        let starts = [
            Bundle.main.bundleURL,
            URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent(),
        ]
        for start in starts {
            for candidate in [
                start.appending(path: "\(bundleName).resources/Page"),
                start.appending(path: "\(bundleName).bundle/Contents/Resources/Page"),
                start.appending(path: "\(bundleName).bundle/Page"),
            ] where FileManager.default.fileExists(atPath: candidate.path(percentEncoded: false)) {
                return candidate
            }
        }
        return nil
    }

    /// The file at `path` (`/console`, `/console/explorer.js`, `/console/lib/codemirror/…`).
    func response(for path: String) -> Response {
        guard let directory else {
            return ConsoleEndpoint.refusal(
                .internalServerError,
                "The console's page (\(Self.bundleName).resources) is not beside the stratus executable: copy it "
                    + "from the build directory along with the executable.",
                json: false
            )
        }
        let relative =
            path == "/console" || path == "/console/" ? "index.html" : String(path.dropFirst("/console/".count))
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard !parts.isEmpty,
            parts.allSatisfy({ !$0.isEmpty && !$0.hasPrefix(".") && $0.allSatisfy(Self.isNameCharacter) })
        else { return notFound(path) }
        let file: URL
        if parts.first == "lib" {
            file = parts.dropFirst().reduce(libraries) { $0.appending(path: String($1)) }
        } else {
            file = parts.reduce(directory) { $0.appending(path: String($1)) }
        }
        guard let type = Self.contentType(of: file.pathExtension),
            let data = FileManager.default.contents(atPath: file.path(percentEncoded: false))
        else { return notFound(path) }
        var headers = ConsoleEndpoint.securityHeaders
        headers[.contentType] = type
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    private func notFound(_ path: String) -> Response {
        ConsoleEndpoint.refusal(.notFound, "The console has no file at \(path).", json: false)
    }

    private static func isNameCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || "._-".contains(character))
    }

    /// The content type of a file with `pathExtension`; `nil` for a kind the page does not use.
    static func contentType(of pathExtension: String) -> String? {
        switch pathExtension {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "json": "application/json"
        case "svg": "image/svg+xml"
        default: nil
        }
    }
}
